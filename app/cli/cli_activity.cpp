// The activity predictor a command was asked for (cli_activity.h).
#include "cli_activity.h"

#include "carbon/support/common.h"
#include "cli_project.h"

namespace carbon::cli {

std::optional<Probe> predictor_from_args(const Args& a) {
    if (a.get("project") && !a.get("predictor")) throw Error("--project FILE needs --predictor NAME (a predictor stored in it)");
    const auto p = a.get("predictor");
    if (!p) return std::nullopt;
    return a.get("project") ? project_predictor(*a.get("project"), *p) : read_probe_file(*p);
}

ActivityModel::ActivityModel(Model& model, std::optional<Probe> probe) {
    if (probe)
        fitted_.emplace(model, std::move(*probe));
    else
        regressor_.emplace(model);
}

std::string ActivityModel::describe(const Args& a) const {
    if (fitted_) {
        const Probe& pr = fitted_->probe();
        return (a.get("project") ? "'" + *a.get("predictor") + "' in " + *a.get("project") : *a.get("predictor")) + " (fitted " + pr.created +
               " to " + pr.table_path + ", " + pr.table_hash + "; " + pr.embedding.describe() + ")";
    }
    const RegressionRecipe& r = regressor_->recipe();
    return "the checkpoint's regression head; recipe " +
           (r.file.empty() ? std::string("none (no run_config.json beside the checkpoint: outputs as the head gives them, <dna>SEQUENCE</dna>, forward strand only)")
                           : r.file.string() + " (dna_mode " + r.dna_mode + (r.rc_average ? ", reverse-complement averaged" : "") + ")");
}

std::string ActivityModel::output_note(size_t j, const std::string& held_out) const {
    if (fitted_) return "in the table's units; " + held_out;
    return std::string(regressor_->recipe().unscale[j] ? "in the measured units (the recipe's label transform undone)"
                                                       : "as the head gives it (scaled units)") +
           "; held-out accuracy not known (the checkpoint does not carry it)";
}

}  // namespace carbon::cli
