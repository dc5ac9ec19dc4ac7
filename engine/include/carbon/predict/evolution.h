// Directed evolution of a design under an activity predictor (gReLU's evolve(method="ism"), CODA's
// greedy rounds): from a start sequence, each round predicts every allowed single-base edit in
// batches and keeps the best if it raises the objective, until no edit does, the edit budget is
// spent or the rounds run out. Every candidate keeps the request's constraints (DesignChecker:
// the template's fixed and allowed bases, homopolymers, forbidden motifs and matrices across the
// junctions with the context and flank, required matrices, the GC window), so no round ever
// holds a design that breaks one. Deterministic: ties go to the earliest position, then base in
// A, C, G, T order.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <limits>
#include <string>
#include <vector>

#include "carbon/generation/design_check.h"
#include "carbon/predict/activity_predictor.h"
#include "carbon/predict/objective.h"
#include "carbon/predict/plausibility.h"

namespace carbon {

struct EvolutionRequest {
    std::string start;      // the design to start from (upper-cased; it must keep the constraints)
    size_t budget = 10;     // positions that may differ from the start at the end of any round
    size_t max_rounds = 0;  // 0: as many as the budget allows
    size_t batch = 64;      // candidates per predictor call
    // The plausibility term (plausibility.h): when set with a weight other than 0, the objective
    // is the predictor's objective plus weight x S, S the language model's base-level mean log p
    // of the design under its tags. Its model also draws the proposals.
    Plausibility* plausibility = nullptr;
    // 0: every allowed single-base edit is a candidate. N > 0: N of them, drawn without
    // replacement with probability proportional to the language model's FNS marginal p(b) of the
    // new base b at its position of the current design, read in place under the plausibility's
    // tags (edits Carbon finds likely are proposed more often); needs `plausibility` (weight 0
    // proposes without adding the term). Draws are seeded: `seed` and the round.
    size_t proposals = 0;
    uint64_t seed = 0;
};

// `n` distinct indices of `weights` (those > 0 only), drawn without replacement with probability
// proportional to the weights (Efraimidis-Spirakis keys u^(1/w) from SplitMix64(seed)); all of
// them, in index order, when n is at least their count. In index order.
std::vector<size_t> draw_weighted(std::span<const double> weights, size_t n, uint64_t seed);

struct EvolutionEdit {
    size_t position = 0;  // 0-based in the design
    char from = 0, to = 0;
};

struct EvolutionRound {
    size_t round = 0;             // 0: the start
    std::string bases;
    double objective = 0;         // what is maximised: predicted + weight x plausibility
    double predicted = 0;         // the objective of the predictor's outputs alone
    double plausibility = std::numeric_limits<double>::quiet_NaN();  // S of the design; NaN without the term
    std::vector<double> values;   // the predictor's outputs
    EvolutionEdit edit;           // the edit that made it (round >= 1)
    size_t candidates = 0;        // edits predicted in this round (those the constraints allowed, or the proposals drawn from them)
    size_t refused = 0;           // edits the constraints or the budget refused
    size_t tokens_forwarded = 0;  // tokens the model forwarded for the round's candidates (0: not counted)
};

struct EvolutionResult {
    std::vector<EvolutionRound> rounds;  // rounds[0] is the start; the last is the best
    std::string stopped;                 // why it stopped, in words
    std::vector<std::string> held_out;   // per output: the predictor's held-out accuracy ("" when not known)
    bool cancelled = false;
};

// Called within each round with (round, candidates predicted, candidates in the round); false cancels.
using EvolutionProgress = std::function<bool(size_t round, size_t done, size_t total)>;

// Error when the start is not checker.length() bases of A, C, G, T, or breaks a constraint (named,
// with the position).
EvolutionResult evolve(ActivityPredictor& predictor, const Objective& objective, const DesignChecker& checker,
                       const EvolutionRequest& request, const EvolutionProgress& progress = {});

}  // namespace carbon
