// Predictors fitted to measurements (carbon/predict/probe.h) as project records
// (storage::PredictorRecord), and back: one mapping for carbon-cli and the application.
#pragma once

#include <string>

#include "carbon/predict/probe.h"
#include "carbon/storage/project.h"

namespace carbon::runs {

// The record of `probe` under `name` (its JSON as the definition).
storage::PredictorRecord predictor_record(const Probe& probe, const std::string& name);

// The predictor a record holds; Error naming the project and the predictor when its definition is
// not a predictor (probe_from_json's checks: a project file is someone else's too).
Probe probe_of(const storage::PredictorRecord& record, const std::string& project_path);

}  // namespace carbon::runs
