// A scoring run over many sequences (carbon-cli score): the sequences go to the engine in groups
// (it batches short ones into shared forward passes) of at most 256 sequences or about 1 Mbp, and
// each group's scores are handed on before the next group is scored, so memory stays bounded on a
// file of any size. Engine only; the writer of a scoring run is in run_writers.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "carbon/model.h"
#include "carbon/scoring/scoring.h"

namespace carbon::runs {

struct ScoringRunCallbacks {
    // Sequence i of the run (read as the engine needs it; must stay valid until its group is done).
    std::function<const std::string&(size_t)> sequence;
    // The scores of sequences [first, first + scores.size()), in order; may take them.
    std::function<void(size_t first, std::vector<SequenceScore>& scores)> on_group;
    // Bases scored so far over the whole run and the run's total; return false to stop.
    std::function<bool(size_t done, size_t total)> progress;
};

// Scores `count` sequences with `options` (context_tokens set from the model). Returns the bases
// scored (all of them, or up to where progress stopped the run).
size_t score_in_groups(Model& model, size_t count, ScoreOptions options, const ScoringRunCallbacks& callbacks);

}  // namespace carbon::runs
