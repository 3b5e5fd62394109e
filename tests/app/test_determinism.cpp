#include <catch2/catch.hpp>

#include "harness.h"
#include "app/app.h"

namespace acme::test {
namespace {

void run_default(const std::filesystem::path& out, const std::string& seed) {
  RunArgs args;
  args.config = (source_dir() / "configs/seren.yaml").string();
  args.overrides = {"workload.to=2023-03-08 00:00:00+08:00", "seed=" + seed,
                    "outputs=jobs,timeseries,summary,run_json,users"};
  args.out_dir = out.string();
  args.progress = false;
  REQUIRE(run_command(args) == 0);
}

}  // namespace

TEST_CASE("The same configuration and seed give byte-identical outputs", "[determinism]") {
  const auto a = temp_dir("det-a"), b = temp_dir("det-b"), c = temp_dir("det-c");
  run_default(a, "11");
  run_default(b, "11");
  run_default(c, "12");
  for (const char* f : {"jobs.csv", "timeseries.csv", "summary.csv", "summary_by_type.csv", "run.json", "users.csv"}) {
    INFO(f);
    const std::string x = read_file(a / f);
    CHECK(x.size() > 100);
    CHECK(x == read_file(b / f));
  }
  CHECK(read_file(a / "jobs.csv") != read_file(c / "jobs.csv"));
  CHECK_FALSE(std::filesystem::exists(a / "jobs.csv.tmp"));
}

}  // namespace acme::test
