// A predictor fitted to the user's own measurements: ridge regression (carbon/predict/ridge.h) per
// measured condition on frozen Carbon embeddings (carbon/predict/embedder.h), with its held-out
// accuracy from k-fold cross-validation of the whole procedure (each fold's standardisation and
// penalty chosen on its training rows alone: scikit-learn's cross_val_predict of the pipeline).
// A Probe carries its provenance (the model's identity, the embedding recipe, the table's hash,
// the folds, each condition's penalty and figures, the held-out predictions for the report's
// plots) and is stored as JSON, in a file or a project; ProbePredictor applies it wherever the
// model it was fitted on is loaded, and refuses any other model.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "carbon/predict/embedder.h"
#include "carbon/predict/regressor.h"
#include "carbon/predict/ridge.h"

namespace carbon {

// The measurements a probe is fitted to, one row per sequence (engine types: the table's reader
// lives in storage).
struct ProbeTrainingData {
    std::string table_path, table_hash;
    std::vector<std::string> names;       // per row, for the report
    std::vector<std::string> conditions;  // column names
    std::vector<std::vector<std::optional<double>>> values;  // [row][condition]; nullopt: not measured
    std::vector<std::vector<std::optional<double>>> se;      // [row][condition]; nullopt: no standard error
};

struct ProbeFitOptions {
    size_t folds = 5;
    uint64_t seed = 1;  // the folds' shuffle
    std::vector<double> alphas = default_ridge_alphas();
};

struct ProbeCondition {
    std::string name;
    RidgeModel ridge;  // fitted on every measured row
    size_t n = 0;      // measured sequences
    // Held out: each measured row predicted by the model fitted without its fold.
    std::vector<size_t> rows;  // into the table
    std::vector<int> fold;
    std::vector<double> measured, predicted;
    double pearson = 0, spearman = 0;
    std::pair<double, double> pearson_ci{0, 0};  // 95%
    std::optional<double> noise_ceiling;  // the Pearson r the standard errors allow, where given
    std::vector<std::string> warnings;    // plain sentences for the report
};

struct Probe {
    static constexpr int kFormatVersion = 1;
    std::string model_path, model_fingerprint;
    size_t hidden_size = 0;
    // The weights the embeddings were computed with (Model::weights(): native, int8 or q8_0). The
    // probe applies under other weights of the same model, its held-out figures then said to be
    // measured under these.
    std::string weights = "native";
    EmbeddingRecipe embedding;
    std::string table_path, table_hash;
    std::vector<std::string> row_names;  // the table's sequences, in its order
    size_t folds = 0;
    uint64_t fold_seed = 0;
    std::string created, engine_version;
    std::vector<ProbeCondition> conditions;

    size_t width() const { return embedding.width(hidden_size); }
    // "held-out Pearson r 0.71 [0.64, 0.77], Spearman 0.69, n 412 (5-fold)"
    std::string held_out(size_t condition) const;
};

// Fold of each of `n` rows: a seeded Fisher-Yates shuffle (SplitMix64, the same on every
// platform), dealt round-robin into `folds` folds.
std::vector<int> assign_folds(size_t n, size_t folds, uint64_t seed);

// Called with (fits done, fits in all): k + 1 per condition; returning false cancels (nullopt).
using ProbeFitProgress = std::function<bool(size_t done, size_t total)>;

// Fits one ridge model per condition to `embeddings` (one row per table row). Error naming the
// condition when it has fewer measured sequences than folds, or values that are not finite.
std::optional<Probe> fit_probe(const Embeddings& embeddings, const ProbeTrainingData& data, const ProbeFitOptions& options,
                               Probe provenance, const ProbeFitProgress& progress = {});

std::string probe_to_json(const Probe& probe);
// A probe file (untrusted): Error "SOURCE: key: reason" for anything but what probe_to_json writes
// (sizes, finite numbers, positive scales, unique condition names).
Probe probe_from_json(std::string_view text, const std::string& source);
Probe read_probe_file(const std::filesystem::path& path);

class ProbePredictor : public ActivityPredictor {
public:
    // Error when `model` is not the one the probe was fitted on (its fingerprint or width).
    ProbePredictor(Model& model, Probe probe);
    const Probe& probe() const { return probe_; }
    Predictions predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch = 16,
                        const PredictProgress& progress = {}) override;
    Predictions predict_near(std::string_view reference, std::span<const std::string> sequences, std::span<const std::string> names,
                             size_t batch = 16, const PredictProgress& progress = {}) override;
    std::vector<std::string> outputs() const override;

private:
    Predictions from_embeddings(const Embeddings& e) const;
    Model& model_;
    Probe probe_;
};

}  // namespace carbon
