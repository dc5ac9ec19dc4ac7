// Fitting a predictor to measurements (carbon/runs/predictor_fit.h).
#include "carbon/runs/predictor_fit.h"

#include <chrono>
#include <filesystem>

#include "carbon/storage/project.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"

namespace carbon::runs {

PredictorFit fit_predictor(Model& model, const storage::MeasurementTable& table, const PredictorFitRequest& request,
                           const PredictorFitProgress& progress) {
    for (const storage::MeasurementRow& r : table.rows)
        if (r.sequence.empty())
            throw Error(table.path + ":" + std::to_string(r.line) + ": '" + visible_text(r.name, 80) +
                        "' has no sequence in the table; give the sequences that hold it (a FASTA file, or the project's)");
    std::vector<std::string> sequences, names;
    ProbeTrainingData data;
    data.table_path = table.path;
    data.table_hash = table.hash;
    data.conditions = table.conditions;
    for (const storage::MeasurementRow& r : table.rows) {
        sequences.push_back(r.sequence);
        const std::string name = r.name.empty() ? "line " + std::to_string(r.line) : r.name;
        names.push_back(table.path + ":" + std::to_string(r.line) + " (" + visible_text(name, 80) + ")");
        data.names.push_back(name);
        data.values.push_back(r.values);
        data.se.push_back(r.se);
    }
    PredictorFit out;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    SequenceEmbedder embedder(model, request.recipe);
    out.embeddings = embedder.embed(sequences, names, request.batch, [&](size_t done, size_t total) {
        return !progress || progress("embedding", done, total);
    });
    const auto t1 = clock::now();
    out.embedding_seconds = std::chrono::duration<double>(t1 - t0).count();
    if (out.embeddings.cancelled) {
        out.cancelled = true;
        return out;
    }
    Probe provenance;
    provenance.model_path = std::filesystem::absolute(model.checkpoint().dir()).string();
    provenance.model_fingerprint = model_fingerprint(model.checkpoint().dir());
    provenance.hidden_size = size_t(model.config().hidden_size);
    provenance.weights = model.weights();
    provenance.embedding = request.recipe;
    provenance.created = storage::utc_now_iso8601();
    provenance.engine_version = CARBON_VERSION;
    out.probe = fit_probe(out.embeddings, data, request.options, std::move(provenance),
                          [&](size_t done, size_t total) { return !progress || progress("fitting", done, total); });
    out.fitting_seconds = std::chrono::duration<double>(clock::now() - t1).count();
    if (!out.probe) out.cancelled = true;
    return out;
}

}  // namespace carbon::runs
