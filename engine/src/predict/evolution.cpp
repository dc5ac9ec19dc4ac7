// evolve (carbon/predict/evolution.h).
#include "carbon/predict/evolution.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "carbon/support/common.h"
#include "carbon/tokenizer/tokenizer.h"
#include "splitmix.h"

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
    // One call per round: the candidates are the current design with one base changed, so the
    // predictor forks each from the design's cache at its edit (predict_near).
    size_t tokens = 0;
    auto predict = [&](const std::string& reference, const std::vector<std::string>& seqs, size_t round,
                       std::vector<std::vector<double>>& values) -> bool {
        Predictions p = predictor.predict_near(reference, seqs, {}, batch, [&](size_t done, size_t total) {
            return !progress || progress(round, done, total);
        });
        tokens = p.tokens_forwarded;
        if (round == 0) result.held_out = p.held_out;
        if (p.cancelled) return false;
        values = std::move(p.values);
        // Once more at the round's end: cancelling holds whether or not the predictor reports progress.
        return !progress || progress(round, seqs.size(), seqs.size());
    };
    Plausibility* plausible = request.plausibility;
    if (request.proposals && !plausible)
        throw Error("drawn proposals need a language model to draw them from (EvolutionRequest::plausibility)");
    // The term itself only with a weight; the model may be there for the proposals alone.
    Plausibility* term = plausible && plausible->weight() != 0 ? plausible : nullptr;
    std::vector<std::vector<double>> values;
    if (!predict(start, {start}, 0, values)) {
        result.cancelled = true;
        return result;
    }
    EvolutionRound r0;
    r0.bases = start;
    r0.values = values[0];
    r0.predicted = objective(values[0]);
    r0.tokens_forwarded = tokens;
    r0.objective = r0.predicted;
    if (term) {
        const std::vector<double> s = term->score(std::vector<std::string>{start});
        if (s.empty()) {
            result.cancelled = true;
            return result;
        }
        r0.plausibility = s[0];
        r0.objective += term->weight() * s[0];
    }
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
        const bool drawn = request.proposals && cands.size() > request.proposals;
        if (drawn) {
            // Proposals: the allowed edits drawn by the language model's per-base distributions.
            const std::vector<BaseScore> track = plausible->track(cur);
            if (track.size() != cur.size()) {
                result.cancelled = true;
                result.stopped = "cancelled";
                break;
            }
            std::vector<double> w(cands.size());
            for (size_t k = 0; k < cands.size(); ++k) w[k] = double(track[edits[k].position].p[size_t(base_code(edits[k].to))]);
            const std::vector<size_t> keep = draw_weighted(w, request.proposals, request.seed * 0x9e3779b97f4a7c15ull + round);
            std::vector<std::string> kept_cands;
            std::vector<EvolutionEdit> kept_edits;
            for (size_t k : keep) {
                kept_cands.push_back(std::move(cands[k]));
                kept_edits.push_back(edits[k]);
            }
            refused += cands.size() - keep.size();
            cands = std::move(kept_cands);
            edits = std::move(kept_edits);
        }
        if (cands.empty()) {
            result.stopped = over_budget > 0 ? "the edit budget of " + std::to_string(request.budget) +
                                                   " is spent, and no edit within it keeps the constraints"
                                             : "no single-base edit keeps the constraints";
            break;
        }
        if (!predict(cur, cands, round, values)) {
            result.cancelled = true;
            result.stopped = "cancelled";
            break;
        }
        std::vector<double> s;  // S of each candidate, forked from the current design's cache
        if (term) {
            std::vector<Mutation> muts;
            for (const EvolutionEdit& e : edits) muts.push_back({e.position, e.to});
            s = term->score_edits(cur, muts, [&](size_t, size_t) { return !progress || progress(round, cands.size(), cands.size()); });
            if (s.size() != cands.size()) {
                result.cancelled = true;
                result.stopped = "cancelled";
                break;
            }
        }
        auto total = [&](size_t k) { return objective(values[k]) + (term ? term->weight() * s[k] : 0.0); };
        size_t best = 0;
        double best_obj = total(0);
        for (size_t k = 1; k < cands.size(); ++k) {
            const double o = total(k);
            if (o > best_obj) best = k, best_obj = o;
        }
        if (!(best_obj > result.rounds.back().objective)) {
            result.stopped = drawn ? "none of the " + std::to_string(cands.size()) +
                                         " drawn proposals raises the objective (the other edits were not tried; another seed draws others)"
                                   : "no single-base edit raises the objective (a local optimum under the constraints and the budget)";
            break;
        }
        EvolutionRound r;
        r.round = round;
        r.bases = cands[best];
        r.values = values[best];
        r.objective = best_obj;
        r.predicted = objective(values[best]);
        if (term) r.plausibility = s[best];
        r.edit = edits[best];
        r.candidates = cands.size();
        r.refused = refused;
        r.tokens_forwarded = tokens;
        result.rounds.push_back(std::move(r));
    }
    return result;
}

std::vector<size_t> draw_weighted(std::span<const double> weights, size_t n, uint64_t seed) {
    std::vector<std::pair<double, size_t>> keyed;  // log(u) / w: the largest n are the draw
    SplitMix64 rng{seed};
    for (size_t i = 0; i < weights.size(); ++i) {
        const double u = rng.uniform();  // one draw per index, so a draw does not depend on the others' weights
        if (weights[i] > 0 && std::isfinite(weights[i])) keyed.push_back({std::log(u) / weights[i], i});
    }
    if (n < keyed.size()) {
        std::partial_sort(keyed.begin(), keyed.begin() + long(n), keyed.end(),
                          [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        keyed.resize(n);
    }
    std::vector<size_t> out;
    for (const auto& k : keyed) out.push_back(k.second);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace carbon
