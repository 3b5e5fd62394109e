// Reading the failure model: the keys failures.* of a run and the failure table file they name
// (configs/failures/acme.yaml). The model itself (sim/failures.h) takes the plain settings.
#pragma once

#include <string>

#include "sim/failures.h"
#include "io/params.h"

namespace acme {

// Reads failures.* from `params` (in a fixed order: run.json lists them so); the table from
// failures.table, else `default_table`, only when failures.enabled (the keys are read and
// checked either way). Throws InputError naming the key, or the file, line and key.
FailureSettings read_failure_settings(Params& params, const std::string& default_table);

// The model of those settings.
inline FailureModel load_failure_model(Params& params, const std::string& default_table) {
  return FailureModel(read_failure_settings(params, default_table));
}

}  // namespace acme
