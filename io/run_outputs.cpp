#include "io/run_outputs.h"

#include <algorithm>
#include <exception>
#include <string_view>
#include <thread>
#include <utility>

#include "io/captured_table.h"
#include "io/config.h"
#include "io/shared_summary.h"

namespace acme {
namespace {

// The files of the outputs `names`, in output order: the names a capture's tables take, the
// order the files are renamed in.
std::vector<std::string_view> files_of(const std::vector<std::string>& names) {
  std::vector<std::string_view> files;
  for (const std::string& name : names)
    for (const SinkEntry& e : sink_table())
      if (e.name == name)
        for (std::string_view file : e.files)
          if (!file.empty()) files.push_back(file);
  return files;
}

}  // namespace

RunOutputs::RunOutputs(const std::string& names, SinkSettings settings)
    : names_(split_commas(names)), capture_(settings.capture) {
  if (capture_) {
    for (std::string_view file : files_of(names_)) capture_->tables.try_emplace(std::string(file));
  } else {
    if (!std::filesystem::exists(settings.out_dir)) made_.dir = settings.out_dir;
    create_output_folder(settings.out_dir);
    remove_earlier_outputs(settings.out_dir);
    settings.renames = &renames_;
  }
  settings.summary = std::make_shared<SharedSummary>();
  for (const std::string& name : names_) sinks_.push_back(make_sink(name, settings));
}

void RunOutputs::finish(const RunRecord& record, unsigned threads) {
  const auto jobs = threads > 1 ? static_cast<std::size_t>(std::find(names_.begin(), names_.end(), "jobs") - names_.begin())
                                : sinks_.size();
  std::exception_ptr jobs_failed, other_failed;
  std::size_t other = sinks_.size();  // the sink that failed on this thread
  std::thread own;
  if (jobs < sinks_.size())
    own = std::thread([&] {
      try {
        sinks_[jobs]->finish(record);
      } catch (...) {
        jobs_failed = std::current_exception();
      }
    });
  for (std::size_t i = 0; i < sinks_.size() && !other_failed; ++i) {
    if (i == jobs) continue;
    try {
      sinks_[i]->finish(record);
    } catch (...) {
      other_failed = std::current_exception();
      other = i;
    }
  }
  if (own.joinable()) own.join();
  if (jobs_failed && jobs < other) std::rethrow_exception(jobs_failed);
  if (other_failed) std::rethrow_exception(other_failed);
  if (capture_) {
    std::erase_if(capture_->tables, [](const auto& t) { return t.second.header.empty(); });
  } else {
    renames_.rename_all(files_of(names_));
  }
  made_.finished = true;
}

RunOutputs::MadeFolder::~MadeFolder() {
  std::error_code ignored;
  if (!finished && !dir.empty()) std::filesystem::remove(dir, ignored);  // only if empty
}

void remove_earlier_outputs(const std::filesystem::path& dir) {
  for (const SinkEntry& sink : sink_table())
    for (std::string_view name : sink.files)
      if (!name.empty())
        for (const char* suffix : {"", ".tmp"}) std::filesystem::remove(dir / (std::string(name) + suffix));
}

}  // namespace acme
