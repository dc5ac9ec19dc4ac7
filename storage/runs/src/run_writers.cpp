// The writers of runs into a project (see run_writers.h).
#include "carbon/runs/run_writers.h"

#include "carbon/runs/run_records.h"

#include <cstdio>

namespace carbon::runs {

namespace {

std::string tsv_free_number(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

}  // namespace

StoredGeneration write_generation_run(storage::Project& p, const GenerationRun& run, const DesignedIn& in,
                                      const RunSettings& extra, std::vector<std::string>& notes) {
    const DesignRequest& req = run.request;
    int64_t sequence_id = 0;
    if (in.sequence_id && p.sequence(in.sequence_id)) sequence_id = in.sequence_id;
    else if (!in.context_origin.empty() && !req.left_context.empty())
        sequence_id = sequence_id_for(p, {"context", "left context of a generation run", req.left_context}, in.context_origin, notes);
    RunSettings all = generation_settings(req);
    all.insert(all.end(), extra.begin(), extra.end());
    all.emplace_back("draft", run.draft_dir);
    if (run.result.speculative.used) all.emplace_back("draft_tokens", std::to_string(run.draft_tokens));
    for (auto& kv : speculative_settings(run.result.speculative)) all.push_back(std::move(kv));
    if (const auto& r = run.ranking) {  // generate-and-rank: what ranked the designs
        all.emplace_back("ranked_by", r->predictor);
        all.emplace_back("objective", r->objective);
        all.emplace_back("objective_described", r->objective_described);
        all.emplace_back("proposed", std::to_string(r->proposed));
        all.emplace_back("kept", std::to_string(r->kept));
        all.emplace_back("plausibility_weight", tsv_free_number(r->plausibility_weight));
    }
    StoredGeneration stored;
    stored.run_id = p.begin_run(make_run(run.model_dir, run.backend, "generate", req.sampling.seed, std::move(all)));
    const std::vector<Design>& designs = run.result.designs;
    for (size_t i = 0; i < designs.size(); ++i) {
        std::vector<storage::Track> tracks;
        if (i < run.tracks.size()) tracks = base_score_tracks(run.tracks[i]);
        storage::DesignRecord rec = design_record(designs[i], stored.run_id, sequence_id);
        if (run.ranking && i < run.ranking->values.size()) {
            const ObjectiveRanking& r = *run.ranking;
            rec.objective = r.objective_values[i];
            for (size_t k = 0; k < r.outputs.size(); ++k) rec.predictions.push_back({r.predictor, r.outputs[k], r.values[i][k], r.held_out[k]});
        }
        stored.design_ids.push_back(p.add_design(std::move(rec), std::move(tracks), design_regions(req.template_iupac, designs[i].bases.size())));
    }
    p.finish_run(stored.run_id, run.result.cancelled ? "cancelled" : "finished", run.bases_per_second);
    return stored;
}

int64_t write_scores(storage::Project& p, const Model& model, const std::vector<NamedSequence>& records,
                     const std::vector<SequenceScore>& scores, const RunSettings& settings, double bases_per_second,
                     std::vector<std::string>& notes) {
    const int64_t run_id = p.begin_run(make_run(model, "score", 0, settings));
    for (size_t i = 0; i < records.size() && i < scores.size(); ++i) {
        const int64_t sid = sequence_id_for(p, records[i], "carbon-cli score", notes);
        for (storage::Track& tr : base_score_tracks(scores[i].track)) {
            tr.sequence_id = sid;
            p.add_track(tr);
        }
    }
    p.finish_run(run_id, "finished", bases_per_second);
    return run_id;
}

int64_t write_variant(storage::Project& p, const Model& model, const NamedSequence& record, const VariantScore& v,
                      const RunSettings& settings, std::vector<std::string>& notes) {
    const int64_t run_id = p.begin_run(make_run(model, "variant", 0, settings));
    std::vector<storage::VariantRecord> vs(1);
    vs[0].sequence_id = sequence_id_for(p, record, "carbon-cli variant", notes);
    vs[0].run_id = run_id;
    vs[0].position = int64_t(v.position);
    vs[0].ref = v.ref;
    vs[0].alt = v.alt;
    vs[0].site_log_odds = v.site_log_odds;
    vs[0].window_start = int64_t(v.window.start);
    vs[0].window_end = int64_t(v.window.end);
    vs[0].window_delta = v.window_delta;
    vs[0].window_delta_rc = v.window_delta_rc;
    p.add_variants(vs);
    p.finish_run(run_id, v.cancelled ? "cancelled" : "finished", 0);
    return run_id;
}

int64_t write_ism(storage::Project& p, const Model& model, const NamedSequence& record, const IsmResult& r,
                  const RunSettings& settings, std::vector<std::string>& notes) {
    const int64_t run_id = p.begin_run(make_run(model, "ism", 0, settings));
    const int64_t sid = sequence_id_for(p, record, "carbon-cli ism", notes);
    std::vector<storage::VariantRecord> vs;
    for (const IsmEntry& e : r.entries) {
        storage::VariantRecord v;
        v.sequence_id = sid;
        v.run_id = run_id;
        v.position = int64_t(e.position);
        v.ref = e.ref;
        v.alt = e.alt;
        v.ism_score = e.score;
        v.window_start = int64_t(r.window.start);
        v.window_end = int64_t(r.window.end);
        vs.push_back(v);
    }
    p.add_variants(vs);
    p.finish_run(run_id, r.cancelled ? "cancelled" : "finished", 0);
    return run_id;
}

namespace {

// The run (its identity given) and one design per round, in `sequence_id` from `region_start`.
StoredEvolution write_rounds(storage::Project& p, storage::Run run, int64_t sequence_id, size_t region_start, size_t region_length,
                             const EvolutionResult& result, const EvolutionRecord& what) {
    RunSettings& all = run.settings;
    all.emplace_back("predictor", what.predictor);
    all.emplace_back("objective", what.objective);
    all.emplace_back("objective_described", what.objective_described);
    all.emplace_back("budget", std::to_string(what.budget));
    all.emplace_back("rounds", std::to_string(result.rounds.empty() ? 0 : result.rounds.size() - 1));
    all.emplace_back("stopped", result.stopped);
    // Each round's design is the region evolved: opening one in the application replaces the
    // region's bases.
    all.emplace_back("sequence_id", std::to_string(sequence_id));
    all.emplace_back("region_start", std::to_string(region_start));
    all.emplace_back("region_length", std::to_string(region_length));
    StoredEvolution stored;
    stored.run_id = p.begin_run(run);
    const std::string first = result.rounds.empty() ? std::string() : result.rounds.front().bases;
    std::vector<size_t> edited_in(first.size(), 0);  // the round that last changed each base
    for (const EvolutionRound& r : result.rounds) {
        storage::DesignRecord d;
        d.run_id = stored.run_id;
        d.sequence_id = sequence_id;
        d.bases = r.bases;
        d.rank = int(r.round);
        d.objective = r.objective;
        if (r.round == 0) {
            d.name = "start";
        } else {
            d.name = "round " + std::to_string(r.round) + ": " + std::to_string(r.edit.position + 1) + r.edit.from + ">" + r.edit.to;
            if (r.edit.position < edited_in.size()) edited_in[r.edit.position] = r.round;
        }
        for (size_t k = 0; k < what.outputs.size() && k < r.values.size(); ++k)
            d.predictions.push_back({what.predictor, what.outputs[k], r.values[k], k < what.held_out.size() ? what.held_out[k] : ""});
        if (!what.plausibility_model.empty())  // the plausibility term: S of the design, beside the outputs
            d.predictions.push_back({what.plausibility_model, "plausibility S", r.plausibility, ""});
        std::vector<storage::Region> regions;
        for (size_t i = 0; i < r.bases.size() && i < first.size(); ++i)
            if (r.bases[i] != first[i]) {
                storage::Region g;
                g.kind = storage::RegionKind::Annotation;
                g.start = int64_t(i);
                g.end = int64_t(i + 1);
                g.label = std::string(1, first[i]) + ">" + r.bases[i] + ", round " + std::to_string(edited_in[i]);
                regions.push_back(std::move(g));
            }
        stored.design_ids.push_back(p.add_design(std::move(d), {}, std::move(regions)));
    }
    p.finish_run(stored.run_id, result.cancelled ? "cancelled" : "finished", 0);
    return stored;
}

}  // namespace

int64_t write_evolution(storage::Project& p, const Model& model, const NamedSequence& start, const EvolutionResult& result,
                        const EvolutionRecord& what, const RunSettings& settings, std::vector<std::string>& notes) {
    const int64_t sequence_id = sequence_id_for(p, start, "carbon-cli evolve", notes);
    return write_rounds(p, make_run(model, "evolve", 0, settings), sequence_id, 0, start.bases.size(), result, what).run_id;
}

StoredEvolution write_evolution(storage::Project& p, const std::filesystem::path& model_dir, const std::string& backend,
                                const EvolvedRegion& region, const EvolutionResult& result, const EvolutionRecord& what,
                                const RunSettings& settings) {
    const int64_t sequence_id = region.sequence_id && p.sequence(region.sequence_id) ? region.sequence_id : 0;
    const size_t length = result.rounds.empty() ? 0 : result.rounds.front().bases.size();
    return write_rounds(p, make_run(model_dir, backend, "evolve", 0, settings), sequence_id, region.region_start, length, result, what);
}

}  // namespace carbon::runs
