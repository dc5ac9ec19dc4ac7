// Issue 32, predictors fitted to measurements (carbon/predict/{ridge,probe,embedder,correlation}.h):
// the leave-one-out errors against refitting without each row, the coefficients against the
// normal equations solved directly, both solvers (n <= p: Gram; n > p: covariance), constant
// features, the folds, the correlations against hand-computed values, the embedder against the
// backend's own rows, and the predictor file refusing what probe_to_json does not write.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/predict/correlation.h"
#include "carbon/predict/embedder.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/ridge.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

// Solves A x = b (m x m, row-major) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<double> A, std::vector<double> b) {
    const size_t m = b.size();
    for (size_t c = 0; c < m; ++c) {
        size_t piv = c;
        for (size_t r = c + 1; r < m; ++r)
            if (std::fabs(A[r * m + c]) > std::fabs(A[piv * m + c])) piv = r;
        for (size_t k = 0; k < m; ++k) std::swap(A[c * m + k], A[piv * m + k]);
        std::swap(b[c], b[piv]);
        for (size_t r = c + 1; r < m; ++r) {
            const double f = A[r * m + c] / A[c * m + c];
            for (size_t k = c; k < m; ++k) A[r * m + k] -= f * A[c * m + k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(m);
    for (size_t c = m; c-- > 0;) {
        double s = b[c];
        for (size_t k = c + 1; k < m; ++k) s -= A[c * m + k] * x[k];
        x[c] = s / A[c * m + c];
    }
    return x;
}

// Ridge with a free intercept on the rows `use` of Z (n x p, already standardised): (b, intercept).
std::pair<std::vector<double>, double> direct_ridge(const std::vector<double>& Z, size_t p, const std::vector<size_t>& use,
                                                    const std::vector<double>& y, double alpha) {
    std::vector<double> zm(p, 0.0);
    double ym = 0;
    for (size_t i : use) {
        for (size_t j = 0; j < p; ++j) zm[j] += Z[i * p + j];
        ym += y[i];
    }
    for (double& v : zm) v /= double(use.size());
    ym /= double(use.size());
    std::vector<double> A(p * p, 0.0), rhs(p, 0.0);
    for (size_t i : use)
        for (size_t j = 0; j < p; ++j) {
            const double zj = Z[i * p + j] - zm[j];
            rhs[j] += zj * (y[i] - ym);
            for (size_t k = 0; k < p; ++k) A[j * p + k] += zj * (Z[i * p + k] - zm[k]);
        }
    for (size_t j = 0; j < p; ++j) A[j * p + j] += alpha;
    std::vector<double> b = solve(A, rhs);
    double icpt = ym;
    for (size_t j = 0; j < p; ++j) icpt -= zm[j] * b[j];
    return {b, icpt};
}

void loo_case(size_t n, size_t p, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    std::vector<double> X(n * p), y(n);
    for (double& v : X) v = g(rng) * 3.0 + 1.5;
    for (size_t i = 0; i < n; ++i) y[i] = 0.7 * X[i * p] - 0.4 * X[i * p + 1] + g(rng);
    std::vector<size_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = i;
    const std::vector<double> alphas = {0.01, 0.3, 3.0, 40.0, 900.0};
    const RidgeModel m = fit_ridge(X.data(), p, rows, y, alphas);
    // The standardisation, by hand.
    std::vector<double> Z(n * p);
    for (size_t j = 0; j < p; ++j) {
        double mean = 0, var = 0;
        for (size_t i = 0; i < n; ++i) mean += X[i * p + j];
        mean /= double(n);
        for (size_t i = 0; i < n; ++i) var += (X[i * p + j] - mean) * (X[i * p + j] - mean);
        const double sd = std::sqrt(var / double(n));
        CHECK_NEAR(m.mean[j], mean, 1e-12 * (1 + std::fabs(mean)));
        CHECK_NEAR(m.scale[j], sd, 1e-12 * sd);
        for (size_t i = 0; i < n; ++i) Z[i * p + j] = (X[i * p + j] - mean) / sd;
    }
    // Leave-one-out error of each alpha by refitting without each row.
    size_t best = 0;
    for (size_t a = 0; a < alphas.size(); ++a) {
        double sse = 0;
        for (size_t out = 0; out < n; ++out) {
            std::vector<size_t> use;
            for (size_t i = 0; i < n; ++i)
                if (i != out) use.push_back(i);
            const auto [b, icpt] = direct_ridge(Z, p, use, y, alphas[a]);
            double f = icpt;
            for (size_t j = 0; j < p; ++j) f += b[j] * Z[out * p + j];
            sse += (y[out] - f) * (y[out] - f);
        }
        const double mse = sse / double(n);
        CHECK_NEAR(m.loo_mse[a], mse, 1e-9 * mse);
        if (mse < m.loo_mse[best] - 1e-12 * mse) best = a;
    }
    CHECK_EQ(m.alpha_index, best);
    const auto [b, icpt] = direct_ridge(Z, p, rows, y, m.alpha);
    for (size_t j = 0; j < p; ++j) CHECK_NEAR(m.coef[j], b[j], 1e-9 * (1 + std::fabs(b[j])));
    CHECK_NEAR(m.intercept, icpt, 1e-9 * (1 + std::fabs(icpt)));
    // predict() on a raw row is the same fit.
    double f = icpt;
    for (size_t j = 0; j < p; ++j) f += b[j] * Z[2 * p + j];
    CHECK_NEAR(m.predict(X.data() + 2 * p), f, 1e-9 * (1 + std::fabs(f)));
}

}  // namespace

TEST(ridge_loo_equals_refitting_without_each_row_covariance_solver) { loo_case(23, 5, 1); }
TEST(ridge_loo_equals_refitting_without_each_row_gram_solver) { loo_case(9, 17, 2); }
TEST(ridge_loo_at_n_equal_p) { loo_case(11, 11, 3); }

TEST(ridge_constant_feature_keeps_scale_one_and_no_weight) {
    const size_t n = 12, p = 3;
    std::vector<double> X(n * p), y(n);
    for (size_t i = 0; i < n; ++i) {
        X[i * p] = double(i), X[i * p + 1] = 4.25, X[i * p + 2] = double(i * i % 7);
        y[i] = 2.0 * double(i) + 1.0;
    }
    std::vector<size_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = i;
    const RidgeModel m = fit_ridge(X.data(), p, rows, y, default_ridge_alphas());
    CHECK_EQ(m.scale[1], 1.0);
    CHECK_NEAR(m.coef[1], 0.0, 1e-12);
    CHECK(m.alpha_index == 0);  // a noiseless line: the least penalty
    CHECK(m.alpha_at_grid_edge());
}

TEST(ridge_refuses_what_it_cannot_fit) {
    std::vector<double> X = {1, 2}, y = {1};
    std::vector<size_t> one = {0};
    std::vector<double> alphas = {1.0};
    CHECK_THROWS_WITH(fit_ridge(X.data(), 2, one, y, alphas), "at least 2");
    std::vector<size_t> two = {0, 0};
    std::vector<double> y2 = {1, 2}, bad = {-1.0};
    CHECK_THROWS_WITH(fit_ridge(X.data(), 2, two, y2, bad), "not a positive number");
}

TEST(folds_are_balanced_seeded_and_cover_every_row) {
    const std::vector<int> a = assign_folds(103, 5, 1), b = assign_folds(103, 5, 1), c = assign_folds(103, 5, 2);
    CHECK(a == b);
    CHECK(a != c);
    std::vector<int> count(5, 0);
    for (int f : a) {
        CHECK(f >= 0 && f < 5);
        if (f >= 0 && f < 5) ++count[size_t(f)];
    }
    for (int k : count) CHECK(k == 20 || k == 21);
}

TEST(correlations_match_hand_computed_values) {
    const std::vector<double> a = {1, 2, 3, 4}, b = {2, 4, 5, 9};
    // mean a 2.5, b 5; sab = 1.5*3 + .5*1 + .5*0 + 1.5*4 = 11; saa = 5; sbb = 9+1+0+16 = 26.
    CHECK_NEAR(pearson(a, b), 11.0 / std::sqrt(5.0 * 26.0), 1e-15);
    CHECK_NEAR(spearman(a, b), 1.0, 1e-15);
    // Ties take the average rank: x ranks 1, 2.5, 2.5, 4; y ranks 1, 3, 2, 4.
    const std::vector<double> x = {1, 2, 2, 3}, y = {1, 3, 2, 4};
    const std::vector<double> rx = {1, 2.5, 2.5, 4}, ry = {1, 3, 2, 4};
    CHECK_NEAR(spearman(x, y), pearson(rx, ry), 1e-15);
    CHECK(std::isnan(pearson(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3})));
    const auto [lo, hi] = pearson_interval(0.5, 103);  // z 0.549306, se 0.1
    CHECK_NEAR(lo, std::tanh(0.5493061443340549 - 0.196), 1e-12);
    CHECK_NEAR(hi, std::tanh(0.5493061443340549 + 0.196), 1e-12);
}

TEST(embedder_reads_the_backends_rows) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    auto model = Model::load(testing_support::tiny_model(), mo);
    const size_t H = size_t(model->config().hidden_size);
    const std::vector<std::string> seqs = {"ACGTTGCAAGGCTTACGATC", "ttgacTCAGGAAGT", "ACGTNNACGTACGTAACCGT"};
    SequenceEmbedder both(*model, {EmbeddingPool::Both, false}), rc(*model, {EmbeddingPool::DnaEnd, true});
    const Embeddings e = both.embed(seqs, {}, 2), r = rc.embed(seqs, {}, 3);
    CHECK_EQ(e.width, 2 * H);
    Backend& be = model->backend();
    for (size_t i = 0; i < seqs.size(); ++i) {
        const std::vector<int32_t> ids = both.tokens(seqs[i], "s");
        CHECK_EQ(ids.front(), model->tokenizer().dna_open_id());
        CHECK_EQ(ids.back(), model->tokenizer().dna_close_id());
        ForwardOutput out;
        const SeqId s = be.create_sequence();
        std::vector<ForwardItem> items = {{s, ids, true}};
        be.forward(items, Head::Hidden, out);
        be.free_sequence(s);
        for (size_t j = 0; j < H; ++j) {
            double mean = 0;
            for (size_t t = 1; t + 1 < ids.size(); ++t) mean += out.row(0, t)[j];
            mean /= double(ids.size() - 2);
            CHECK_NEAR(e.row(i)[j], out.row(0, ids.size() - 1)[j], 1e-5);
            CHECK_NEAR(e.row(i)[H + j], mean, 1e-5);
        }
        // Reverse-complement averaging: the mean of the two strands' </dna> rows.
        std::string upper = seqs[i];
        for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
        const Embeddings fwd = SequenceEmbedder(*model, {EmbeddingPool::DnaEnd, false}).embed(std::vector<std::string>{upper}, {});
        const Embeddings rev =
            SequenceEmbedder(*model, {EmbeddingPool::DnaEnd, false}).embed(std::vector<std::string>{acgt_reverse_complement(upper)}, {});
        for (size_t j = 0; j < H; ++j) CHECK_NEAR(r.row(i)[j], 0.5 * (fwd.row(0)[j] + rev.row(0)[j]), 1e-5);
    }
    CHECK_THROWS_WITH(both.embed(std::vector<std::string>{"ACGT", "  "}, std::vector<std::string>{"a", "empty one"}), "empty one: no bases");
}

TEST(embedding_near_a_reference_equals_embedding_whole) {
    // Candidates that are a reference with one base changed (first base, inside a 6-mer, the last
    // partial 6-mer, the last base), the reference itself, and two that are not near it (shorter,
    // longer): forked from the reference's cache at their first changed token, the same rows as
    // forwarded whole, with fewer tokens forwarded.
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    auto model = Model::load(testing_support::tiny_model(), mo);
    const std::string ref = "ACGTTGCAAGGCTTACGATCGGATCCATGCAATTGCCGTAGCTAGG";  // 46 bases: a partial last 6-mer
    std::vector<std::string> cands;
    for (size_t at : {size_t(0), size_t(7), size_t(20), size_t(44), size_t(45)}) {
        std::string c = ref;
        c[at] = c[at] == 'A' ? 'C' : 'A';
        cands.push_back(c);
    }
    cands.push_back(ref);
    cands.push_back(ref.substr(0, 30));
    cands.push_back(ref + "TTGACA");
    for (const EmbeddingRecipe recipe : {EmbeddingRecipe{EmbeddingPool::Both, false}, EmbeddingRecipe{EmbeddingPool::Both, true},
                                         EmbeddingRecipe{EmbeddingPool::DnaEnd, true}}) {
        SequenceEmbedder em(*model, recipe);
        const Embeddings whole = em.embed(cands, {}, 3), near = em.embed_near(ref, cands, {}, 3);
        CHECK_EQ(near.width, whole.width);
        CHECK_EQ(near.values.size(), whole.values.size());
        double worst = 0;
        for (size_t i = 0; i < whole.values.size() && i < near.values.size(); ++i)
            worst = std::max(worst, std::abs(near.values[i] - whole.values[i]) / std::max(1.0, std::abs(whole.values[i])));
        CHECK(worst < 1e-5);
        CHECK(near.tokens_forwarded < whole.tokens_forwarded);
    }
}

TEST(probe_file_round_trips_and_refuses_what_it_does_not_write) {
    const size_t n = 30, W = 6;
    std::mt19937_64 rng(4);
    std::normal_distribution<double> g;
    Embeddings e;
    e.width = W;
    e.values.resize(n * W);
    for (double& v : e.values) v = g(rng);
    ProbeTrainingData data;
    data.table_path = "t.tsv";
    data.table_hash = "fnv1a64:0";
    data.conditions = {"K562", "HepG2"};
    for (size_t i = 0; i < n; ++i) {
        data.names.push_back("s" + std::to_string(i));
        data.values.push_back({e.row(i)[0] * 2 + g(rng) * 0.1, i % 4 ? std::optional<double>(e.row(i)[1]) : std::nullopt});
        data.se.push_back({0.1, std::nullopt});
    }
    Probe prov;
    prov.model_path = "/m";
    prov.model_fingerprint = "fnv1a64:1";
    prov.hidden_size = 3;  // Both: 2 x 3 = W
    const std::optional<Probe> p = fit_probe(e, data, {}, prov);
    CHECK(p.has_value());
    if (!p) return;
    CHECK_EQ(p->conditions[1].n, n - (n + 3) / 4);
    CHECK(p->conditions[0].pearson > 0.9);
    CHECK(p->conditions[0].noise_ceiling.has_value());
    CHECK(!p->conditions[0].warnings.empty());  // 30 sequences: too few to trust
    const std::string text = probe_to_json(*p);
    const Probe back = probe_from_json(text, "p.json");
    for (size_t c = 0; c < 2; ++c)
        for (size_t i = 0; i < n; ++i) CHECK_EQ(back.conditions[c].ridge.predict(e.row(i)), p->conditions[c].ridge.predict(e.row(i)));
    CHECK_EQ(probe_to_json(back), text);
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        const size_t at = t.find(from);
        CHECK(at != std::string::npos);
        if (at != std::string::npos) t.replace(at, from.size(), to);
        return t;
    };
    CHECK_THROWS_WITH(probe_from_json(edited("\"version\": 1", "\"version\": 2"), "p.json"), "p.json: version");
    CHECK_THROWS_WITH(probe_from_json(edited("\"hidden_size\": 3", "\"hidden_size\": 4"), "p.json"), "conditions[0].mean", "has 6 entries; 8 expected");
    CHECK_THROWS_WITH(probe_from_json(edited("\"name\": \"HepG2\"", "\"name\": \"K562\""), "p.json"), "conditions[1].name", "repeated");
    CHECK_THROWS_WITH(probe_from_json(edited("\"pool\": \"both\"", "\"pool\": \"sideways\""), "p.json"), "embedding.pool");
    CHECK_THROWS_WITH(probe_from_json(text.substr(0, text.size() / 2), "p.json"), "malformed JSON");
    CHECK_THROWS_WITH(probe_from_json("{\"format\": \"other\"}", "p.json"), "not a Carbon Studio predictor file");
    // A predictor file's recipe names are someone else's text: shown escaped, never as terminal codes.
    CHECK_THROWS_WITH(probe_from_json(edited("\"pool\": \"both\"", "\"pool\": \"\\u001b[2J\""), "p.json"), "embedding.pool", "'\\x1b[2J'");
    CHECK_THROWS_WITH(EmbeddingRecipe::parse_strands("rev\ncomp", "--strands"), "--strands: strands 'rev\\ncomp' is not one of");
    // Too few measured for the folds, named.
    ProbeTrainingData few = data;
    for (auto& row : few.values) row[1] = std::nullopt;
    few.values[0][1] = 1.0, few.values[1][1] = 2.0;
    CHECK_THROWS_WITH(fit_probe(e, few, {}, prov), "condition 'HepG2'", "fewer than the 5 folds");
}

int main() { return check::run_all(); }
