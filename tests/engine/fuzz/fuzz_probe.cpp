// Fuzz target for predictor files (carbon/predict/probe.h: a predictor fitted to measurements, as
// someone may send one): probe_from_json must accept the input or refuse it with carbon::Error; an
// accepted predictor's sizes agree (what ProbePredictor indexes by), and writing it back and
// reading that again gives the same text.
#include <cmath>

#include "carbon/predict/probe.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

namespace {

carbon::Probe seed_probe(carbon::EmbeddingPool pool, size_t conditions) {
    carbon::Probe p;
    p.model_path = "/models/carbon-500m";
    p.model_fingerprint = "fnv1a64:0123456789abcdef";
    p.hidden_size = 3;
    p.embedding.pool = pool;
    p.table_path = "measured.tsv";
    p.table_hash = "fnv1a64:0";
    p.row_names = {"a", "b", "c", "d"};
    p.folds = 2;
    p.fold_seed = 7;
    p.created = "2026-11-27T18:00:00Z";
    p.engine_version = "0.1.0";
    for (size_t c = 0; c < conditions; ++c) {
        carbon::ProbeCondition k;
        k.name = "cond" + std::to_string(c);
        k.n = 4;
        k.ridge.alphas = {0.1, 1.0, 10.0};
        k.ridge.alpha_index = 1;
        k.ridge.alpha = 1.0;
        k.ridge.loo_mse = {0.5, 0.25, std::nan("")};
        const size_t w = p.width();
        for (size_t j = 0; j < w; ++j) {
            k.ridge.mean.push_back(0.1 * double(j));
            k.ridge.scale.push_back(1.0 + double(j));
            k.ridge.coef.push_back(-0.5 + double(j) / 7.0);
        }
        k.ridge.intercept = 0.75;
        k.rows = {0, 1, 2, 3};
        k.fold = {0, 1, 1, 0};
        k.measured = {1, 2, 3, 4};
        k.predicted = {1.5, 2, 2.5, 4.5};
        k.pearson = 0.9;
        k.spearman = 1.0;
        k.pearson_ci = {std::nan(""), std::nan("")};
        k.noise_ceiling = 0.95;
        k.warnings = {"only 4 measured sequences"};
        p.conditions.push_back(std::move(k));
    }
    return p;
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    return {carbon::probe_to_json(seed_probe(carbon::EmbeddingPool::Both, 2)), carbon::probe_to_json(seed_probe(carbon::EmbeddingPool::DnaEnd, 1)),
            "{\"format\": \"carbon-studio-probe\", \"version\": 1}", "[]"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const carbon::Probe p = carbon::probe_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz/predictor.json");
        const size_t w = p.width();
        if (p.conditions.empty() || p.folds < 2) __builtin_trap();
        for (const carbon::ProbeCondition& c : p.conditions) {
            if (c.ridge.mean.size() != w || c.ridge.scale.size() != w || c.ridge.coef.size() != w) __builtin_trap();
            if (c.ridge.alpha_index >= c.ridge.alphas.size() || c.ridge.alpha != c.ridge.alphas[c.ridge.alpha_index]) __builtin_trap();
            if (c.ridge.loo_mse.size() != c.ridge.alphas.size()) __builtin_trap();
            if (c.rows.size() != c.n || c.fold.size() != c.n || c.measured.size() != c.n || c.predicted.size() != c.n) __builtin_trap();
            for (size_t i = 0; i < c.n; ++i)
                if (c.rows[i] >= p.row_names.size() || c.fold[i] < 0 || size_t(c.fold[i]) >= p.folds) __builtin_trap();
            for (double s : c.ridge.scale)
                if (!(s > 0) || !std::isfinite(s)) __builtin_trap();
            std::vector<double> x(w, 1.0);
            (void)c.ridge.predict(x.data());  // every index it takes is inside (ASan)
        }
        const std::string text = carbon::probe_to_json(p);
        if (carbon::probe_to_json(carbon::probe_from_json(text, "fuzz/again.json")) != text) __builtin_trap();
    } catch (const carbon::Error&) {
    }
    return 0;
}
