// FNS and direct generation, checked by brute force on a tiny model: greedy FNS is the per-base
// arg-max of the (masked) marginals, sampled bases follow the adjusted marginals, templates and
// constraints hold for every design, exact lengths, context tails, flank scores, errors.
#include <cmath>
#include <map>
#include <random>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

Model& tiny() { return testing_support::tiny_cpu_model(); }

// 6-mer probabilities after [tags]<dna>context (context a multiple of 6).
std::vector<float> next_probs(const std::string& context) {
    Model& m = tiny();
    DnaEncoding enc = m.tokenizer().encode_prompt("", context, false);
    SeqId s = m.backend().create_sequence();
    ForwardOutput out;
    ForwardItem it{s, enc.ids, false};
    m.backend().forward(std::span(&it, 1), Head::Dna, out);
    m.backend().free_sequence(s);
    std::vector<float> p(out.width);
    dna_softmax(std::span<const float>(out.row(0), out.width), p);
    return p;
}

DesignRequest base_request(const std::string& context, size_t length, size_t count = 1) {
    DesignRequest r;
    r.left_context = context;
    r.length = length;
    r.count = count;
    r.sampling.temperature = 0.f;
    return r;
}

bool allowed(BaseMask m, char c) { return (m >> base_code(c)) & 1; }

const std::string kContext = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";  // 42 bp, 7 tokens

}  // namespace

TEST(greedy_fns_is_the_per_base_argmax_and_not_the_argmax_6mer) {
    int differs = 0;
    for (int k = 0; k < 6; ++k) {
        std::string ctx = kContext.substr(0, size_t(6 * (k + 1)));
        auto p = next_probs(ctx);
        Marginals m = fns_marginals(p);
        std::string expect;
        for (size_t j = 0; j < 6; ++j) {
            size_t best = 0;
            for (size_t b = 1; b < 4; ++b)
                if (m[j][b] > m[j][best]) best = b;
            expect.push_back(kKmerBases[best]);
        }
        auto r = generate_designs(tiny().backend(), tiny().tokenizer(), base_request(ctx, 6));
        CHECK_EQ(r.designs.at(0).bases, expect);
        const int top = int(argmax(p));
        if (Tokenizer::kmer_text(top) != expect) ++differs;
    }
    CHECK(differs > 0);  // on random weights the two rules disagree at some steps
}

TEST(a_fixed_base_lets_the_others_adapt_masked_marginals) {
    auto p = next_probs(kContext);
    std::array<BaseMask, 6> mask;
    mask.fill(kAnyBase);
    mask[2] = base_bit(base_code('G'));
    mask[4] = iupac_mask('Y');
    Marginals mm;
    double mass = fns_masked_marginals(p, mask, mm);
    CHECK(mass > 0 && mass < 1);
    // Brute force: restricted joint, renormalized, marginalized.
    std::array<std::array<double, 4>, 6> ref{};
    double z = 0;
    for (int v = 0; v < 4096; ++v) {
        bool ok = true;
        for (int j = 0; j < 6; ++j) ok = ok && (mask[size_t(j)] >> kmer_base(v, j) & 1);
        if (!ok) continue;
        z += p[size_t(v)];
        for (int j = 0; j < 6; ++j) ref[size_t(j)][size_t(kmer_base(v, j))] += p[size_t(v)];
    }
    for (size_t j = 0; j < 6; ++j)
        for (size_t b = 0; b < 4; ++b) CHECK_NEAR(mm[j][b], ref[j][b] / z, 1e-6);
    std::string expect;
    for (size_t j = 0; j < 6; ++j) {
        size_t best = 0;
        for (size_t b = 1; b < 4; ++b)
            if (mm[j][b] > mm[j][best]) best = b;
        expect.push_back(kKmerBases[best]);
    }
    DesignRequest r = base_request(kContext, 6);
    r.template_iupac = "NNGNYN";
    CHECK_EQ(generate_designs(tiny().backend(), tiny().tokenizer(), r).designs.at(0).bases, expect);
}

TEST(sampled_bases_follow_the_adjusted_marginals) {
    // One 6-mer per design, 3000 designs from one prompt: each position's base frequencies
    // must match the (masked, temperature/top-p adjusted) marginal. Chi-square, p = 0.001.
    auto p = next_probs(kContext);
    struct Case {
        float temperature, top_p;
        std::string tmpl;
    };
    for (const Case& c : {Case{1.0f, 1.0f, "NNNNNN"}, Case{0.7f, 0.9f, "NRNNSN"}}) {
        DesignRequest r = base_request(kContext, 6, 3000);
        r.sampling = {c.temperature, c.top_p, 11};
        r.template_iupac = c.tmpl;
        auto res = generate_designs(tiny().backend(), tiny().tokenizer(), r);
        CHECK_EQ(res.designs.size(), size_t(3000));
        std::array<BaseMask, 6> mask;
        for (size_t j = 0; j < 6; ++j) mask[j] = iupac_mask(c.tmpl[j]);
        Marginals mm;
        fns_masked_marginals(p, mask, mm);
        for (size_t j = 0; j < 6; ++j) {
            auto q = adjust_base_distribution(mm[j], mask[j], c.temperature, c.top_p);
            std::array<int, 4> h{};
            for (const Design& d : res.designs) h[size_t(base_code(d.bases[j]))]++;
            double chi2 = 0;
            int dof = -1;
            for (size_t b = 0; b < 4; ++b) {
                const double e = 3000.0 * q[b];
                if (e == 0) {
                    CHECK_EQ(h[b], 0);
                    continue;
                }
                chi2 += (h[b] - e) * (h[b] - e) / e;
                ++dof;
            }
            const double crit[] = {0, 10.83, 13.82, 16.27};  // chi-square p = 0.001 for 1..3 dof
            if (dof > 0) CHECK(chi2 < crit[dof]);
        }
    }
}

TEST(templates_and_exact_lengths_hold) {
    std::mt19937 rng(3);
    const char* letters = "ACGTRYSWKMBDHVNacgtn";
    for (size_t len : {1, 5, 7, 13, 20, 31}) {
        std::string tmpl;
        for (size_t i = 0; i < len; ++i) tmpl.push_back(letters[rng() % 20]);
        for (GenerationMode mode : {GenerationMode::Fns, GenerationMode::Direct}) {
            DesignRequest r = base_request(kContext, 0, 4);
            r.template_iupac = tmpl;
            r.mode = mode;
            r.sampling = {1.0f, 0.95f, uint64_t(len)};
            auto res = generate_designs(tiny().backend(), tiny().tokenizer(), r);
            for (const Design& d : res.designs) {
                CHECK_EQ(d.bases.size(), len);
                for (size_t i = 0; i < len; ++i) CHECK(allowed(iupac_mask(tmpl[i]), d.bases[i]));
            }
        }
    }
}

TEST(context_tail_is_fixed_like_a_template) {
    // A 40 bp context = 6 whole tokens + a 4 bp tail. Generating 10 bases after it must equal
    // generating after the 36 bp head with the tail pinned by a template.
    const std::string ctx = kContext.substr(0, 40);
    auto a = generate_designs(tiny().backend(), tiny().tokenizer(), base_request(ctx, 10));
    DesignRequest r = base_request(ctx.substr(0, 36), 0);
    r.template_iupac = ctx.substr(36) + std::string(10, 'N');
    auto b = generate_designs(tiny().backend(), tiny().tokenizer(), r);
    CHECK_EQ(a.designs.at(0).bases, b.designs.at(0).bases.substr(4));
}

TEST(constraints_hold_for_every_design_and_do_nothing_when_not_binding) {
    DesignRequest r = base_request(kContext, 60, 8);
    r.sampling = {1.2f, 1.0f, 5};
    r.constraints.max_homopolymer = 2;
    r.constraints.forbidden_motifs = {"GAATTC", "GGWCC", "CGCG"};
    r.constraints.gc_min = 0.45;
    r.constraints.gc_max = 0.55;
    r.right_flank = "GGGAAATTT";
    auto res = generate_designs(tiny().backend(), tiny().tokenizer(), r);
    CHECK_EQ(res.designs.size(), size_t(8));
    for (const Design& d : res.designs) {
        const std::string full = kContext + d.bases + r.right_flank;
        const size_t d0 = kContext.size(), d1 = d0 + d.bases.size();
        // homopolymer runs touching the design
        for (size_t i = 0; i < full.size();) {
            size_t j = i;
            while (j < full.size() && full[j] == full[i]) ++j;
            if (j > d0 && i < d1) CHECK(j - i <= 2);
            i = j;
        }
        for (const std::string& m : r.constraints.forbidden_motifs)
            for (const std::string& pat : {m, reverse_complement(m)})
                for (size_t s = 0; s + pat.size() <= full.size(); ++s) {
                    if (s + pat.size() <= d0 || s >= d1) continue;  // windows touching the design
                    bool match = true;
                    for (size_t k = 0; k < pat.size() && match; ++k) match = allowed(iupac_mask(pat[k]), full[s + k]);
                    CHECK(!match);
                }
        int gc = 0;
        for (char c : d.bases) gc += c == 'G' || c == 'C';
        CHECK(gc >= 27 && gc <= 33);
    }
    // A limit that never binds changes nothing.
    DesignRequest free_r = base_request(kContext, 60, 4);
    free_r.sampling = {1.0f, 1.0f, 9};
    DesignRequest loose = free_r;
    loose.constraints.max_homopolymer = 1000;
    loose.constraints.gc_min = 0.0;
    loose.constraints.gc_max = 1.0;
    auto x = generate_designs(tiny().backend(), tiny().tokenizer(), free_r);
    auto y = generate_designs(tiny().backend(), tiny().tokenizer(), loose);
    for (size_t i = 0; i < 4; ++i) CHECK_EQ(x.designs[i].bases, y.designs[i].bases);
}

TEST(impossible_requests_are_refused_with_the_reason) {
    auto gen = [](DesignRequest r) { return generate_designs(tiny().backend(), tiny().tokenizer(), r); };
    DesignRequest r = base_request(kContext, 0);
    r.template_iupac = "NNAAAANN";
    r.constraints.max_homopolymer = 3;
    CHECK_THROWS_WITH(gen(r), "run of 4", "design position 6", "homopolymer");
    r = base_request(kContext, 0);
    r.template_iupac = "NNGAATTCNN";
    r.constraints.forbidden_motifs = {"GAATTC"};
    CHECK_THROWS_WITH(gen(r), "forbidden motif GAATTC", "3-8");
    r = base_request(kContext, 0);
    r.template_iupac = "WWWWWWWWWW";
    r.constraints.gc_min = 0.5;
    CHECK_THROWS_WITH(gen(r), "GC window");
    r = base_request(kContext, 12);
    r.constraints.forbidden_motifs = {"NN"};  // every pair of bases is forbidden
    r.max_backtracks = 20;
    CHECK_THROWS_WITH(gen(r), "cannot be met", "design position 1");
    r = base_request(kContext, 0);
    r.template_iupac = "ACGTX";
    CHECK_THROWS_WITH(gen(r), "'X' at position 5", "IUPAC");
    r = base_request(kContext, 0);
    CHECK_THROWS_WITH(gen(r), "length");
    r = base_request(kContext, 6);
    r.constraints.forbidden_motifs = {"GAZ"};
    CHECK_THROWS_WITH(gen(r), "forbidden motif 1", "'Z' at position 3");
    // A matrix threshold at or below its lowest score forbids every window.
    Pssm pssm;
    pssm.score = {{1, -1, -1, -1}, {-1, -1, 2, -1}};
    r = base_request(kContext, 6);
    r.constraints.forbidden_matrices = {{pssm, -2.0, "M1 (test)"}};
    CHECK_THROWS_WITH(gen(r), "forbidden matrix M1 (test)", "every window");
    // At its top score it forbids exactly "AG" (and, on the other strand, "CT").
    r = base_request(kContext, 30, 4);
    r.sampling = {1.5f, 1.0f, 3};
    r.constraints.forbidden_matrices = {{pssm, 3.0, "M1 (test)"}};
    for (const Design& d : gen(r).designs) {
        const std::string full = kContext + d.bases;
        for (size_t i = kContext.size() - 1; i + 1 < full.size(); ++i) {
            CHECK(full.substr(i, 2) != "AG");
            CHECK(full.substr(i, 2) != "CT");
        }
    }
}

// A required matrix: at its top score it asks for "GAT" (or, on the other strand, "ATC") inside
// the span; every design holds one there, the same request without it leaves some without, and
// requests no design can meet are refused with the reason.
TEST(required_matrix_is_matched_inside_its_span) {
    auto gen = [](DesignRequest r) { return generate_designs(tiny().backend(), tiny().tokenizer(), r); };
    Pssm pssm;
    pssm.score = {{-1, -1, 2, -1}, {1, -1, -1, -1}, {-1, -1, -1, 1}};  // columns A C G T
    auto has_site = [](const std::string& span) {
        return span.find("GAT") != std::string::npos || span.find("ATC") != std::string::npos;
    };
    for (GenerationMode mode : {GenerationMode::Fns, GenerationMode::Direct}) {
        DesignRequest r = base_request(kContext, 30, 40);
        r.mode = mode;
        r.sampling = {1.5f, 1.0f, 5};
        const auto free = gen(r).designs;
        size_t without = 0;
        for (const Design& d : free) without += !has_site(d.bases.substr(10, 10));
        CHECK(without > 0);  // the control: unconstrained designs do lack it there
        r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 10, 20}};
        const auto req = gen(r).designs;
        CHECK_EQ(req.size(), size_t(40));
        for (const Design& d : req) {
            if (!has_site(d.bases.substr(10, 10))) std::fprintf(stderr, "  no site in %s\n", d.bases.c_str());
            CHECK(has_site(d.bases.substr(10, 10)));
        }
    }
    // Greedy, with the span the whole design (to = 0).
    DesignRequest r = base_request(kContext, 12, 2);
    r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 0, 0}};
    for (const Design& d : gen(r).designs) CHECK(has_site(d.bases));
    // Refusals: a span past the design or too short for the matrix, a threshold above the best
    // score, a template that allows no site, a forbidden motif that is the site.
    r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 10, 13}};
    CHECK_THROWS_WITH(gen(r), "required matrix M2 (test)", "design positions 11-13", "inside the 12 bp design");
    r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 11, 12}};
    CHECK_THROWS_WITH(gen(r), "hold its 3 positions");
    r.constraints.required_matrices = {{pssm, 4.5, "M2 (test)", 0, 0}};
    CHECK_THROWS_WITH(gen(r), "above the highest score");
    r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 0, 0}};
    r.template_iupac = "CCCCCCCCCCCC";
    r.length = 0;
    CHECK_THROWS_WITH(gen(r), "the template allows no window");
    r = base_request(kContext, 12, 1);
    r.constraints.required_matrices = {{pssm, 4.0, "M2 (test)", 0, 0}};
    r.constraints.forbidden_motifs = {"GAT"};
    r.max_backtracks = 50;
    CHECK_THROWS_WITH(gen(r), "cannot be met");
}

TEST(flank_scores_equal_a_closed_scoring_pass_and_rank) {
    DesignRequest r = base_request(kContext.substr(0, 39), 11, 5);
    r.sampling = {1.0f, 1.0f, 2};
    r.right_flank = "TTGACAGCTAGCTCAGTCCTAGG";
    auto res = generate_designs(tiny().backend(), tiny().tokenizer(), r);
    for (size_t i = 0; i < res.designs.size(); ++i) {
        const Design& d = res.designs[i];
        CHECK_EQ(d.rank, int(i + 1));
        if (i) CHECK(res.designs[i - 1].ranking_logp >= d.ranking_logp);
        // Brute force: score <dna>context+design+flank</dna>, per base from the marginals.
        const std::string full = r.left_context + d.bases + r.right_flank;
        DnaEncoding enc = tiny().tokenizer().encode_prompt("", full, true);
        SeqId s = tiny().backend().create_sequence();
        ForwardOutput out;
        ForwardItem it{s, enc.ids, true};
        tiny().backend().forward(std::span(&it, 1), Head::Dna, out);
        tiny().backend().free_sequence(s);
        std::vector<double> logp(full.size());
        std::vector<float> p(4096);
        for (size_t k = 0; k * 6 < full.size(); ++k) {
            dna_softmax(std::span<const float>(out.row(0, enc.first_dna_token - 1 + k), 4096), p);
            Marginals m = fns_marginals(p);
            for (size_t j = 0; j < 6 && k * 6 + j < full.size(); ++j) logp[k * 6 + j] = std::log(m[j][size_t(base_code(full[k * 6 + j]))]);
        }
        double design = 0, all = 0;
        for (size_t b = r.left_context.size(); b < full.size(); ++b) {
            all += logp[b];
            if (b < r.left_context.size() + d.bases.size()) design += logp[b];
        }
        CHECK_NEAR(d.design_logp, design / 11.0, 1e-4);
        CHECK_NEAR(d.ranking_logp, all / double(11 + r.right_flank.size()), 1e-4);
    }
}

TEST(direct_greedy_is_the_best_consistent_6mer_and_runs_are_reproducible) {
    auto p = next_probs(kContext);
    DesignRequest r = base_request(kContext, 6);
    r.mode = GenerationMode::Direct;
    r.template_iupac = "NNNNNG";
    int best = -1;
    for (int v = 0; v < 4096; ++v)
        if (kmer_base(v, 5) == base_code('G') && (best < 0 || p[size_t(v)] > p[size_t(best)])) best = v;
    CHECK_EQ(generate_designs(tiny().backend(), tiny().tokenizer(), r).designs.at(0).bases, Tokenizer::kmer_text(best));
    DesignRequest s = base_request(kContext, 25, 3);
    s.sampling = {0.9f, 0.9f, 77};
    auto a = generate_designs(tiny().backend(), tiny().tokenizer(), s);
    auto b = generate_designs(tiny().backend(), tiny().tokenizer(), s);
    for (size_t i = 0; i < 3; ++i) CHECK_EQ(a.designs[i].bases, b.designs[i].bases);
    s.sampling.seed = 78;
    auto c = generate_designs(tiny().backend(), tiny().tokenizer(), s);
    bool any_diff = false;
    for (size_t i = 0; i < 3; ++i) any_diff = any_diff || a.designs[i].bases != c.designs[i].bases;
    CHECK(any_diff);
    GenerationCallbacks cb;
    int calls = 0;
    cb.progress = [&](const GenerationProgress&) { return ++calls < 2; };
    auto cancelled = generate_designs(tiny().backend(), tiny().tokenizer(), s, cb);
    CHECK(cancelled.cancelled);
    CHECK(cancelled.designs.empty());
}

CHECK_MAIN()
