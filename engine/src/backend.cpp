// What every backend shares: the check that its output is finite.
#include "carbon/backend.h"

#include <cmath>

#include "carbon/common.h"
#include "carbon/host_memory.h"

namespace carbon {

size_t Backend::memory_available() const { return available_host_memory(); }

void require_finite_logits(const ForwardOutput& out, std::span<const ForwardItem> items, const std::string& model) {
    for (size_t i = 0; i < items.size(); ++i) {
        for (size_t r = out.row_begin[i]; r < out.row_begin[i + 1]; ++r) {
            const float* row = out.logits.data() + r * out.width;
            for (size_t v = 0; v < out.width; ++v) {
                if (std::isfinite(row[v])) continue;
                const size_t appended = items[i].all_positions ? r - out.row_begin[i] : items[i].tokens.size() - 1;
                throw Error("the model in " + model + " computed a non-finite logit (" + (std::isnan(row[v]) ? "NaN" : "infinity") +
                            ") for sequence " + std::to_string(items[i].seq) + " at appended token " + std::to_string(appended + 1) +
                            " of " + std::to_string(items[i].tokens.size()) +
                            ": its weights or config.json are damaged or out of range, so no score or design from it can be trusted");
            }
        }
    }
}

}  // namespace carbon
