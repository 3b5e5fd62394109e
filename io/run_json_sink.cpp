// run.json (io/sinks.h).
#include "io/sinks.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "io/captured_table.h"
#include "io/csv.h"

namespace acme {
namespace {

// run.json: the resolved configuration, version, workload provenance and conservation figures.
class RunJsonSink final : public Sink {
 public:
  bool wants_facts() const override { return false; }
  explicit RunJsonSink(const SinkSettings& s)
      : path_(s.out_dir / "run.json"), capture_(s.capture), renames_(s.renames) {}
  void finish(const RunRecord& run) override {
    nlohmann::ordered_json j;
    j["acmesim_version"] = ACMESIM_VERSION;
    auto& config = j["config"];
    for (const auto& [key, value] : run.config) config[key] = value;
    j["workload"] = {{"source", run.workload.source},
                     {"schema", run.workload.schema.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(run.workload.schema)},
                     {"jobs", run.workload.size()},
                     {"rows_skipped", run.workload.rows_skipped}};
    j["cluster"] = {{"name", run.cluster.name}, {"nodes", run.cluster.nodes}, {"gpus", run.cluster.total_gpus()}};
    j["conservation"] = {{"jobs", run.conservation.jobs},
                         {"jobs_ended", run.conservation.ended},
                         {"job_gpu_seconds", run.conservation.job_gpu_seconds},
                         {"integral_gpu_seconds", run.conservation.integral_gpu_seconds},
                         {"wasted_gpu_seconds_by_cause", [&] {
                            nlohmann::ordered_json w;
                            for (std::size_t c = 0; c < kWasteCauseCount; ++c)
                              if (run.conservation.listed(c)) w[std::string(kWasteCauseNames[c])] = run.conservation.wasted_by_cause[c];
                            return w;
                          }()},
                         {"ok", true}};
    if (capture_) {
      capture_->texts["run.json"] = j.dump(2) + "\n";
      return;
    }
    OutputFile out(path_, renames_);
    out.write(j.dump(2));
    out.write("\n");
    out.commit();
  }

 private:
  std::filesystem::path path_;
  TableCapture* capture_;
  DeferredRenames* renames_;
};

}  // namespace

std::unique_ptr<Sink> make_run_json_sink(const SinkSettings& settings) { return std::make_unique<RunJsonSink>(settings); }

}  // namespace acme
