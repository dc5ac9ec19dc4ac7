// Speculative decoding on the CPU backend with drafts of controlled agreement (the target
// itself, a model with other weights, a short-context draft). Identical verification: the
// designs must be identical, base for base, to the target alone, greedy and sampled, with
// templates, constraints, tags and flanks. Distribution verification (speculative sampling):
// the acceptance step is exact (P(token) = p on a grid of draws), and sampled designs are
// distributed as the target's alone by a two-sample chi-square test at a stated level, with a
// negative control proving the test can fail. Stats add up; a draft with other DNA ids is refused.
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "carbon/fns/sampling.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

std::unique_ptr<Model> load(const std::filesystem::path& dir) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    return Model::load(dir, mo);
}

Model& target() {
    static auto m = load(testing_support::tiny_model());
    return *m;
}

Model& self_draft() {  // the target's own weights: full agreement
    static auto m = load(testing_support::tiny_model());
    return *m;
}

Model& other_draft() {  // other random weights, one layer: low agreement
    static auto m = [] {
        TestModelOptions o;
        o.seed = 99;
        o.layers = 1;
        return load(testing_support::tiny_model(o, "other"));
    }();
    return *m;
}

const std::string kContext = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";

std::vector<std::string> bases_of(const GenerationResult& r) {
    std::vector<std::string> out(r.designs.size());
    for (const Design& d : r.designs) out[d.index] = d.bases;
    return out;
}

GenerationResult with_draft(Model& draft, const DesignRequest& r, size_t k = 4, size_t window = 0,
                            bool auto_disable = false, SpeculativeVerify verify = SpeculativeVerify::Identical) {
    SpeculativeConfig sc;
    sc.verify = verify;
    sc.draft = &draft.backend();
    sc.draft_tokenizer = &draft.tokenizer();
    sc.draft_tokens = k;
    sc.draft_context = window;
    sc.auto_disable = auto_disable;
    return generate_designs(target().backend(), target().tokenizer(), r, {}, &sc);
}

std::vector<DesignRequest> requests() {
    std::vector<DesignRequest> rs;
    DesignRequest r;
    r.left_context = kContext;
    r.length = 90;
    r.count = 3;
    r.sampling.temperature = 0;
    rs.push_back(r);  // greedy FNS
    r.sampling = {1.0f, 0.9f, 5};
    rs.push_back(r);  // sampled FNS
    r.mode = GenerationMode::Direct;
    rs.push_back(r);  // sampled direct
    r.mode = GenerationMode::Fns;
    r.left_context = kContext.substr(0, 40);
    r.template_iupac = "NNNNNNNNNNTATAAANNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN";
    r.length = 0;
    r.tags = "<plant>";
    r.right_flank = "ACGTTGCA";
    r.constraints.max_homopolymer = 3;
    r.constraints.forbidden_motifs = {"GAATTC", "GGATCC"};
    r.constraints.gc_min = 0.35;
    r.constraints.gc_max = 0.65;
    r.sampling = {0.8f, 0.95f, 11};
    rs.push_back(r);  // everything at once
    return rs;
}

}  // namespace

TEST(self_draft_is_identical_and_accepts_everything) {
    for (const DesignRequest& r : requests()) {
        const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
        const auto spec = with_draft(self_draft(), r);
        CHECK(bases_of(spec) == bases_of(plain));
        for (size_t i = 0; i < plain.designs.size(); ++i) {
            CHECK_EQ(spec.designs[i].design_logp, plain.designs[i].design_logp);
            CHECK_EQ(spec.designs[i].rank, plain.designs[i].rank);
        }
        const SpeculativeStats& s = spec.speculative;
        CHECK(s.used);
        CHECK(s.drafted > 0);
        // With constraints a draft may stop early (its search fails where the target backtracks),
        // but what it proposes is what the target chooses.
        CHECK_EQ(s.accepted, s.drafted);
        CHECK(s.tokens_per_target_pass() > 2.0);
    }
}

TEST(low_agreement_draft_is_still_identical) {
    for (const DesignRequest& r : requests()) {
        const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
        for (size_t k : {1, 3, 6}) {
            const auto spec = with_draft(other_draft(), r, k);
            CHECK(bases_of(spec) == bases_of(plain));
            CHECK(spec.speculative.acceptance_rate() < 1.0);
        }
    }
}

TEST(sampled_runs_match_target_alone_seed_for_seed) {
    // Verification by equality with the target's own draw makes sampled outputs identical, not just
    // equal in distribution: check many seeds, including first-token frequencies over 400 designs.
    DesignRequest r;
    r.left_context = kContext;
    r.length = 12;
    r.count = 400;
    r.template_iupac = "NNNSNNWNNNNN";
    r.length = 0;
    r.sampling = {1.0f, 1.0f, 21};
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(other_draft(), r, 2);
    CHECK(bases_of(spec) == bases_of(plain));
    for (uint64_t seed = 0; seed < 6; ++seed) {
        DesignRequest q = requests()[1];
        q.sampling.seed = seed;
        CHECK(bases_of(with_draft(other_draft(), q, 3)) == bases_of(generate_designs(target().backend(), target().tokenizer(), q)));
    }
}

TEST(short_draft_window_slides_and_stays_exact) {
    DesignRequest r = requests()[1];
    r.length = 400;  // ~75 tokens: far past a 24-token draft window
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(self_draft(), r, 4, 24);
    CHECK(bases_of(spec) == bases_of(plain));
    // The windowed draft sees less context than the target, so it agrees often, not always.
    CHECK(spec.speculative.accepted > 0);
    CHECK(spec.speculative.accepted < spec.speculative.drafted);
}

TEST(stats_add_up_and_auto_disable_keeps_output) {
    DesignRequest r = requests()[0];
    r.length = 240;
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(other_draft(), r, 4, 0, true);
    CHECK(bases_of(spec) == bases_of(plain));
    const SpeculativeStats& s = spec.speculative;
    CHECK(s.plain_steps > 0);
    CHECK(s.accepted <= s.drafted);
    if (s.disabled) CHECK(!s.disabled_reason.empty());
}

// ---- Speculative sampling (Distribution verification) ----

TEST(speculative_step_is_exact_on_a_grid_of_draws) {
    // P(token = y) over x ~ q and the two uniforms must be p(y). The uniforms are integrated on a
    // midpoint grid of G x G points (error O(1/G)); the residual draw only matters on rejection.
    const std::vector<std::vector<double>> ps = {{0.5, 0.2, 0.2, 0.1, 0.0}, {0.05, 0.05, 0.3, 0.3, 0.3}, {0.2, 0.2, 0.2, 0.2, 0.2}};
    const std::vector<std::vector<double>> qs = {{0.1, 0.1, 0.1, 0.2, 0.5}, {0.5, 0.2, 0.2, 0.1, 0.0}, {0.2, 0.2, 0.2, 0.2, 0.2}};
    const int G = 400;
    for (const auto& p : ps)
        for (const auto& q : qs) {
            std::vector<double> out(p.size(), 0.0);
            for (size_t x = 0; x < q.size(); ++x) {
                if (q[x] <= 0) continue;
                for (int i = 0; i < G; ++i)
                    for (int j = 0; j < G; ++j) {
                        const SpeculativeStep s = speculative_step(p, q, x, float((i + 0.5) / G), float((j + 0.5) / G));
                        out[s.token] += q[x] / double(G) / double(G);
                    }
            }
            for (size_t y = 0; y < p.size(); ++y) CHECK(std::abs(out[y] - p[y]) < 5e-3);
        }
    // Identical distributions accept everything.
    const std::vector<double> p = {0.25, 0.25, 0.5};
    for (size_t x = 0; x < 3; ++x) CHECK(speculative_step(p, p, x, 0.999f, 0.5f).accepted);
}

namespace {

// Two-sample chi-square test of homogeneity: the statistic and its degrees of freedom over the
// categories both samples hit, categories with fewer than 10 observations in all merged into one.
struct ChiSquare {
    double stat = 0;
    int df = 0;
};
ChiSquare chi_square(const std::map<std::string, int>& a, const std::map<std::string, int>& b) {
    std::map<std::string, std::pair<double, double>> cells;
    for (const auto& [k, n] : a) cells[k].first += n;
    for (const auto& [k, n] : b) cells[k].second += n;
    std::vector<std::pair<double, double>> merged;
    std::pair<double, double> rare{0, 0};
    for (const auto& [k, c] : cells) {
        if (c.first + c.second < 10) rare.first += c.first, rare.second += c.second;
        else merged.push_back(c);
    }
    if (rare.first + rare.second > 0) merged.push_back(rare);
    double na = 0, nb = 0;
    for (const auto& c : merged) na += c.first, nb += c.second;
    ChiSquare r;
    for (const auto& c : merged) {
        const double total = c.first + c.second;
        const double ea = total * na / (na + nb), eb = total * nb / (na + nb);
        r.stat += (c.first - ea) * (c.first - ea) / ea + (c.second - eb) * (c.second - eb) / eb;
    }
    r.df = int(merged.size()) - 1;
    return r;
}

// Upper tail of the chi-square distribution, Q(df/2, x/2), by the regularised incomplete gamma
// function (series below a + 1, continued fraction above).
double chi_square_p_value(double x, int df) {
    const double a = df / 2.0, z = x / 2.0;
    if (z <= 0) return 1.0;
    const double lg = std::lgamma(a);
    if (z < a + 1) {
        double sum = 1.0 / a, term = sum;
        for (int n = 1; n < 1000; ++n) {
            term *= z / (a + n);
            sum += term;
            if (term < sum * 1e-15) break;
        }
        return 1.0 - sum * std::exp(-z + a * std::log(z) - lg);
    }
    double b = z + 1 - a, c = 1e300, d = 1 / b, h = d;
    for (int i = 1; i < 1000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::abs(d) < 1e-300) d = 1e-300;
        c = b + an / c;
        if (std::abs(c) < 1e-300) c = 1e-300;
        d = 1 / d;
        const double delta = d * c;
        h *= delta;
        if (std::abs(delta - 1) < 1e-15) break;
    }
    return std::exp(-z + a * std::log(z) - lg) * h;
}

// Observed bases of designs at design positions [from, from + len) (0-based), counted per string.
void count(const GenerationResult& r, size_t from, size_t len, std::map<std::string, int>& into) {
    for (const Design& d : r.designs) ++into[d.bases.substr(from, len)];
}

}  // namespace

TEST(chi_square_p_value_matches_tables) {
    CHECK(std::abs(chi_square_p_value(16.266, 3) - 0.001) < 2e-5);
    CHECK(std::abs(chi_square_p_value(37.697, 15) - 0.001) < 2e-5);
    CHECK(std::abs(chi_square_p_value(3.841, 1) - 0.05) < 2e-4);
}

TEST(self_draft_distribution_mode_accepts_every_token) {
    DesignRequest r = requests()[1];  // sampled FNS, top-p 0.9
    const auto spec = with_draft(self_draft(), r, 4, 0, false, SpeculativeVerify::Distribution);
    CHECK(spec.speculative.verify == SpeculativeVerify::Distribution);
    CHECK(spec.speculative.drafted > 0);
    CHECK_EQ(spec.speculative.accepted, spec.speculative.drafted);  // p == q exactly (batch-invariant logits)
    for (const Design& d : spec.designs) CHECK_EQ(d.bases.size(), size_t(90));
}

TEST(constraints_fall_back_to_identical_verification) {
    const DesignRequest r = requests()[3];  // homopolymer, motifs and GC window
    const auto spec = with_draft(other_draft(), r, 3, 0, false, SpeculativeVerify::Distribution);
    CHECK(spec.speculative.verify == SpeculativeVerify::Identical);
    CHECK(bases_of(spec) == bases_of(generate_designs(target().backend(), target().tokenizer(), r)));
    bool said = false;
    for (const std::string& n : spec.notices) said = said || n.find("by identity") != std::string::npos;
    CHECK(said);
}

TEST(speculative_sampling_is_distributed_as_the_target) {
    // Designs of 36 bp (6 tokens): steps 0-2 are the target's own (the run measures two plain
    // steps before speculating), steps 3-5 come from draft + verification. Compared with the
    // target alone, from independent seeds, by a two-sample chi-square test at alpha = 0.001 on
    // (a) the first two bases of token 3, (b) the pair across the token 3/4 boundary (a verified
    // token and the next), (c) the last base of token 5. Three modes: FNS, FNS with a template
    // mask (R, Y, S, W over token 3), direct. 4 x 1,000 designs per arm and mode.
    // Negative control: the draft's own sampling is detected as different (p < 1e-6), so the test
    // has the power to fail.
    const double alpha = 0.001;
    struct Mode {
        const char* name;
        GenerationMode mode;
        std::string templ;
    };
    const Mode modes[] = {{"fns", GenerationMode::Fns, ""},
                          {"fns+mask", GenerationMode::Fns, std::string(18, 'N') + "RYSW" + std::string(14, 'N')},
                          {"direct", GenerationMode::Direct, ""}};
    for (const Mode& m : modes) {
        std::map<std::string, int> plain_a, plain_b, plain_c, spec_a, spec_b, spec_c, draft_a;
        size_t drafted = 0, accepted = 0;
        for (uint64_t seed = 0; seed < 4; ++seed) {
            DesignRequest r;
            r.left_context = kContext;
            r.mode = m.mode;
            r.template_iupac = m.templ;
            r.length = m.templ.empty() ? 36 : 0;
            r.count = 1000;
            r.sampling = {0.6f, 1.0f, 1000 + seed};
            const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
            r.sampling.seed = 2000 + seed;  // independent of the plain arm
            const auto spec = with_draft(other_draft(), r, 3, 0, false, SpeculativeVerify::Distribution);
            CHECK(spec.speculative.verify == SpeculativeVerify::Distribution);
            drafted += spec.speculative.drafted;
            accepted += spec.speculative.accepted;
            r.sampling.seed = 3000 + seed;
            const auto draft_only = generate_designs(other_draft().backend(), other_draft().tokenizer(), r);
            count(plain, 18, 2, plain_a), count(plain, 23, 2, plain_b), count(plain, 35, 1, plain_c);
            count(spec, 18, 2, spec_a), count(spec, 23, 2, spec_b), count(spec, 35, 1, spec_c);
            count(draft_only, 18, 2, draft_a);
        }
        for (const auto& [what, x, y] : {std::tuple{"token 3 bases 1-2", &plain_a, &spec_a},
                                         std::tuple{"token 3/4 boundary", &plain_b, &spec_b},
                                         std::tuple{"token 5 last base", &plain_c, &spec_c}}) {
            const ChiSquare c = chi_square(*x, *y);
            const double pv = chi_square_p_value(c.stat, c.df);
            std::printf("  %-8s %-18s chi2 %7.2f df %2d p %.4f\n", m.name, what, c.stat, c.df, pv);
            CHECK(c.df >= 1);
            CHECK(pv > alpha);
        }
        const ChiSquare neg = chi_square(plain_a, draft_a);
        const double neg_p = chi_square_p_value(neg.stat, neg.df);
        std::printf("  %-8s negative control (draft alone): chi2 %.1f df %d p %.2g; acceptance %.1f%%\n", m.name, neg.stat, neg.df,
                    neg_p, 100.0 * double(accepted) / double(std::max<size_t>(1, drafted)));
        CHECK(neg_p < 1e-6);
        CHECK(accepted > 0 && accepted < drafted);  // partial agreement: both branches exercised
    }
}

TEST(draft_with_other_dna_ids_is_refused) {
    TestModelOptions o;
    o.compact_vocab = true;
    auto compact = load(testing_support::tiny_model(o, "compact"));
    CHECK_THROWS_WITH(with_draft(*compact, requests()[0]), "does not use the target's DNA token ids");
}

CHECK_MAIN()
