// A scoring run in bounded groups (see scoring_run.h).
#include "carbon/runs/scoring_run.h"

namespace carbon::runs {

size_t score_in_groups(Model& model, size_t count, ScoreOptions options, const ScoringRunCallbacks& cb) {
    options.context_tokens = size_t(model.config().max_position_embeddings);
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += cb.sequence(i).size();
    size_t done_before = 0;
    for (size_t first = 0; first < count;) {
        size_t last = first, bases = 0;
        while (last < count && (last == first || (bases < (1u << 20) && last - first < 256))) bases += cb.sequence(last++).size();
        std::vector<std::string> group;
        group.reserve(last - first);
        for (size_t i = first; i < last; ++i) group.push_back(cb.sequence(i));
        bool stopped = false;
        std::vector<SequenceScore> scores =
            score_sequences(model.backend(), model.tokenizer(), group, options, [&](size_t done, size_t) {
                if (!cb.progress || cb.progress(done_before + done, total)) return true;
                stopped = true;
                return false;
            });
        if (cb.on_group) cb.on_group(first, scores);
        if (stopped) return done_before;
        done_before += bases;
        first = last;
    }
    return done_before;
}

}  // namespace carbon::runs
