// specificity_track (scoring.h): two scoring passes of one sequence, under the positive and the
// negative tags, with chain-rule per-base values, subtracted base by base.
#include <cmath>
#include <limits>

#include "carbon/scoring/scoring.h"

namespace carbon {

std::vector<float> specificity_track(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence,
                                     const std::string& positive_tags, const std::string& negative_tags, ScoreOptions options,
                                     const ScoreProgress& progress) {
    if (positive_tags == negative_tags) throw Error("a specificity track needs two different tag sets");
    options.conditional_bases = true;
    options.per_base_track = true;
    options.token_score = false;
    SequenceScore side[2];
    for (int s = 0; s < 2; ++s) {
        options.tags = s == 0 ? positive_tags : negative_tags;
        // Progress over both passes: the second pass counts from the sequence's length on.
        const ScoreProgress half = [&, s](size_t done, size_t total) {
            return !progress || progress(done + size_t(s) * total, 2 * total);
        };
        side[s] = score_sequence(backend, tokenizer, sequence, options, half);
        if (side[s].cancelled) return {};
    }
    std::vector<float> out(sequence.size(), std::numeric_limits<float>::quiet_NaN());
    for (size_t i = 0; i < out.size() && i < side[0].track.size() && i < side[1].track.size(); ++i)
        out[i] = side[0].track[i].logp - side[1].track[i].logp;  // NaN stays NaN
    return out;
}

}  // namespace carbon
