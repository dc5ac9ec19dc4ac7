// predictor_record and probe_of (carbon/runs/predictor_records.h).
#include "carbon/runs/predictor_records.h"

namespace carbon::runs {

storage::PredictorRecord predictor_record(const Probe& probe, const std::string& name) {
    storage::PredictorRecord r;
    r.name = name;
    r.kind = "fitted";
    r.created = probe.created;
    r.model_path = probe.model_path;
    r.model_fingerprint = probe.model_fingerprint;
    r.table_path = probe.table_path;
    r.table_hash = probe.table_hash;
    for (const ProbeCondition& c : probe.conditions) r.conditions.push_back(c.name);
    r.definition = probe_to_json(probe);
    return r;
}

Probe probe_of(const storage::PredictorRecord& record, const std::string& project_path) {
    return probe_from_json(record.definition, project_path + ": predictor '" + record.name + "'");
}

}  // namespace carbon::runs
