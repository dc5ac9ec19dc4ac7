// Generate-and-rank (carbon/runs/objective_ranking.h).
#include "carbon/runs/objective_ranking.h"

#include <algorithm>
#include <numeric>

#include "carbon/support/common.h"

namespace carbon::runs {

bool rank_by_objective(GenerationRun& run, ActivityPredictor& predictor, const Objective& objective, const RankingRequest& request,
                       const PredictProgress& progress) {
    std::vector<Design>& designs = run.result.designs;
    if (designs.empty()) throw Error("no designs to rank: the run made none");
    std::vector<std::string> bases, names;
    for (const Design& d : designs) {
        bases.push_back(d.bases);
        names.push_back("design " + std::to_string(d.index + 1));
    }
    const Predictions p = predictor.predict(bases, names, request.batch, progress);
    if (p.cancelled) return false;
    std::vector<double> score(designs.size());
    for (size_t i = 0; i < designs.size(); ++i) score[i] = objective(p.values[i]) + request.plausibility_weight * designs[i].design_logp;
    std::vector<size_t> order(designs.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return score[x] > score[y]; });
    const size_t keep = request.keep ? std::min(request.keep, order.size()) : order.size();

    ObjectiveRanking r;
    r.predictor = request.predictor_name;
    r.objective = objective.spec;
    r.outputs = p.outputs;
    r.objective_described = objective.describe(p.outputs);
    r.held_out = p.held_out;
    r.held_out.resize(r.outputs.size());
    r.proposed = designs.size();
    r.kept = keep;
    r.plausibility_weight = request.plausibility_weight;
    std::vector<Design> kept_designs;
    std::vector<std::vector<BaseScore>> kept_tracks;
    for (size_t k = 0; k < keep; ++k) {
        const size_t i = order[k];
        kept_designs.push_back(std::move(designs[i]));
        kept_designs.back().rank = int(k + 1);
        if (i < run.tracks.size()) kept_tracks.push_back(std::move(run.tracks[i]));
        r.values.push_back(p.values[i]);
        r.objective_values.push_back(score[i]);
    }
    designs = std::move(kept_designs);
    run.tracks = std::move(kept_tracks);
    run.ranking = std::move(r);
    return true;
}

}  // namespace carbon::runs
