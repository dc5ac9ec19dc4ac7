// The predicted activity change of single-base variants of one sequence: what the predictor gives
// for the sequence with the alternative base minus what it gives for the reference, per output,
// with the predictor's held-out accuracy beside (a fine-tuned checkpoint or a fitted probe alike,
// ActivityPredictor). The predictor sees the whole sequence, or a window of it around each variant
// when the sequence is longer than it should see; the reference is predicted once per
// distinct window, the alternatives in batches.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/predict/activity_predictor.h"
#include "carbon/scoring/variants.h"

namespace carbon {

struct BaseVariant {
    size_t position = 0;  // 0-based
    char ref = 0;         // 0: not stated; otherwise checked against the sequence (either case)
    char alt = 0;         // A, C, G or T, not the reference base
};

struct VariantActivity {
    size_t position = 0;
    char ref = 0, alt = 0;
    ScoringWindow window;              // the bases the predictor saw, [start, end)
    std::vector<double> reference;     // per output: the reference window's prediction
    std::vector<double> alternative;   // per output: the window with the alternative base
    std::vector<double> change;        // alternative - reference
};

struct VariantActivities {
    std::vector<std::string> outputs;  // the predictor's output names
    std::vector<std::string> held_out;  // per output: the held-out accuracy ("" when not known)
    std::vector<VariantActivity> variants;  // in the order asked
    bool cancelled = false;
};

// `window_bp` 0: the predictor sees the whole sequence; otherwise `window_bp` bases with the
// variant in the middle, moved inward near the ends so that it is always `window_bp` long (the
// whole sequence when that is shorter). `name` names the sequence in errors. Errors, before anything is
// predicted: a position outside the sequence, a stated reference that is not the sequence's base,
// a reference base that is not A/C/G/T, an alternative that is not A/C/G/T or equals the
// reference (each naming the 1-based position). Progress: (sequences predicted, to predict).
VariantActivities predict_variant_activity(ActivityPredictor& predictor, std::string_view sequence, std::span<const BaseVariant> variants,
                                           const std::string& name, size_t window_bp = 0, size_t batch = 16,
                                           const PredictProgress& progress = {});

}  // namespace carbon
