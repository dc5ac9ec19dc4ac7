// What every backend shares: the check that its output is finite.
#include "carbon/backend.h"

#include <cmath>

#include "carbon/support/common.h"
#include "carbon/support/host_memory.h"

namespace carbon {

size_t Backend::memory_available() const { return available_host_memory(); }

FnsRow fns_row_on_host(const float* logits, size_t width, const std::array<BaseMask, 6>& masks) {
    FnsRow r;
    std::vector<float> probs(width);
    dna_softmax(std::span<const float>(logits, width), probs);
    r.plain = fns_marginals(probs);
    r.masked_total = fns_masked_marginals(probs, masks, r.masked);
    return r;
}

void Backend::forward_fns(std::span<const ForwardItem> items, std::span<const FnsRowRequest> rows, const SamplingParams&,
                          std::vector<FnsRow>& out) {
    if (rows.size() != items.size())
        throw Error("forward_fns: " + std::to_string(rows.size()) + " row requests for " + std::to_string(items.size()) + " items");
    std::vector<ForwardItem> last(items.begin(), items.end());
    for (ForwardItem& it : last) it.all_positions = false;
    ForwardOutput logits;
    forward(last, Head::Dna, logits);
    out.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) out[i] = fns_row_on_host(logits.row(i), logits.width, rows[i].masks);
}

void throw_no_language_model_head(const ModelConfig& config) {
    throw Error(config.path.parent_path().string() + ": a sequence-regression checkpoint (LlamaForSequenceClassification, " +
                std::to_string(config.labels.size()) + " output(s)): it has no language-model head, so it predicts activity "
                "(carbon-cli predict) but does not generate designs or score likelihoods; use a Carbon language model for those");
}

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
