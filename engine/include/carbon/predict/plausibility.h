// The plausibility term of a design objective: Carbon's base-level mean log-likelihood S of a
// design (the mean over its bases of log p(base), the FNS marginal under chosen metadata tags;
// docs/fns.md), weighted and added to what the activity predictor's objective gives, so that an
// optimiser keeps its designs in the language model's distribution (regLM's evolution kept within
// the model's tolerance). The model must be a Carbon language model (a regression checkpoint has
// no language-model head: refused).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/model.h"
#include "carbon/scoring/scoring.h"

namespace carbon {

class Plausibility {
public:
    // `tags`: the metadata text before <dna> (may be empty); `weight` multiplies S in the
    // objective (any finite number; 0 computes S and adds nothing). Error naming the model's
    // folder when it is a regression checkpoint.
    Plausibility(Model& language_model, std::string tags, double weight);
    double weight() const { return weight_; }
    const std::string& tags() const { return options_.tags; }
    Model& model() { return model_; }

    // S of each sequence (score_sequences). Progress: (bases done, bases total). Empty when cancelled.
    std::vector<double> score(std::span<const std::string> sequences, const ScoreProgress& progress = {});
    // The per-base track of `sequence` (score_sequence with the per-base FNS marginals: BaseScore::p
    // in A, T, C, G order); empty when the sequence cannot be scored.
    std::vector<BaseScore> track(std::string_view sequence);
    // S of each single-base edit of `reference`, each forked from the reference's cache before its
    // 6-mer (score_mutants). Progress: (tokens forwarded, tokens planned). Empty when cancelled.
    std::vector<double> score_edits(std::string_view reference, std::span<const Mutation> edits, const ScoreProgress& progress = {});

private:
    Model& model_;
    ScoreOptions options_;
    double weight_ = 0;
};

}  // namespace carbon
