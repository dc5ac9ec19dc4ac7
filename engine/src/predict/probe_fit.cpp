// fit_probe and the folds (carbon/predict/probe.h; built where LAPACK is, for fit_ridge).
#include <cmath>

#include "carbon/predict/correlation.h"
#include "carbon/predict/probe.h"
#include "carbon/support/common.h"
#include "report_number.h"
#include "splitmix.h"

namespace carbon {

namespace {

// Less than this many measured sequences and the report says the figures are not to be trusted.
constexpr size_t kFewMeasurements = 50;

}  // namespace

std::vector<int> assign_folds(size_t n, size_t folds, uint64_t seed) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    SplitMix64 rng{seed};
    for (size_t i = n; i > 1; --i) {
        const size_t j = size_t(rng.next() % i);  // bias below i / 2^64: none that matters
        std::swap(order[i - 1], order[j]);
    }
    std::vector<int> fold(n);
    for (size_t i = 0; i < n; ++i) fold[order[i]] = int(i % std::max<size_t>(1, folds));
    return fold;
}

std::optional<Probe> fit_probe(const Embeddings& emb, const ProbeTrainingData& data, const ProbeFitOptions& options, Probe probe,
                               const ProbeFitProgress& progress) {
    const size_t n = data.values.size(), W = emb.width, k = options.folds;
    if (emb.values.size() != n * W) throw Error("probe fit: " + std::to_string(n) + " table rows but embeddings of another count");
    if (k < 2) throw Error("probe fit: cross-validation needs at least 2 folds, not " + std::to_string(k));
    if (data.conditions.empty()) throw Error(data.table_path + ": no condition to fit");
    probe.table_path = data.table_path;
    probe.table_hash = data.table_hash;
    probe.row_names = data.names;
    probe.folds = k;
    probe.fold_seed = options.seed;
    const std::vector<int> fold = assign_folds(n, k, options.seed);
    const size_t total = data.conditions.size() * (k + 1);
    size_t done = 0;
    auto step = [&] { return !progress || progress(++done, total); };

    for (size_t c = 0; c < data.conditions.size(); ++c) {
        ProbeCondition pc;
        pc.name = data.conditions[c];
        const std::string what = data.table_path + ": condition '" + pc.name + "'";
        std::vector<double> y;
        for (size_t r = 0; r < n; ++r) {
            const std::optional<double>& v = c < data.values[r].size() ? data.values[r][c] : std::nullopt;
            if (!v) continue;
            if (!std::isfinite(*v)) throw Error(what + ": the value of " + data.names[r] + " is not a finite number");
            pc.rows.push_back(r);
            pc.fold.push_back(fold[r]);
            y.push_back(*v);
        }
        pc.n = pc.rows.size();
        if (pc.n < k)
            throw Error(what + ": " + std::to_string(pc.n) + " measured sequence(s), fewer than the " + std::to_string(k) +
                        " folds of the cross-validation; measure more, or choose fewer folds");
        pc.predicted.assign(pc.n, std::nan(""));
        for (size_t f = 0; f < k; ++f) {
            std::vector<size_t> train, test;
            std::vector<double> ytrain;
            for (size_t i = 0; i < pc.n; ++i) {
                if (pc.fold[i] == int(f)) {
                    test.push_back(i);
                } else {
                    train.push_back(pc.rows[i]);
                    ytrain.push_back(y[i]);
                }
            }
            if (!test.empty()) {
                if (train.size() < 2)
                    throw Error(what + ": fold " + std::to_string(f + 1) + " leaves " + std::to_string(train.size()) +
                                " sequence(s) to fit; measure more, or choose fewer folds");
                const RidgeModel m = fit_ridge(emb.values.data(), W, train, ytrain, options.alphas);
                for (size_t i : test) pc.predicted[i] = m.predict(emb.row(pc.rows[i]));
            }
            if (!step()) return std::nullopt;
        }
        pc.ridge = fit_ridge(emb.values.data(), W, pc.rows, y, options.alphas);
        if (!step()) return std::nullopt;
        pc.measured = y;
        pc.pearson = pearson(pc.measured, pc.predicted);
        pc.spearman = spearman(pc.measured, pc.predicted);
        pc.pearson_ci = pearson_interval(pc.pearson, pc.n);

        // Standard errors: the part of the values' spread that is measurement noise bounds the r any
        // predictor can reach, sqrt(1 - mean(se^2) / var(values)).
        double se2 = 0, mean = 0, var = 0;
        size_t n_se = 0;
        for (size_t i = 0; i < pc.n; ++i) {
            mean += y[i];
            const auto& s = c < data.se[pc.rows[i]].size() ? data.se[pc.rows[i]][c] : std::nullopt;
            if (s) se2 += *s * *s, ++n_se;
        }
        mean /= double(pc.n);
        for (double v : y) var += (v - mean) * (v - mean);
        var /= double(pc.n);
        if (n_se > 0 && var > 0) {
            const double reliability = 1.0 - (se2 / double(n_se)) / var;
            pc.noise_ceiling = std::sqrt(std::max(0.0, reliability));
            if (reliability <= 0)
                pc.warnings.push_back("the standard errors are as large as the spread of the values: what is measured is mostly noise");
        }
        if (pc.n < kFewMeasurements)
            pc.warnings.push_back("only " + std::to_string(pc.n) + " measured sequences: the held-out Pearson r could lie anywhere in [" +
                                  report_fixed(pc.pearson_ci.first, 2) + ", " + report_fixed(pc.pearson_ci.second, 2) +
                                  "] (95%); measure more before trusting this predictor");
        if (!std::isfinite(pc.pearson))
            pc.warnings.push_back("the held-out predictions do not vary: this predictor says nothing about " + pc.name);
        else if (pc.pearson < 0.3)
            pc.warnings.push_back("held-out Pearson r " + report_fixed(pc.pearson, 2) + ": the predictor explains little of " + pc.name);
        if (pc.ridge.alpha_at_grid_edge())
            pc.warnings.push_back("the penalty chosen (" + report_general(pc.ridge.alpha) + ") is at the edge of those tried (" +
                                  report_general(options.alphas.front()) + " to " + report_general(options.alphas.back()) + ")");
        probe.conditions.push_back(std::move(pc));
    }
    return probe;
}

}  // namespace carbon
