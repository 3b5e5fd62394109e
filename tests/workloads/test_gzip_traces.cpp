// Traces compressed with gzip (io/gzip_text.h) read as their text: the same jobs and warnings as
// the plain file, in every format, whole and in parts; a damaged or cut stream stops with one line.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness.h"
#include "sim/error.h"
#include "workloads/acme_trace_reader.h"

namespace acme::test {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `text` compressed into `to` (in `members` gzip members, as `cat a.gz b.gz` makes).
void write_gzip(const fs::path& to, const std::string& text, int members = 1) {
  std::ofstream(to, std::ios::trunc);
  const std::size_t step = text.size() / static_cast<std::size_t>(members) + 1;
  for (std::size_t at = 0; at < text.size(); at += step) {
    gzFile f = gzopen(to.c_str(), "ab");
    REQUIRE(f);
    const std::string part = text.substr(at, step);
    CHECK(gzwrite(f, part.data(), static_cast<unsigned>(part.size())) == static_cast<int>(part.size()));
    gzclose(f);
  }
}

}  // namespace

TEST_CASE("A trace compressed with gzip reads as its text, in every format, whole and in parts", "[reader]") {
  const fs::path dir = temp_dir("gzip-traces");
  const fs::path samples = source_dir() / "tests/data/other_formats";
  for (const char* name : {"sample.swf", "sacct_jobs.txt", "helios_cluster_log.csv", "philly_cluster_job_log.json",
                           "openb_pod_list.csv"}) {
    for (const int members : {1, 3}) {
      INFO(name << ", " << members << " gzip members");
      const fs::path gz = dir / (std::string(name) + ".gz");
      write_gzip(gz, text_of(samples / name), members);
      CHECK(trace_format(gz.string()) == trace_format((samples / name).string()));
      for (const unsigned threads : {1u, 2u}) {
        TraceOptions opt;
        opt.threads = threads;
        std::vector<std::string> plain_warnings, gz_warnings;
        const Workload plain = read_acme_trace((samples / name).string(), opt, &plain_warnings);
        const Workload w = read_acme_trace(gz.string(), opt, &gz_warnings);
        CHECK(w.source == trace_source(gz.string()));
        check_same_jobs(w, plain);
        CHECK(gz_warnings == plain_warnings);
      }
    }
  }
}

TEST_CASE("A damaged or cut gzip trace stops with one line naming the file", "[reader]") {
  const fs::path dir = temp_dir("gzip-bad");
  std::string trace = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n";
  for (int j = 0; j < 2000; ++j)
    trace += "j" + std::to_string(j) + ",u,1,8,16,SFT,COMPLETED,2023-03-01 00:00:00+00:00,2023-03-01 00:00:01+00:00," +
             "2023-03-01 00:10:00+00:00\n";
  write_gzip(dir / "t.csv.gz", trace);
  CHECK(read_acme_trace((dir / "t.csv.gz").string(), {}).size() == 2000);
  const std::string whole = text_of(dir / "t.csv.gz");
  std::ofstream(dir / "cut.csv.gz", std::ios::binary) << whole.substr(0, whole.size() / 2);
  CHECK_THROWS_WITH(read_acme_trace((dir / "cut.csv.gz").string(), {}),
                    Catch::EndsWith("cut.csv.gz: gzip: cut short (truncated file?) (decompress it with gunzip to see where)"));
  std::string flipped = whole;
  flipped[whole.size() / 2] = static_cast<char>(flipped[whole.size() / 2] ^ 0x55);
  std::ofstream(dir / "bad.csv.gz", std::ios::binary) << flipped;
  CHECK_THROWS_AS(read_acme_trace((dir / "bad.csv.gz").string(), {}), InputError);
}

}  // namespace acme::test
