// Engine results as project records (see engine_results.h).
#include "carbon/storage/engine_results.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "carbon/model.h"

namespace carbon::storage {

std::string file_hash(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return "";
    uint64_t h = 1469598103934665603ull;
    char buf[1 << 14];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
        for (std::streamsize i = 0; i < f.gcount(); ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
        if (!f) break;
    }
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return out;
}

Run make_run(const Model& model, const std::string& kind, uint64_t seed, RunSettings settings) {
    return make_run(model.checkpoint().dir(), model.backend().describe(), kind, seed, std::move(settings));
}

Run make_run(const std::filesystem::path& dir, const std::string& backend, const std::string& kind, uint64_t seed,
             RunSettings settings) {
    Run r;
    r.kind = kind;
    r.model_path = std::filesystem::absolute(dir).string();
    r.model_config_hash = file_hash(dir / "config.json");
    const std::string tok = file_hash(dir / "tokenizer.json");
    r.tokenizer_hash = tok.empty() ? file_hash(dir / "tokenizer_config.json") : tok;
    r.backend = backend;
    r.seed = seed;
    r.engine_version = CARBON_VERSION;
    r.settings = std::move(settings);
    return r;
}

RunSettings generation_settings(const DesignRequest& req) {
    std::string forbid;
    for (const std::string& m : req.constraints.forbidden_motifs) forbid += (forbid.empty() ? "" : ",") + m;
    RunSettings s = {{"mode", generation_mode_name(req.mode)},
                     {"tags", req.tags},
                     {"left_context", req.left_context},
                     {"right_flank", req.right_flank},
                     {"length", std::to_string(req.length)},
                     {"template", req.template_iupac},
                     {"count", std::to_string(req.count)},
                     {"temperature", std::to_string(req.sampling.temperature)},
                     {"top_p", std::to_string(req.sampling.top_p)},
                     {"seed", std::to_string(req.sampling.seed)},
                     {"max_homopolymer", std::to_string(req.constraints.max_homopolymer)},
                     {"forbid", forbid},
                     {"gc_min", std::to_string(req.constraints.gc_min)},
                     {"gc_max", std::to_string(req.constraints.gc_max)},
                     {"max_backtracks", std::to_string(req.max_backtracks)}};
    // Matrices by name and threshold: "p <= P" and/or ">= S bits".
    auto threshold = [](double min_score, double max_pvalue) {
        std::ostringstream t;
        if (max_pvalue < 1.0) t << " p <= " << max_pvalue;
        if (min_score > -1e299) t << " >= " << min_score << " bits";
        return t.str();
    };
    std::string forbidden, required;
    for (const ForbiddenMatrix& f : req.constraints.forbidden_matrices)
        forbidden += (forbidden.empty() ? "" : "; ") + f.label + threshold(f.min_score, f.max_pvalue);
    for (const RequiredMatrix& f : req.constraints.required_matrices)
        required += (required.empty() ? "" : "; ") + f.label + threshold(f.min_score, f.max_pvalue) + " in " +
                    std::to_string(f.from + 1) + "-" + (f.to ? std::to_string(f.to) : std::string("end"));
    if (!forbidden.empty()) s.emplace_back("forbidden_matrices", forbidden);
    if (!required.empty()) s.emplace_back("required_matrices", required);
    if (req.guidance.active()) {
        s.emplace_back("guidance", guidance_mode_name(req.guidance.mode));
        s.emplace_back("guidance_w", std::to_string(req.guidance.w));
        if (!req.guidance.negative_tags.empty()) s.emplace_back("negative_tags", req.guidance.negative_tags);
    }
    return s;
}

RunSettings speculative_settings(const SpeculativeStats& ss) {
    if (!ss.used) return {};
    return {{"spec_verify", speculative_verify_name(ss.verify)},
            {"spec_drafted", std::to_string(ss.drafted)},
            {"spec_accepted", std::to_string(ss.accepted)},
            {"spec_acceptance_rate", std::to_string(ss.acceptance_rate())},
            {"spec_tokens_per_target_pass", std::to_string(ss.tokens_per_target_pass())},
            {"spec_speedup", std::to_string(ss.speedup())},
            {"spec_disabled", ss.disabled ? ss.disabled_reason : "no"}};
}

std::vector<Region> design_regions(const std::string& template_iupac, size_t length) {
    std::vector<Region> regions(1);
    regions[0].kind = RegionKind::Design;
    regions[0].end = int64_t(length);
    regions[0].template_iupac = template_iupac;
    for (size_t i = 0; i < template_iupac.size();) {
        const bool fixed = std::strchr("ACGT", template_iupac[i]) != nullptr;
        size_t j = i + 1;
        while (fixed && j < template_iupac.size() && std::strchr("ACGT", template_iupac[j])) ++j;
        if (fixed) {
            Region pin;
            pin.kind = RegionKind::Pinned;
            pin.start = int64_t(i);
            pin.end = int64_t(j);
            pin.label = template_iupac.substr(i, j - i);
            regions.push_back(pin);
        }
        i = j;
    }
    return regions;
}

std::vector<Track> base_score_tracks(const std::vector<BaseScore>& scores) {
    if (scores.empty()) return {};
    auto make = [](const char* kind, int width) {
        Track t;
        t.kind = kind;
        t.width = width;
        t.dtype = width == 4 ? TrackDType::F16 : TrackDType::F32;
        return t;
    };
    Track logp = make("logp", 1), dist = make("dist_acgt", 4), ent = make("entropy_bits", 1);
    for (const BaseScore& b : scores) {
        logp.values.push_back(b.logp);
        // The engine's order is A, T, C, G (the 6-mer index); stored A, C, G, T as users read them.
        for (int k : {0, 2, 3, 1}) dist.values.push_back(b.p[size_t(k)]);
        ent.values.push_back(b.entropy_bits);
    }
    return {std::move(logp), std::move(dist), std::move(ent)};
}

DesignRecord design_record(const Design& d, int64_t run_id, int64_t sequence_id) {
    DesignRecord r;
    r.run_id = run_id;
    r.sequence_id = sequence_id;
    r.name = "run" + std::to_string(run_id) + "_design_" + std::to_string(d.index + 1);
    r.bases = d.bases;
    r.design_logp = d.design_logp;
    r.ranking_logp = d.ranking_logp;
    r.rank = d.rank;
    r.stream_index = int64_t(d.index);
    r.backtracks = int64_t(d.backtracks);
    r.specificity = d.specificity;
    return r;
}

}  // namespace carbon::storage
