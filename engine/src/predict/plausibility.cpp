// The plausibility term of a design objective (carbon/predict/plausibility.h).
#include "carbon/predict/plausibility.h"

#include <algorithm>
#include <cmath>

#include "carbon/support/common.h"

namespace carbon {

Plausibility::Plausibility(Model& language_model, std::string tags, double weight) : model_(language_model), weight_(weight) {
    if (model_.config().sequence_head())
        throw Error(model_.checkpoint().dir().string() +
                    " is a sequence-regression checkpoint: it predicts activity, not bases, so it cannot say how plausible a design "
                    "is; give the Carbon language model for the plausibility term");
    if (!std::isfinite(weight)) throw Error("the plausibility weight must be a finite number");
    options_.tags = std::move(tags);
    options_.token_score = false;
    options_.per_base_track = false;
    options_.context_tokens = size_t(std::max(0, model_.config().max_position_embeddings));
}

std::vector<double> Plausibility::score(std::span<const std::string> sequences, const ScoreProgress& progress) {
    const std::vector<SequenceScore> s = score_sequences(model_.backend(), model_.tokenizer(), sequences, options_, progress);
    std::vector<double> out;
    for (const SequenceScore& x : s) {
        if (x.cancelled) return {};
        out.push_back(x.base_mean_logp);
    }
    return out;
}

std::vector<BaseScore> Plausibility::track(std::string_view sequence) {
    ScoreOptions o = options_;
    o.per_base_track = true;
    SequenceScore s = score_sequence(model_.backend(), model_.tokenizer(), sequence, o);
    if (s.cancelled) return {};
    return std::move(s.track);
}

std::vector<double> Plausibility::score_edits(std::string_view reference, std::span<const Mutation> edits, const ScoreProgress& progress) {
    MutantScores m = score_mutants(model_.backend(), model_.tokenizer(), reference, edits, options_, progress);
    if (m.cancelled) return {};
    return std::move(m.base_mean_logp);
}

}  // namespace carbon
