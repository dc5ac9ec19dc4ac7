// Issue 32, directed evolution (carbon/predict/evolution.h) and objectives (objective.h), on
// predictors whose truth is known (functions of the sequence, so the optimum can be enumerated):
// every round raises the objective; with an additive objective and the template as the only
// constraint the greedy rounds reach the optimum that enumeration finds, within any edit budget;
// over 1,000 random runs under homopolymer, forbidden-motif (across the junctions), GC-window and
// template constraints no round ever holds a design that an independent check of the constraints
// refuses, and no design is further from the start than the budget; the start must keep them;
// Cancel stops between batches.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "carbon/generation/design_check.h"
#include "carbon/predict/evolution.h"
#include "carbon/predict/objective.h"
#include "carbon/predict/plausibility.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/scoring/scoring.h"
#include "carbon/tokenizer/tokenizer.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

// out[k] = sum over positions of w[k][i][base]; optional pairwise terms between neighbours.
class TablePredictor : public ActivityPredictor {
public:
    std::vector<std::vector<std::array<double, 4>>> w;  // [output][position][A,C,G,T]
    double pair = 0;                                    // + pair per neighbouring equal bases (output 0)
    size_t calls = 0;
    std::vector<std::string> outputs() const override {
        std::vector<std::string> o;
        for (size_t k = 0; k < w.size(); ++k) o.push_back("cond" + std::to_string(k));
        return o;
    }
    Predictions predict(std::span<const std::string> seqs, std::span<const std::string>, size_t, const PredictProgress&) override {
        ++calls;
        Predictions p;
        p.outputs = outputs();
        for (const std::string& s : seqs) {
            std::vector<double> v(w.size(), 0.0);
            for (size_t k = 0; k < w.size(); ++k)
                for (size_t i = 0; i < s.size(); ++i) v[k] += w[k][i][size_t(std::string_view("ACGT").find(s[i]))];
            for (size_t i = 1; i < s.size(); ++i) v[0] += pair * (s[i] == s[i - 1]);
            p.values.push_back(v);
        }
        return p;
    }
};

const Tokenizer& tokenizer() {
    return testing_support::tiny_cpu_model().tokenizer();
}

TablePredictor random_predictor(size_t L, size_t outputs, std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    TablePredictor p;
    p.w.assign(outputs, std::vector<std::array<double, 4>>(L));
    for (auto& o : p.w)
        for (auto& pos : o)
            for (double& x : pos) x = g(rng);
    return p;
}

std::string revcomp(const std::string& s) {
    std::string r(s.rbegin(), s.rend());
    for (char& c : r) c = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : 'C';
    return r;
}

// The constraints, checked independently of the engine's plan: the template's letters (A/C/G/T
// fixed, N free), runs of one base over context + design + flank touching the design, a forbidden
// motif (A/C/G/T only) on either strand in a window touching the design, the GC window.
bool independent_ok(const std::string& ctx, const std::string& design, const std::string& flank, const std::string& tmpl, int max_run,
                    const std::string& motif, double gc_min, double gc_max) {
    for (size_t i = 0; i < design.size(); ++i)
        if (tmpl[i] != 'N' && tmpl[i] != design[i]) return false;
    const std::string all = ctx + design + flank;
    const size_t d0 = ctx.size(), d1 = ctx.size() + design.size();
    if (max_run > 0)
        for (size_t i = 0; i < all.size();) {
            size_t j = i;
            while (j < all.size() && all[j] == all[i]) ++j;
            if (j - i > size_t(max_run) && j > d0 && i < d1) return false;
            i = j;
        }
    if (!motif.empty())
        for (const std::string& m : {motif, revcomp(motif)})
            for (size_t s = 0; s + m.size() <= all.size(); ++s)
                if (s + m.size() > d0 && s < d1 && all.compare(s, m.size(), m) == 0) return false;
    double gc = 0;
    for (char c : design) gc += c == 'G' || c == 'C';
    gc /= double(design.size());
    return gc >= gc_min - 1e-12 && gc <= gc_max + 1e-12;
}

}  // namespace

TEST(objectives_parse_and_evaluate) {
    const std::vector<std::string> outs = {"K562", "HepG2", "SKNSH"};
    const std::vector<double> v = {2.0, 0.5, 1.25};
    CHECK_EQ(Objective::parse("HepG2", outs, "--objective")(v), 0.5);
    CHECK_EQ(Objective::parse("mingap:K562", outs, "--objective")(v), 0.75);
    CHECK_EQ(Objective::parse("mingap:K562-HepG2", outs, "--objective")(v), 1.5);
    CHECK_EQ(Objective::parse("sum:K562=1,SKNSH=-2", outs, "--objective")(v), -0.5);
    CHECK_EQ(Objective::parse("mingap:SKNSH", outs, "o").describe(outs), std::string("SKNSH - max(K562, HepG2)"));
    CHECK_THROWS_WITH(Objective::parse("Jurkat", outs, "--objective"), "--objective 'Jurkat'", "not an output", "K562, HepG2, SKNSH");
    CHECK_THROWS_WITH(Objective::parse("mingap:K562-K562", outs, "--objective"), "among the others");
    CHECK_THROWS_WITH(Objective::parse("sum:K562=x", outs, "--objective"), "not a number");
    CHECK_THROWS_WITH(Objective::parse("mingap:K562", std::vector<std::string>{"K562"}, "--objective"), "at least one other");
}

TEST(greedy_rounds_reach_the_enumerated_optimum_of_an_additive_objective) {
    std::mt19937_64 rng(5);
    const size_t L = 6;
    for (int trial = 0; trial < 20; ++trial) {
        TablePredictor pred = random_predictor(L, 2, rng);
        const std::string tmpl = trial % 2 ? "NNGNNN" : "NNNNNN";
        DesignRequest req;
        req.template_iupac = tmpl;
        const DesignChecker checker(tokenizer(), req);
        const Objective obj = Objective::parse(trial % 3 ? "mingap:cond0" : "sum:cond0=1,cond1=0.5", pred.outputs(), "o");
        std::string start = "ACGTAC";
        start[2] = 'G';
        for (size_t budget : {size_t(1), size_t(2), size_t(6)}) {
            if (obj.kind == Objective::Kind::MinGap) continue;  // a max of outputs is not additive: greedy need not reach its optimum
            const EvolutionResult r = evolve(pred, obj, checker, {start, budget, 0, 64});
            // Enumerate every design the template allows within the budget.
            double best = -1e300;
            for (int code = 0; code < (1 << (2 * L)); ++code) {
                std::string s(L, 'A');
                for (size_t i = 0; i < L; ++i) s[i] = "ACGT"[(code >> (2 * i)) & 3];
                if (tmpl[2] != 'N' && s[2] != tmpl[2]) continue;
                size_t d = 0;
                for (size_t i = 0; i < L; ++i) d += s[i] != start[i];
                if (d > budget) continue;
                Predictions p = pred.predict(std::vector<std::string>{s}, {}, 1, {});
                best = std::max(best, obj(p.values[0]));
            }
            CHECK_NEAR(r.rounds.back().objective, best, 1e-12);
            for (size_t k = 1; k < r.rounds.size(); ++k) CHECK(r.rounds[k].objective > r.rounds[k - 1].objective);
        }
    }
}

TEST(a_thousand_runs_never_break_a_constraint_or_the_budget) {
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> base(0, 3);
    size_t runs = 0, rounds = 0, refused = 0;
    for (int trial = 0; runs < 1000; ++trial) {
        const size_t L = 24;
        TablePredictor pred = random_predictor(L, 3, rng);
        pred.pair = 0.8;  // rewards runs of one base: the homopolymer limit has to hold it back
        DesignRequest req;
        std::string tmpl(L, 'N');
        tmpl[3] = "ACGT"[base(rng)];
        tmpl[L - 5] = "ACGT"[base(rng)];
        req.template_iupac = tmpl;
        req.left_context = "GGATCCAAAA";
        req.right_flank = "TTTTGAATTC";
        req.constraints.max_homopolymer = 3;
        req.constraints.forbidden_motifs = {"GAATTC"};
        req.constraints.gc_min = 0.35, req.constraints.gc_max = 0.65;
        const DesignChecker checker(tokenizer(), req);
        // A random start that keeps the constraints.
        std::string start;
        for (int attempt = 0; attempt < 1000; ++attempt) {
            std::string s(L, 'A');
            for (size_t i = 0; i < L; ++i) s[i] = tmpl[i] != 'N' ? tmpl[i] : "ACGT"[base(rng)];
            if (checker.allows(s)) {
                start = s;
                break;
            }
        }
        if (start.empty()) continue;
        CHECK(independent_ok(req.left_context, start, req.right_flank, tmpl, 3, "GAATTC", 0.35, 0.65));
        const size_t budget = 1 + size_t(trial % 6);
        const char* specs[] = {"cond0", "mingap:cond0", "sum:cond0=1,cond2=-1"};
        const Objective obj = Objective::parse(specs[trial % 3], pred.outputs(), "o");
        const EvolutionResult r = evolve(pred, obj, checker, {start, budget, 0, 16});
        ++runs;
        for (size_t k = 0; k < r.rounds.size(); ++k) {
            const std::string& d = r.rounds[k].bases;
            size_t dist = 0;
            for (size_t i = 0; i < L; ++i) dist += d[i] != start[i];
            CHECK(dist <= budget);
            const bool ok = independent_ok(req.left_context, d, req.right_flank, tmpl, 3, "GAATTC", 0.35, 0.65);
            CHECK(ok);
            if (!ok) return;
            if (k > 0) {
                CHECK(r.rounds[k].objective > r.rounds[k - 1].objective);
                size_t changed = 0;
                for (size_t i = 0; i < L; ++i) changed += d[i] != r.rounds[k - 1].bases[i];
                CHECK_EQ(changed, size_t(1));
                CHECK(d[r.rounds[k].edit.position] == r.rounds[k].edit.to);
                refused += r.rounds[k].refused;
            }
        }
        rounds += r.rounds.size() - 1;
        CHECK(!r.stopped.empty());
    }
    std::printf("  %zu runs, %zu rounds, %zu candidate edits refused by the constraints or the budget\n", runs, rounds, refused);
    CHECK(refused > 0);  // the constraints did bite
}

TEST(the_start_must_keep_the_constraints_and_cancel_stops) {
    std::mt19937_64 rng(3);
    TablePredictor pred = random_predictor(12, 1, rng);
    DesignRequest req;
    req.length = 12;
    req.constraints.max_homopolymer = 2;
    const DesignChecker checker(tokenizer(), req);
    const Objective obj = Objective::parse("cond0", pred.outputs(), "o");
    CHECK_THROWS_WITH(evolve(pred, obj, checker, {"ACGAAATTACGT", 3, 0, 8}), "breaks the design's constraints at position 6");
    CHECK_THROWS_WITH(evolve(pred, obj, checker, {"ACGT", 3, 0, 8}), "the start has 4 bases; the design has 12");
    CHECK_THROWS_WITH(evolve(pred, obj, checker, {"ACGTNACGTACG", 3, 0, 8}), "'N' at position 5");
    const EvolutionResult r = evolve(pred, obj, checker, {"ACGTTACGTACG", 5, 0, 4}, [](size_t round, size_t, size_t) { return round < 2; });
    CHECK(r.cancelled);
    CHECK(r.rounds.size() <= 2);
    const EvolutionResult none = evolve(pred, obj, checker, {"ACGTTACGTACG", 0, 0, 4});
    CHECK_EQ(none.rounds.size(), size_t(1));
    CHECK(none.stopped.find("budget of 0") != std::string::npos);
}

TEST(plausibility_adds_the_language_models_score_to_the_objective) {
    // Each round keeps the edit that maximises predicted + w x S, S the base-level mean log p the
    // language model gives the whole candidate (score_sequence, checked against transformers in
    // python.test_scoring_parity), computed here for every candidate independently.
    Model& lm = testing_support::tiny_cpu_model();
    std::mt19937_64 rng(11);
    const size_t L = 20;
    TablePredictor pred = random_predictor(L, 1, rng);
    DesignRequest req;
    req.length = L;
    const DesignChecker checker(lm.tokenizer(), req);
    const Objective obj = Objective::parse("cond0", pred.outputs(), "o");
    ScoreOptions so;
    so.token_score = false;
    so.per_base_track = false;
    so.context_tokens = size_t(lm.config().max_position_embeddings);
    auto S = [&](const std::string& s) { return score_sequence(lm.backend(), lm.tokenizer(), s, so).base_mean_logp; };
    for (double w : {0.5, 3.0, 50.0}) {
        Plausibility plaus(lm, "", w);
        EvolutionRequest er{"ACGTTGCAAGGCTTACGATC", 3, 0, 64};
        er.plausibility = &plaus;
        const EvolutionResult r = evolve(pred, obj, checker, er);
        CHECK(r.rounds.size() >= 2);
        for (size_t k = 0; k < r.rounds.size(); ++k) {
            const EvolutionRound& x = r.rounds[k];
            CHECK_NEAR(x.plausibility, S(x.bases), 1e-5);
            CHECK_NEAR(x.objective, x.predicted + w * x.plausibility, 1e-9);
            if (k == 0) continue;
            // The best single edit of the previous round's design, by brute force.
            const std::string& prev = r.rounds[k - 1].bases;
            double best = -1e300;
            for (size_t i = 0; i < L; ++i)
                for (char b : std::string("ACGT")) {
                    if (b == prev[i]) continue;
                    std::string c = prev;
                    c[i] = b;
                    size_t d = 0;
                    for (size_t j = 0; j < L; ++j) d += c[j] != er.start[j];
                    if (d > er.budget) continue;
                    best = std::max(best, obj(pred.predict(std::vector<std::string>{c}, {}, 1, {}).values[0]) + w * S(c));
                }
            CHECK_NEAR(x.objective, best, 1e-5 * std::max(1.0, std::abs(best)));
            CHECK(x.objective > r.rounds[k - 1].objective);
        }
    }
    CHECK_THROWS_WITH(Plausibility(lm, "", std::nan("")), "finite");
}

TEST(proposals_are_drawn_in_proportion_to_the_weights) {
    // Without replacement, proportional: with one draw each index comes up w / sum(w) of the time.
    const std::vector<double> w = {1.0, 2.0, 0.0, 3.0, 4.0};
    std::vector<double> seen(w.size(), 0.0);
    const int draws = 40000;
    for (int s = 0; s < draws; ++s) {
        const std::vector<size_t> one = draw_weighted(w, 1, uint64_t(s));
        CHECK_EQ(one.size(), size_t(1));
        if (!one.empty()) seen[one[0]] += 1.0 / draws;
    }
    for (size_t i = 0; i < w.size(); ++i) CHECK_NEAR(seen[i], w[i] / 10.0, 0.01);
    CHECK_EQ(seen[2], 0.0);  // a weight of 0 is never drawn
    CHECK(draw_weighted(w, 10, 7) == (std::vector<size_t>{0, 1, 3, 4}));  // all with weight, in order
    CHECK(draw_weighted(w, 2, 7) == draw_weighted(w, 2, 7));              // seeded
    const std::vector<size_t> two = draw_weighted(w, 2, 3);
    CHECK(two.size() == 2 && two[0] < two[1]);

    // In evolution: each round predicts the drawn proposals only, the same for the same seed.
    Model& lm = testing_support::tiny_cpu_model();
    std::mt19937_64 rng(3);
    const size_t L = 18;
    TablePredictor pred = random_predictor(L, 1, rng);
    DesignRequest req;
    req.length = L;
    const DesignChecker checker(lm.tokenizer(), req);
    const Objective obj = Objective::parse("cond0", pred.outputs(), "o");
    Plausibility proposer(lm, "", 0.0);  // proposes; adds nothing to the objective
    EvolutionRequest er{"ACGTTGCAAGGCTTACGA", 4, 0, 64};
    er.plausibility = &proposer;
    er.proposals = 6;
    er.seed = 21;
    const EvolutionResult a = evolve(pred, obj, checker, er), b = evolve(pred, obj, checker, er);
    CHECK(a.rounds.size() >= 2);
    CHECK_EQ(a.rounds.size(), b.rounds.size());
    for (size_t k = 1; k < a.rounds.size() && k < b.rounds.size(); ++k) {
        CHECK_EQ(a.rounds[k].candidates, size_t(6));
        CHECK_EQ(a.rounds[k].bases, b.rounds[k].bases);
        CHECK(std::isnan(a.rounds[k].plausibility));  // weight 0: no term
        CHECK(a.rounds[k].objective > a.rounds[k - 1].objective);
    }
    EvolutionRequest none{"ACGTTGCAAGGCTTACGA", 4, 0, 64};
    none.proposals = 6;
    CHECK_THROWS_WITH(evolve(pred, obj, checker, none), "drawn proposals need a language model");
}

TEST(variant_activity_is_alternative_minus_reference_on_each_window) {
    // An additive predictor over 12 positions: the change of one edit is its weight difference,
    // whatever the window, as long as the window holds the site.
    TablePredictor t;
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(-1, 1);
    t.w.assign(2, std::vector<std::array<double, 4>>(12));
    for (auto& out : t.w)
        for (auto& p : out)
            for (double& x : p) x = u(rng);
    const std::string seq = "ACGTTGCAACGT";
    const auto weight = [&](size_t k, size_t at, char b) { return t.w[k][at][size_t(std::string_view("ACGT").find(b))]; };
    const std::vector<BaseVariant> vs = {{0, 'A', 'G'}, {5, 0, 'T'}, {11, 't', 'c'}};
    VariantActivities whole = predict_variant_activity(t, seq, vs, "s");
    CHECK_EQ(whole.variants.size(), size_t(3));
    CHECK_EQ(t.calls, size_t(1));  // one batch: the reference once, the three alternatives
    for (size_t v = 0; v < vs.size(); ++v) {
        const VariantActivity& a = whole.variants[v];
        CHECK_EQ(a.window.start, size_t(0));
        CHECK_EQ(a.window.end, seq.size());
        CHECK_EQ(a.ref, seq[vs[v].position]);
        for (size_t k = 0; k < 2; ++k) {
            const double want = weight(k, a.position, a.alt) - weight(k, a.position, a.ref);
            CHECK(std::abs(a.change[k] - want) < 1e-12);
            CHECK(std::abs(a.alternative[k] - a.reference[k] - a.change[k]) < 1e-12);
        }
    }
    // Windows of 4 bases, moved inward at the ends (positions 0 and 11 sit at 0-3 and 8-11): the
    // predictor reads positions 0..3 of each window, so the change is the weight difference at
    // the site's place in its window; the reference is predicted once per distinct window.
    VariantActivities win = predict_variant_activity(t, seq, vs, "s", 4);
    for (size_t v = 0; v < vs.size(); ++v) {
        const VariantActivity& a = win.variants[v];
        CHECK_EQ(a.window.end - a.window.start, size_t(4));
        CHECK_EQ(a.window.start, (std::vector<size_t>{0, 3, 8}[v]));
        CHECK(a.window.start <= a.position && a.position < a.window.end);
        const size_t at = a.position - a.window.start;
        for (size_t k = 0; k < 2; ++k) CHECK(std::abs(a.change[k] - (weight(k, at, a.alt) - weight(k, at, a.ref))) < 1e-12);
    }
    // Refused before anything is predicted, naming the 1-based position.
    const size_t calls = t.calls;
    CHECK_THROWS_WITH(predict_variant_activity(t, seq, std::vector<BaseVariant>{{12, 0, 'A'}}, "s"), "s: position 13 is outside");
    CHECK_THROWS_WITH(predict_variant_activity(t, seq, std::vector<BaseVariant>{{1, 'A', 'G'}}, "s"), "position 2: the stated reference A is not the sequence's base C");
    CHECK_THROWS_WITH(predict_variant_activity(t, seq, std::vector<BaseVariant>{{1, 0, 'C'}}, "s"), "position 2: the alternative 'C' is not one of");
    CHECK_THROWS_WITH(predict_variant_activity(t, "ACNT", std::vector<BaseVariant>{{2, 0, 'C'}}, "s"), "position 3: the reference base is N");
    CHECK_THROWS_WITH(predict_variant_activity(t, seq, std::vector<BaseVariant>{{1, 0, 0x1b}}, "s"), "'\\x1b'");
    CHECK_EQ(t.calls, calls);
}

int main() { return check::run_all(); }
