// Directed evolution of a design under an activity predictor (gReLU's evolve(method="ism"), CODA's
// greedy rounds): from a start sequence, each round predicts every allowed single-base edit in
// batches and keeps the best if it raises the objective, until no edit does, the edit budget is
// spent or the rounds run out. Every candidate keeps the request's constraints (DesignChecker:
// the template's fixed and allowed bases, homopolymers, forbidden motifs and matrices across the
// junctions with the context and flank, required matrices, the GC window), so no round ever
// holds a design that breaks one. Deterministic: ties go to the earliest position, then base in
// A, C, G, T order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "carbon/generation/design_check.h"
#include "carbon/predict/activity_predictor.h"
#include "carbon/predict/objective.h"

namespace carbon {

struct EvolutionRequest {
    std::string start;      // the design to start from (upper-cased; it must keep the constraints)
    size_t budget = 10;     // positions that may differ from the start at the end of any round
    size_t max_rounds = 0;  // 0: as many as the budget allows
    size_t batch = 64;      // candidates per predictor call
};

struct EvolutionEdit {
    size_t position = 0;  // 0-based in the design
    char from = 0, to = 0;
};

struct EvolutionRound {
    size_t round = 0;             // 0: the start
    std::string bases;
    double objective = 0;
    std::vector<double> values;   // the predictor's outputs
    EvolutionEdit edit;           // the edit that made it (round >= 1)
    size_t candidates = 0;        // edits predicted in this round (those the constraints allowed)
    size_t refused = 0;           // edits the constraints or the budget refused
};

struct EvolutionResult {
    std::vector<EvolutionRound> rounds;  // rounds[0] is the start; the last is the best
    std::string stopped;                 // why it stopped, in words
    bool cancelled = false;
};

// Called within each round with (round, candidates predicted, candidates in the round); false cancels.
using EvolutionProgress = std::function<bool(size_t round, size_t done, size_t total)>;

// Error when the start is not checker.length() bases of A, C, G, T, or breaks a constraint (named,
// with the position).
EvolutionResult evolve(ActivityPredictor& predictor, const Objective& objective, const DesignChecker& checker,
                       const EvolutionRequest& request, const EvolutionProgress& progress = {});

}  // namespace carbon
