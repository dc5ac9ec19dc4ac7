// Scoring, variants and mutagenesis checked by brute force on tiny models: marginals against
// explicit sums over the 4,096 6-mers, tracks and scores against plain forward passes, sliding
// windows against the exact context they promise, incremental rescoring and exact ISM against
// scoring every sequence from scratch.
#include <cmath>
#include <random>

#include "carbon/fns/fns.h"
#include "carbon/model.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "check.h"
#include "scoring_test_models.h"

using namespace carbon;
using testing_support::short_context;
using testing_support::tiny;

namespace {

ScoreOptions options_for(Model& m) {
    ScoreOptions o;
    o.context_tokens = size_t(m.config().max_position_embeddings);
    return o;
}

std::string random_dna(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
}

// Logits of every position of `ids` in one plain prefill.
std::vector<std::vector<float>> all_logits(Model& m, const std::vector<int32_t>& ids, Head head) {
    Backend& be = m.backend();
    const SeqId s = be.create_sequence();
    ForwardOutput out;
    ForwardItem it{s, ids, true};
    be.forward(std::span(&it, 1), head, out);
    be.free_sequence(s);
    std::vector<std::vector<float>> rows;
    for (size_t r = 0; r < ids.size(); ++r) rows.emplace_back(out.row(0, r), out.row(0, r) + out.width);
    return rows;
}

// Marginals by explicit sums over the 6-mer texts (independent of fns.cpp's bit arithmetic).
std::array<std::array<double, 4>, 6> brute_marginals(const std::vector<float>& dna_logits) {
    double mx = -1e30, z = 0;
    for (float x : dna_logits) mx = std::max(mx, double(x));
    for (float x : dna_logits) z += std::exp(double(x) - mx);
    std::array<std::array<double, 4>, 6> m{};
    for (int i = 0; i < kNumKmers; ++i) {
        const std::string t = Tokenizer::kmer_text(i);
        const double p = std::exp(double(dna_logits[size_t(i)]) - mx) / z;
        for (size_t j = 0; j < 6; ++j) m[j][size_t(base_code(t[j]))] += p;
    }
    return m;
}

std::vector<float> dna_part(const Tokenizer& tok, const std::vector<float>& full_row) {
    std::vector<float> d(static_cast<size_t>(kNumKmers));
    for (size_t i = 0; i < d.size(); ++i) d[i] = full_row[size_t(tok.kmer_id(int(i)))];
    return d;
}

double log_softmax_at(const std::vector<float>& row, int32_t id) {
    double mx = -1e30, z = 0;
    for (float x : row) mx = std::max(mx, double(x));
    for (float x : row) z += std::exp(double(x) - mx);
    return double(row[size_t(id)]) - mx - std::log(z);
}

struct Brute {
    std::vector<double> logp;                            // per base, NaN for non-ACGT
    std::vector<std::array<std::array<double, 4>, 6>> marg;  // per 6-mer target
    double base_mean = 0, token_mean = 0;
};

// The whole sequence in one forward pass (it must fit the context).
Brute brute_score(Model& m, const std::string& tags, const std::string& seq) {
    const Tokenizer& tok = m.tokenizer();
    DnaEncoding enc = tok.encode_prompt(tags, seq, true);
    auto rows = all_logits(m, enc.ids, Head::Full);
    Brute b;
    const size_t f = enc.first_dna_token, K = enc.ids.size() - f - 1;
    double ts = 0;
    for (size_t t = f; t < enc.ids.size(); ++t) ts += log_softmax_at(rows[t - 1], enc.ids[t]);
    b.token_mean = ts / double(K + 1);
    double bs = 0;
    size_t bn = 0;
    for (size_t k = 0; k < K; ++k) b.marg.push_back(brute_marginals(dna_part(tok, rows[f + k - 1])));
    for (size_t i = 0; i < seq.size(); ++i) {
        const int c = base_code(char(std::toupper(static_cast<unsigned char>(seq[i]))));
        const double lp = c < 0 ? NAN : std::log(b.marg[i / 6][i % 6][size_t(c)]);
        b.logp.push_back(lp);
        if (c >= 0) bs += lp, ++bn;
    }
    b.base_mean = bn ? bs / double(bn) : NAN;
    return b;
}

// Largest difference between two scores' tracks and means (NaN must match NaN).
double score_gap(const SequenceScore& a, const SequenceScore& b) {
    if (a.track.size() != b.track.size() || a.bases_scored != b.bases_scored) return 1e9;
    double g = 0;
    auto cmp = [&](double x, double y) {
        if (std::isnan(x) || std::isnan(y)) {
            if (std::isnan(x) != std::isnan(y)) g = 1e9;
            return;
        }
        g = std::max(g, std::fabs(x - y));
    };
    for (size_t i = 0; i < a.track.size(); ++i) {
        cmp(a.track[i].logp, b.track[i].logp);
        for (size_t c = 0; c < 4; ++c) cmp(a.track[i].p[c], b.track[i].p[c]);
        cmp(a.track[i].entropy_bits, b.track[i].entropy_bits);
    }
    cmp(a.base_mean_logp, b.base_mean_logp);
    cmp(a.token_mean_logp, b.token_mean_logp);
    return g;
}

}  // namespace

TEST(marginals_equal_explicit_sums_over_the_4096_6mers) {
    Model& m = tiny();
    DnaEncoding enc = m.tokenizer().encode_prompt("", "ATGCGTACGTTAGC", false);
    auto rows = all_logits(m, enc.ids, Head::Dna);
    for (const auto& row : rows) {
        std::vector<float> probs(row.size());
        dna_softmax(row, probs);
        const Marginals got = fns_marginals(probs);
        const auto want = brute_marginals(row);
        for (size_t j = 0; j < 6; ++j) {
            double sum = 0;
            for (size_t b = 0; b < 4; ++b) {
                CHECK_NEAR(got[j][b], want[j][b], 1e-6);
                sum += got[j][b];
            }
            CHECK_NEAR(sum, 1.0, 1e-5);
        }
    }
}

TEST(masked_marginals_equal_the_restricted_joint) {
    Model& m = tiny();
    DnaEncoding enc = m.tokenizer().encode_prompt("", "GATTACAGATTACA", false);
    auto rows = all_logits(m, enc.ids, Head::Dna);
    const std::string masks = "MNGKBN";  // A|C, any, G, G|T, C|G|T, any
    std::array<BaseMask, 6> mask;
    for (size_t j = 0; j < 6; ++j) mask[j] = iupac_mask(masks[j]);
    std::vector<float> probs(static_cast<size_t>(kNumKmers));
    dna_softmax(rows.back(), probs);
    Marginals got;
    const double mass = fns_masked_marginals(probs, mask, got);
    double want_mass = 0;
    std::array<std::array<double, 4>, 6> want{};
    for (int i = 0; i < kNumKmers; ++i) {
        const std::string t = Tokenizer::kmer_text(i);
        bool ok = true;
        for (size_t j = 0; j < 6; ++j) ok = ok && (iupac_mask(masks[j]) & iupac_mask(t[j]));
        if (!ok) continue;
        want_mass += probs[size_t(i)];
        for (size_t j = 0; j < 6; ++j) want[j][size_t(base_code(t[j]))] += probs[size_t(i)];
    }
    CHECK_NEAR(mass, want_mass, 1e-6);
    for (size_t j = 0; j < 6; ++j)
        for (size_t b = 0; b < 4; ++b) {
            CHECK_NEAR(got[j][b], want[j][b] / want_mass, 1e-5);
            if (!((mask[j] >> b) & 1)) CHECK_EQ(got[j][b], 0.f);
        }
}

TEST(track_has_one_entry_per_base_and_none_for_padding) {
    Model& m = tiny();
    ScoreOptions o = options_for(m);
    o.token_score = false;
    for (size_t n = 1; n <= 13; ++n) {
        const std::string seq = random_dna(n, unsigned(n));
        const SequenceScore s = score_sequence(m.backend(), m.tokenizer(), seq, o);
        CHECK_EQ(s.length, n);
        CHECK_EQ(s.track.size(), n);
        CHECK_EQ(s.bases_scored, n);
        const Brute b = brute_score(m, "", seq);
        for (size_t i = 0; i < n; ++i) {
            CHECK_NEAR(s.track[i].logp, b.logp[i], 1e-5);
            const auto& want = b.marg[i / 6][i % 6];
            CHECK_NEAR(s.track[i].p[0], want[0], 1e-6);
            CHECK_NEAR(s.track[i].p[3], want[3], 1e-6);
        }
        CHECK_NEAR(s.base_mean_logp, b.base_mean, 1e-5);
    }
}

TEST(non_acgt_bases_get_nan_and_lowercase_is_reported) {
    Model& m = tiny();
    const std::string seq = "ACGTNNACGTRAcgtacgTTGA-A";
    const SequenceScore s = score_sequence(m.backend(), m.tokenizer(), seq, options_for(m));
    CHECK_EQ(s.track.size(), seq.size());
    size_t acgt = 0;
    for (size_t i = 0; i < seq.size(); ++i) {
        const bool known = base_code(char(std::toupper(static_cast<unsigned char>(seq[i])))) >= 0;
        acgt += known;
        CHECK_EQ(std::isnan(s.track[i].logp), !known);
        // The distribution is defined at every base, <oov> 6-mers included.
        CHECK_NEAR(s.track[i].p[0] + s.track[i].p[1] + s.track[i].p[2] + s.track[i].p[3], 1.0, 1e-5);
        CHECK(s.track[i].entropy_bits >= 0.f && s.track[i].entropy_bits <= 2.f + 1e-5f);
    }
    CHECK_EQ(s.bases_scored, acgt);
    bool lower = false, other = false;
    for (const DnaNotice& n : s.notices) {
        lower = lower || (n.kind == DnaNotice::Lowercase && n.position == 12 && n.count == 6);
        other = other || (n.kind == DnaNotice::NonAcgt && n.position == 4 && n.count == 2);
    }
    CHECK(lower);
    CHECK(other);
}

TEST(base_and_token_scores_equal_brute_force_from_the_full_head) {
    Model& m = tiny();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", random_dna(61, 1)},                          // not a multiple of 6
        {"", "ACGTACNNNNNNGGGTTTAAACCCGN"},               // <oov> tokens are targets too
        {"<plant><promoter>", random_dna(48, 2)},         // tags are context, never targets
        {"", ""},                                         // only </dna> is a target
    };
    for (const auto& [tags, seq] : cases) {
        ScoreOptions o = options_for(m);
        o.tags = tags;
        o.chunk_tokens = 5;  // many small forward passes over one cache
        const SequenceScore s = score_sequence(m.backend(), m.tokenizer(), seq, o);
        const Brute b = brute_score(m, tags, seq);
        CHECK_NEAR(s.token_mean_logp, b.token_mean, 1e-5);
        CHECK_EQ(s.tokens_scored, (seq.size() + 5) / 6 + 1);
        if (seq.empty()) {
            CHECK(std::isnan(s.base_mean_logp));
            CHECK_EQ(s.track.size(), size_t(0));
            continue;
        }
        CHECK_NEAR(s.base_mean_logp, b.base_mean, 1e-5);
        for (size_t i = 0; i < seq.size(); ++i)
            if (!std::isnan(b.logp[i])) CHECK_NEAR(s.track[i].logp, b.logp[i], 1e-5);
        // The base-level numbers do not depend on whether the full head was computed.
        o.token_score = false;
        const SequenceScore d = score_sequence(m.backend(), m.tokenizer(), seq, o);
        CHECK(std::isnan(d.token_mean_logp));
        CHECK_NEAR(d.base_mean_logp, s.base_mean_logp, 1e-5);
    }
}

TEST(batched_sequences_score_as_when_alone) {
    Model& m = tiny();
    std::vector<std::string> seqs;
    for (size_t i = 0; i < 9; ++i) seqs.push_back(random_dna(7 + 13 * i, unsigned(100 + i)));
    seqs[3] = "";
    ScoreOptions o = options_for(m);
    o.chunk_tokens = 40;
    o.max_sequences = 4;
    std::vector<std::pair<size_t, size_t>> calls;
    const auto batch = score_sequences(m.backend(), m.tokenizer(), seqs, o, [&](size_t d, size_t t) {
        calls.emplace_back(d, t);
        return true;
    });
    CHECK_EQ(batch.size(), seqs.size());
    for (size_t i = 0; i < seqs.size(); ++i) {
        const SequenceScore one = score_sequence(m.backend(), m.tokenizer(), seqs[i], options_for(m));
        CHECK(score_gap(batch[i], one) < 1e-5);
    }
    size_t total = 0;
    for (const auto& s : seqs) total += s.size();
    CHECK(!calls.empty());
    for (size_t i = 1; i < calls.size(); ++i) CHECK(calls[i].first >= calls[i - 1].first);
    CHECK_EQ(calls.back().first, total);
}

TEST(window_covering_the_sequence_equals_full_scoring) {
    Model& m = short_context();
    const std::string seq = random_dna(200, 7);  // 34 tokens: fits the 64-token context
    const SequenceScore full = score_sequence(m.backend(), m.tokenizer(), seq, options_for(m));
    CHECK_EQ(full.windows, size_t(1));
    ScoreOptions o = options_for(m);
    o.window_tokens = 34;
    const SequenceScore w = score_sequence(m.backend(), m.tokenizer(), seq, o);
    CHECK_EQ(w.windows, size_t(1));
    CHECK(score_gap(full, w) < 1e-6);
    const Brute b = brute_score(m, "", seq);
    CHECK_NEAR(full.base_mean_logp, b.base_mean, 1e-5);
    CHECK_NEAR(full.token_mean_logp, b.token_mean, 1e-5);
}

TEST(sliding_windows_score_every_base_with_the_stated_left_context) {
    Model& m = short_context();
    const Tokenizer& tok = m.tokenizer();
    struct Case {
        std::string tags;
        std::optional<size_t> window, overlap;
        size_t length;
    };
    const std::vector<Case> cases = {
        {"", std::nullopt, std::nullopt, 1003},  // default: W = 64 - 2, O = W / 4
        {"<mam>", size_t(20), size_t(5), 317},
        {"", size_t(12), size_t(0), 150},        // no overlap: each window starts afresh
    };
    for (const Case& c : cases) {
        ScoreOptions o = options_for(m);
        o.tags = c.tags;
        if (c.window) o.window_tokens = *c.window;
        o.overlap_tokens = c.overlap;
        o.chunk_tokens = 16;
        std::string seq = random_dna(c.length, unsigned(c.length));
        seq[40] = 'N';
        const WindowLayout L = window_layout(tok, o);
        CHECK(L.prefix_tokens + L.window_tokens + 1 <= 64);
        if (!c.window) {
            CHECK_EQ(L.window_tokens, size_t(64 - 2));
            CHECK_EQ(L.overlap_tokens, L.window_tokens / 4);
        }
        const SequenceScore s = score_sequence(m.backend(), tok, seq, o);
        DnaEncoding enc = tok.encode_prompt(c.tags, seq, true);
        const size_t f = enc.first_dna_token, K = enc.ids.size() - f - 1;
        CHECK(s.windows > 1);
        CHECK_EQ(s.track.size(), seq.size());
        CHECK_EQ(s.bases_scored, seq.size() - 1);
        // Each target's expected context: the window that owns it, from its start.
        const std::vector<int32_t> prefix(enc.ids.begin(), enc.ids.begin() + std::ptrdiff_t(f));
        double token_sum = 0;
        size_t windows = 0;
        for (size_t s0 = 0, tf = 0;; ++windows) {
            const bool last = s0 + L.window_tokens >= K;
            const size_t tt = last ? K + 1 : s0 + L.window_tokens;
            std::vector<int32_t> ids = prefix;
            for (size_t k = s0; k + 1 < tt; ++k) ids.push_back(enc.ids[f + k]);
            CHECK(ids.size() <= 64);
            auto rows = all_logits(m, ids, Head::Full);
            for (size_t k = tf; k < tt; ++k) {
                if (s0 > 0) CHECK(k - s0 >= L.overlap_tokens);  // at least O tokens of left context
                const auto& row = rows[f + k - s0 - 1];
                token_sum += log_softmax_at(row, k < K ? enc.ids[f + k] : tok.dna_close_id());
                if (k == K) continue;
                const auto mg = brute_marginals(dna_part(tok, row));
                for (size_t i = 6 * k; i < std::min(6 * k + 6, seq.size()); ++i) {
                    const int code = base_code(seq[i]);
                    if (code < 0) CHECK(std::isnan(s.track[i].logp));
                    else CHECK_NEAR(s.track[i].logp, std::log(mg[i % 6][size_t(code)]), 2e-5);
                }
            }
            if (last) break;
            tf = s0 + L.window_tokens;
            s0 += L.window_tokens - L.overlap_tokens;
        }
        CHECK_EQ(s.windows, windows + 1);
        CHECK_NEAR(s.token_mean_logp, token_sum / double(K + 1), 1e-5);
    }
}

TEST(window_options_are_checked) {
    Model& m = short_context();
    ScoreOptions o = options_for(m);
    o.window_tokens = 63;
    CHECK_THROWS_WITH(window_layout(m.tokenizer(), o), "63 tokens", "context", "YaRN");
    o.window_tokens = 10;
    o.overlap_tokens = 10;
    CHECK_THROWS_WITH(window_layout(m.tokenizer(), o), "overlap", "smaller");
    ScoreOptions none;
    CHECK_THROWS_WITH(window_layout(m.tokenizer(), none), "context_tokens");
}

TEST(incremental_rescoring_equals_fresh_scoring_after_edits) {
    for (Model* mp : {&tiny(), &short_context()}) {
        Model& m = *mp;
        const bool windowed = mp == &short_context();
        for (bool token_score : {true, false}) {
            ScoreOptions o = options_for(m);
            o.token_score = token_score;
            o.chunk_tokens = 24;
            IncrementalScorer inc(m.backend(), m.tokenizer(), o);
            std::string seq = random_dna(windowed ? 700 : 250, 11);
            inc.rescore(seq);
            const size_t full_tokens = inc.recomputed_tokens();
            CHECK(full_tokens > 0);
            auto check_fresh = [&](const char* what) {
                const SequenceScore& got = inc.result();
                const SequenceScore want = score_sequence(m.backend(), m.tokenizer(), seq, o);
                const double gap = score_gap(got, want);
                if (!(gap < 1e-4)) std::fprintf(stderr, "  %s (windowed %d, token %d): gap %g\n", what, int(windowed), int(token_score), gap);
                CHECK(gap < 1e-4);
            };
            inc.rescore(seq);
            CHECK_EQ(inc.recomputed_tokens(), size_t(0));
            check_fresh("unchanged");
            seq[seq.size() - 3] = seq[seq.size() - 3] == 'A' ? 'C' : 'A';
            inc.rescore(seq);
            CHECK(inc.recomputed_tokens() <= 2);
            check_fresh("end");
            seq[seq.size() / 2] = seq[seq.size() / 2] == 'G' ? 'T' : 'G';
            inc.rescore(seq);
            CHECK(inc.recomputed_tokens() < full_tokens);
            check_fresh("middle");
            seq[1] = seq[1] == 'A' ? 'T' : 'A';
            inc.rescore(seq);
            check_fresh("start");
            seq.insert(100, "GATTACA");
            inc.rescore(seq);
            check_fresh("insertion");
            seq.erase(37, 5);
            inc.rescore(seq);
            check_fresh("deletion");
            seq += "ACG";
            inc.rescore(seq);
            CHECK(inc.recomputed_tokens() <= 3);
            check_fresh("append");
            seq.resize(seq.size() - 8);
            inc.rescore(seq);
            check_fresh("truncate");
            seq[60] = 'n';
            inc.rescore(seq);
            check_fresh("N");
            inc.reset();
            inc.rescore(seq);
            check_fresh("after reset");
        }
    }
}

TEST(variant_reference_mismatch_and_bad_input_are_errors) {
    Model& m = tiny();
    VariantOptions vo;
    vo.scoring = options_for(m);
    const std::string seq = "ACGTACGTAC";
    CHECK_THROWS_WITH(score_variant(m.backend(), m.tokenizer(), seq, 4, 'G', 'T', vo), "position 5", "'G'", "'A'");
    CHECK_THROWS_WITH(score_variant(m.backend(), m.tokenizer(), seq, 10, 0, 'T', vo), "position 11", "outside", "10");
    CHECK_THROWS_WITH(score_variant(m.backend(), m.tokenizer(), seq, 4, 0, 'A', vo), "equals the reference");
    CHECK_THROWS_WITH(score_variant(m.backend(), m.tokenizer(), seq, 4, 0, 'N', vo), "'N'", "not A, C, G or T");
    CHECK_THROWS_WITH(score_variant(m.backend(), m.tokenizer(), "ACGNA", 3, 0, 'A', vo), "position 4", "'N'");
    IsmOptions io;
    io.scoring = options_for(m);
    CHECK_THROWS_WITH(saturation_mutagenesis(m.backend(), m.tokenizer(), seq, 5, 11, io), "6-11", "outside", "10");
}

TEST(variant_scores_equal_scoring_the_windows_from_scratch) {
    Model& m = tiny();
    const std::string seq = random_dna(300, 21);
    VariantOptions vo;
    vo.scoring = options_for(m);
    vo.window_bp = 121;
    vo.reverse_complement = true;
    const size_t pos = 150;
    const char alt = seq[pos] == 'G' ? 'A' : 'G';
    const VariantScore v = score_variant(m.backend(), m.tokenizer(), seq, pos, seq[pos], alt, vo);
    CHECK_EQ(v.window.start, size_t(150 - 60));
    CHECK_EQ(v.window.end, size_t(150 + 61));
    ScoreOptions so = options_for(m);
    so.token_score = false;
    const std::string ref_w = seq.substr(v.window.start, v.window.end - v.window.start);
    std::string alt_w = ref_w;
    alt_w[pos - v.window.start] = alt;
    const SequenceScore r = score_sequence(m.backend(), m.tokenizer(), ref_w, so);
    const SequenceScore a = score_sequence(m.backend(), m.tokenizer(), alt_w, so);
    CHECK_NEAR(v.window_delta, a.base_mean_logp - r.base_mean_logp, 1e-5);
    const auto& site = r.track[pos - v.window.start].p;
    CHECK_NEAR(v.site_log_odds, std::log(site[size_t(base_code(seq[pos]))]) - std::log(site[size_t(base_code(alt))]), 1e-5);
    const SequenceScore rr = score_sequence(m.backend(), m.tokenizer(), reverse_complement(ref_w), so);
    const SequenceScore ar = score_sequence(m.backend(), m.tokenizer(), reverse_complement(alt_w), so);
    CHECK_NEAR(v.window_delta_rc, ar.base_mean_logp - rr.base_mean_logp, 1e-5);
    CHECK_NEAR(v.window_delta_mean, 0.5 * (v.window_delta + v.window_delta_rc), 1e-12);
    // Clipped at the sequence ends.
    const VariantScore e = score_variant(m.backend(), m.tokenizer(), seq, 3, 0, seq[3] == 'C' ? 'T' : 'C', vo);
    CHECK_EQ(e.window.start, size_t(0));
    CHECK_EQ(e.window.end, size_t(3 + 61));
}

TEST(fast_ism_equals_the_marginal_log_odds) {
    Model& m = tiny();
    std::string seq = random_dna(90, 31);
    seq[44] = 'N';
    IsmOptions io;
    io.scoring = options_for(m);
    io.window_bp = 60;
    const IsmResult r = saturation_mutagenesis(m.backend(), m.tokenizer(), seq, 40, 50, io);
    CHECK_EQ(r.entries.size(), size_t(9 * 3));
    CHECK_EQ(r.skipped_non_acgt, size_t(1));
    ScoreOptions so = options_for(m);
    so.token_score = false;
    const SequenceScore s = score_sequence(m.backend(), m.tokenizer(), seq.substr(r.window.start, r.window.end - r.window.start), so);
    for (const IsmEntry& e : r.entries) {
        const auto& p = s.track[e.position - r.window.start].p;
        CHECK_EQ(e.ref, seq[e.position]);
        CHECK(e.alt != e.ref);
        CHECK_NEAR(e.score, std::log(p[size_t(base_code(e.alt))]) - std::log(p[size_t(base_code(e.ref))]), 1e-5);
    }
}

TEST(exact_ism_equals_rescoring_each_mutant_from_scratch) {
    for (Model* mp : {&tiny(), &short_context()}) {
        Model& m = *mp;
        const bool windowed = mp == &short_context();
        const std::string seq = random_dna(windowed ? 500 : 100, 41);
        IsmOptions io;
        io.scoring = options_for(m);
        io.scoring.chunk_tokens = 32;
        io.scoring.max_sequences = 5;
        io.exact = true;
        io.window_bp = windowed ? 470 : 83;  // windowed: 79 tokens, two model windows
        // A region across 6-mer boundaries; windowed, it reaches the overlap of the two windows.
        const size_t a = windowed ? 200 : 30, b = windowed ? 300 : 45;
        size_t last_done = 0, last_total = 0;
        const IsmResult r = saturation_mutagenesis(m.backend(), m.tokenizer(), seq, a, b, io, [&](size_t d, size_t t) {
            CHECK(d >= last_done && d <= t);
            last_done = d;
            last_total = t;
            return true;
        });
        CHECK_EQ(r.entries.size(), (b - a) * 3);
        CHECK(last_done > 0);
        CHECK_EQ(last_done, last_total);
        CHECK(r.mutant_tokens > 0);
        ScoreOptions so = io.scoring;
        so.token_score = false;
        const std::string ref = seq.substr(r.window.start, r.window.end - r.window.start);
        const SequenceScore rs = score_sequence(m.backend(), m.tokenizer(), ref, so);
        if (windowed) CHECK(rs.windows >= 2);
        double worst = 0;
        for (const IsmEntry& e : r.entries) {
            std::string mut = ref;
            mut[e.position - r.window.start] = e.alt;
            const SequenceScore ms = score_sequence(m.backend(), m.tokenizer(), mut, so);
            worst = std::max(worst, std::fabs(e.score - (ms.base_mean_logp - rs.base_mean_logp)));
        }
        if (!(worst < 1e-4)) std::fprintf(stderr, "  windowed %d: worst gap %g\n", int(windowed), worst);
        CHECK(worst < 1e-4);
        if (!windowed) {
            // Sharing the prefix: far fewer tokens than rescoring every mutant whole.
            const size_t whole = r.entries.size() * ((ref.size() + 5) / 6);
            CHECK(r.mutant_tokens < whole * 3 / 4);
        }
    }
}

TEST(cancellation_stops_scoring_and_says_so) {
    Model& m = tiny();
    ScoreOptions o = options_for(m);
    o.chunk_tokens = 8;
    size_t calls = 0;
    const SequenceScore s = score_sequence(m.backend(), m.tokenizer(), random_dna(600, 3), o, [&](size_t, size_t) {
        return ++calls < 2;
    });
    CHECK(s.cancelled);
    CHECK_EQ(calls, size_t(2));
    IsmOptions io;
    io.scoring = o;
    io.exact = true;
    const IsmResult r = saturation_mutagenesis(m.backend(), m.tokenizer(), random_dna(120, 4), 10, 40, io,
                                               [&](size_t d, size_t) { return d < 40; });  // past the reference
    CHECK(r.cancelled);
    // The scorer recovers: a cancelled pass leaves nothing stale behind.
    IncrementalScorer inc(m.backend(), m.tokenizer(), o);
    const std::string seq = random_dna(300, 5);
    calls = 0;
    CHECK(inc.rescore(seq, [&](size_t, size_t) { return ++calls < 3; }).cancelled);
    CHECK(!inc.rescore(seq).cancelled);
    CHECK(score_gap(inc.result(), score_sequence(m.backend(), m.tokenizer(), seq, o)) < 1e-4);
}

CHECK_MAIN()
