// Generate-and-rank: the designs of a generation run predicted by an activity predictor, ranked by
// an objective (rank 1 the highest) and the best kept, with their per-base tracks; the one
// implementation carbon-cli generate --objective and the application share. The predictor reads
// each design's own bases (the element that is made and measured), not the context or flank.
#pragma once

#include <string>

#include "carbon/predict/activity_predictor.h"
#include "carbon/predict/objective.h"
#include "carbon/runs/generation_run.h"

namespace carbon::runs {

struct RankingRequest {
    std::string predictor_name;  // how the run names the predictor (stored with it)
    size_t keep = 0;             // the best this many; 0: all, ranked
    size_t batch = 16;           // designs per predictor call
    // The plausibility term: the objective plus weight x each design's design_logp (the base-level
    // mean log p of its bases, read in place under the run's tags as generation scored it).
    double plausibility_weight = 0;
};

// Sets run.ranking, reorders run.result.designs (and run.tracks) best first, sets each design's
// rank (1-based, by objective; ties keep the generation's order), and drops all but the best
// `keep`. A cancelled prediction (progress returning false) leaves the run as it was and returns
// false. Error when the run has no designs to rank.
bool rank_by_objective(GenerationRun& run, ActivityPredictor& predictor, const Objective& objective, const RankingRequest& request,
                       const PredictProgress& progress = {});

}  // namespace carbon::runs
