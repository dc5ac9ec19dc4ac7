// What every activity predictor gives (a fine-tuned regression checkpoint, SequenceRegressor; a
// probe fitted to measurements, ProbePredictor): named outputs per sequence, in batches, with
// progress and Cancel, and the held-out accuracy to show beside them. Optimisers (evolution.h)
// and the runs use this interface only.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
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
    size_t tokens_forwarded = 0;               // tokens the model forwarded for them (0: not counted)
    bool cancelled = false;
};

class ActivityPredictor {
public:
    virtual ~ActivityPredictor() = default;
    // The output names, in the order of Predictions::values' columns.
    virtual std::vector<std::string> outputs() const = 0;
    virtual Predictions predict(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch = 16,
                                const PredictProgress& progress = {}) = 0;
    // Predictions of `sequences` that are `reference` with a few bases changed (an evolution
    // round's candidates, a variant's alternatives): predict's values, up to the rounding of a
    // differently batched pass, computed where the predictor can from the reference's cache forked
    // at each sequence's first changed token, so that what comes before it is not forwarded again.
    // By default, predict.
    virtual Predictions predict_near(std::string_view reference, std::span<const std::string> sequences,
                                     std::span<const std::string> names, size_t batch = 16, const PredictProgress& progress = {}) {
        (void)reference;
        return predict(sequences, names, batch, progress);
    }
};

}  // namespace carbon
