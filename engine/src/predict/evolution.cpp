// evolve (carbon/predict/evolution.h).
#include "carbon/predict/evolution.h"

#include <cctype>

#include "carbon/support/common.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

namespace {

constexpr char kBases[4] = {'A', 'C', 'G', 'T'};

size_t distance(const std::string& a, const std::string& b) {
    size_t d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
}

}  // namespace

EvolutionResult evolve(ActivityPredictor& predictor, const Objective& objective, const DesignChecker& checker,
                       const EvolutionRequest& request, const EvolutionProgress& progress) {
    std::string start = request.start;
    for (char& c : start) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (start.size() != checker.length())
        throw Error("the start has " + std::to_string(start.size()) + " bases; the design has " + std::to_string(checker.length()));
    for (size_t i = 0; i < start.size(); ++i)
        if (start[i] != 'A' && start[i] != 'C' && start[i] != 'G' && start[i] != 'T')
            throw Error("the start has '" + std::string(1, request.start[i]) + "' at position " + std::to_string(i + 1) +
                        ": evolution edits A, C, G, T");
    size_t where = 0;
    if (!checker.allows(start, &where))
        throw Error("the start breaks the design's constraints at position " + std::to_string(where + 1) +
                    " (template, homopolymer, forbidden or required motif, or GC window): every round keeps them, so the start must too");

    EvolutionResult result;
    const size_t batch = std::max<size_t>(1, request.batch);
    auto predict = [&](const std::vector<std::string>& seqs, size_t round, std::vector<std::vector<double>>& values) -> bool {
        values.clear();
        for (size_t b0 = 0; b0 < seqs.size(); b0 += batch) {
            const size_t b1 = std::min(seqs.size(), b0 + batch);
            const std::vector<std::string> part(seqs.begin() + long(b0), seqs.begin() + long(b1));
            Predictions p = predictor.predict(part, {}, batch);
            if (p.cancelled) return false;
            for (auto& v : p.values) values.push_back(std::move(v));
            if (progress && !progress(round, b1, seqs.size())) return false;
        }
        return true;
    };
    std::vector<std::vector<double>> values;
    if (!predict({start}, 0, values)) {
        result.cancelled = true;
        return result;
    }
    EvolutionRound r0;
    r0.bases = start;
    r0.values = values[0];
    r0.objective = objective(values[0]);
    result.rounds.push_back(r0);

    for (size_t round = 1;; ++round) {
        if (request.max_rounds && round > request.max_rounds) {
            result.stopped = "the " + std::to_string(request.max_rounds) + " rounds asked for are done";
            break;
        }
        const std::string& cur = result.rounds.back().bases;
        const size_t used = distance(cur, start);
        std::vector<std::string> cands;
        std::vector<EvolutionEdit> edits;
        size_t refused = 0, over_budget = 0;
        for (size_t i = 0; i < cur.size(); ++i) {
            const BaseMask allowed = checker.allowed(i);
            for (char b : kBases) {
                if (b == cur[i] || (base_bit(base_code(b)) & allowed) == 0) continue;
                // An edit at an unedited position spends one of the budget; one back to the start's base gives one back.
                const size_t after = used + (cur[i] == start[i] ? 1 : 0) - (b == start[i] ? 1 : 0);
                std::string c = cur;
                c[i] = b;
                if (after > request.budget) {
                    ++refused, ++over_budget;
                    continue;
                }
                if (!checker.allows(c)) {
                    ++refused;
                    continue;
                }
                cands.push_back(std::move(c));
                edits.push_back({i, cur[i], b});
            }
        }
        if (cands.empty()) {
            result.stopped = over_budget > 0 ? "the edit budget of " + std::to_string(request.budget) +
                                                   " is spent, and no edit within it keeps the constraints"
                                             : "no single-base edit keeps the constraints";
            break;
        }
        if (!predict(cands, round, values)) {
            result.cancelled = true;
            result.stopped = "cancelled";
            break;
        }
        size_t best = 0;
        double best_obj = objective(values[0]);
        for (size_t k = 1; k < cands.size(); ++k) {
            const double o = objective(values[k]);
            if (o > best_obj) best = k, best_obj = o;
        }
        if (!(best_obj > result.rounds.back().objective)) {
            result.stopped = "no single-base edit raises the objective (a local optimum under the constraints and the budget)";
            break;
        }
        EvolutionRound r;
        r.round = round;
        r.bases = cands[best];
        r.values = values[best];
        r.objective = best_obj;
        r.edit = edits[best];
        r.candidates = cands.size();
        r.refused = refused;
        result.rounds.push_back(std::move(r));
    }
    return result;
}

}  // namespace carbon
