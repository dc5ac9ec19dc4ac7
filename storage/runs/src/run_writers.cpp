// The writers of runs into a project (see run_writers.h).
#include "carbon/runs/run_writers.h"

#include "carbon/runs/run_records.h"

namespace carbon::runs {

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

}  // namespace carbon::runs
