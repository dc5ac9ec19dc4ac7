// The settings a run stores (see run_settings.h).
#include "carbon/runs/run_settings.h"

#include <sstream>

namespace carbon::runs {

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
    if (!req.constraints.required_sites.empty()) s.emplace_back("required_sites", format_required_sites(req.constraints.required_sites));
    if (!req.constraints.synthesis_rules.empty()) s.emplace_back("synthesis_rules", req.constraints.synthesis_rules);
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

}  // namespace carbon::runs
