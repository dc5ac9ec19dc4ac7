// What every activity predictor gives (a fine-tuned regression checkpoint, SequenceRegressor; a
// probe fitted to measurements, ProbePredictor): named outputs per sequence, in batches, with
// progress and Cancel, and the held-out accuracy to show beside them. Optimisers (evolution.h)
// and the runs use this interface only.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace carbon {

// Called between batches with (sequences done, total); returning false cancels.
using PredictProgress = std::function<bool(size_t done, size_t total)>;

struct Predictions {
    std::vector<std::string> outputs;          // one name per output: the target (unscaled) or the label
    std::vector<bool> measured_units;          // per output: unscaled by the recipe's label_transform
    std::vector<std::vector<double>> values;   // [sequence][output]
    std::vector<std::string> held_out;         // per output: its accuracy on held-out data, shown beside
                                               // its values ("" when the predictor does not know it)
    bool cancelled = false;
};

class ActivityPredictor {
public:
    virtual ~ActivityPredictor() = default;
    // The output names, in the order of Predictions::values' columns.
    virtual std::vector<std::string> outputs() const = 0;
    virtual Predictions predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch = 16,
                                const PredictProgress& progress = {}) = 0;
};

}  // namespace carbon
