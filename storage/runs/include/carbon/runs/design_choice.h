// Choosing designs of a project to order (issue 33): near-duplicates removed and a diverse set of
// good designs chosen (carbon/generation/design_selection.h) among the project's stored designs,
// and the choice stored as a named selection. carbon-cli select --project and the Designs table's
// Choose Diverse Designs run this one implementation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "carbon/generation/design_selection.h"
#include "carbon/storage/project.h"

namespace carbon::runs {

struct DesignChoiceRequest {
    std::string name;      // the selection's name in the project
    bool replace = false;  // replace a selection of that name (else a taken name is an Error)
    // The candidates: these design ids; empty: every design not discarded (of run_id when set).
    std::vector<int64_t> candidates;
    int64_t run_id = 0;
    size_t count = 0;
    // What ranks the designs (higher is better): a design column (design_logp, ranking_logp,
    // min_base_logp, objective, specificity) or a predictor's output as "PREDICTOR:OUTPUT".
    std::string score = "design_logp";
    std::optional<double> min_score;  // only designs scoring at least this
    SequenceDistance distance = SequenceDistance::Hamming;
    size_t min_distance = 0;  // near-duplicates first: designs closer than this to a better one
};

struct DesignChoice {
    int64_t selection_id = 0;
    std::vector<int64_t> design_ids;  // in the order chosen
    size_t candidates = 0, after_near_duplicates = 0, eligible = 0;
    size_t min_distance = 0;  // the smallest distance between two chosen (SIZE_MAX with fewer than two)
    std::string note;         // why fewer than asked for were chosen, or empty
    std::string settings;     // the JSON stored with the selection
};

// The design columns a choice can rank by (besides "PREDICTOR:OUTPUT"), for a list to choose from.
const std::vector<std::string>& design_score_columns();

// Runs the choice and stores it (one transaction) unless `store` is false. Errors before anything is
// stored: no candidates, an unknown score name or design id, designs of several lengths under
// Hamming (naming two of them), a bad count, the name's Errors (save_selection).
DesignChoice choose_designs(storage::Project& project, const DesignChoiceRequest& request, bool store = true);

}  // namespace carbon::runs
