// The outputs of one run: the sinks its `outputs` key names (io/sinks.h), made before it steps and
// finished once it ended. Into a folder, every file is finished under its temporary name and all
// are renamed together at the end, in output order: a run killed at any point leaves no output
// that looks finished, and none of an earlier run (the folder is emptied of those first). Or into
// a TableCapture (io/captured_table.h): every table a sink may fill is made before the run, so
// that a sink only looks its own up while other threads write theirs; those left empty are
// dropped at the end.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/csv.h"
#include "io/sinks.h"

namespace acme {

class RunOutputs {
 public:
  // The sinks of `names` (comma-separated, the outputs key) with `settings`, whose folder is made
  // (removed again, if still empty, should the run stop unfinished) and emptied of an earlier
  // run's outputs unless they are captured (its `renames` and `summary` are this object's).
  // Throws InputError for an unknown output or a folder it cannot make.
  RunOutputs(const std::string& names, SinkSettings settings);
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  const std::vector<std::unique_ptr<Sink>>& sinks() const { return sinks_; }
  // Finishes every sink with the run's record: with `threads` > 1, jobs.csv (the largest output,
  // about half of the time the outputs take) on a thread of its own while this one finishes the
  // others in order; then the files appear (or the empty tables go). An error is the one the first
  // failing sink, in order, throws. Sinks share nothing they write.
  void finish(const RunRecord& record, unsigned threads);

 private:
  // The folder the outputs made, removed again if they are destroyed unfinished (an error stopped
  // the run) and it is empty: a run that wrote nothing leaves no folder. Destroyed last.
  struct MadeFolder {
    std::filesystem::path dir;  // empty: none made
    bool finished = false;
    ~MadeFolder();
  } made_;
  std::vector<std::string> names_;
  TableCapture* capture_;
  DeferredRenames renames_;
  std::vector<std::unique_ptr<Sink>> sinks_;
};

// Removes the outputs of an earlier run from `dir` (every file a registered sink writes, finished
// or under its temporary name): the folder never holds files of two runs.
void remove_earlier_outputs(const std::filesystem::path& dir);

}  // namespace acme
