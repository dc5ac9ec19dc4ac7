// The activity predictor a command was asked for, one way for predict, evolve and variant: a
// fine-tuned regression checkpoint (the model itself) or a predictor fitted to measurements on
// that model's embeddings (--predictor FILE.json, or --project FILE --predictor NAME).
#pragma once

#include <optional>
#include <string>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/regressor.h"
#include "cli_args.h"

namespace carbon::cli {

// The fitted predictor --predictor names (a file, or with --project a name stored there), read
// before any model loads so that a wrong one is refused first; nullopt without --predictor.
std::optional<Probe> predictor_from_args(const Args& a);

class ActivityModel {
public:
    // `probe` over `model`'s embeddings (refused when fitted on another model), else `model`'s own
    // regression head.
    ActivityModel(Model& model, std::optional<Probe> probe);
    ActivityPredictor& predictor() { return fitted_ ? static_cast<ActivityPredictor&>(*fitted_) : *regressor_; }
    const ProbePredictor* fitted() const { return fitted_ ? &*fitted_ : nullptr; }
    const SequenceRegressor* regressor() const { return regressor_ ? &*regressor_ : nullptr; }
    // What the predictor is, for a '##predictor=' line: the --predictor named in `a`, or the
    // checkpoint's head with its recipe file.
    std::string describe(const Args& a) const;
    // Per output, its units and held-out accuracy, for the '##output=' lines.
    std::string output_note(size_t j, const std::string& held_out) const;

private:
    std::optional<SequenceRegressor> regressor_;
    std::optional<ProbePredictor> fitted_;
};

}  // namespace carbon::cli
