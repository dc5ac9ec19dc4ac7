// Fitting a predictor to the user's measurements: the one implementation carbon-cli predictor fit
// and the application share. The measurement table (every row with its sequence resolved) is
// embedded by the model (carbon/predict/embedder.h) and a ridge probe fitted per condition
// (carbon/predict/probe.h) with the model's identity, the recipe, the table's path and hash and the
// time as its provenance.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "carbon/model.h"
#include "carbon/predict/embedder.h"
#include "carbon/predict/probe.h"
#include "carbon/storage/measurements.h"

namespace carbon::runs {

struct PredictorFitRequest {
    EmbeddingRecipe recipe;
    ProbeFitOptions options;
    size_t batch = 16;  // sequences per forward pass
};

struct PredictorFit {
    std::optional<Probe> probe;  // nullopt when cancelled
    Embeddings embeddings;       // [rows, width], the table's row order
    double embedding_seconds = 0, fitting_seconds = 0;
    bool cancelled = false;
};

// Called with (stage, done, total): stage "embedding" (sequences), then "fitting" (ridge fits);
// returning false cancels (PredictorFit::cancelled, no probe).
using PredictorFitProgress = std::function<bool(const char* stage, size_t done, size_t total)>;

// Error, before the model runs, when a row has no sequence (the table named it, and nothing
// resolved it: storage::resolve_measurement_sequences), naming the table's line.
PredictorFit fit_predictor(Model& model, const storage::MeasurementTable& table, const PredictorFitRequest& request,
                           const PredictorFitProgress& progress = {});

}  // namespace carbon::runs
