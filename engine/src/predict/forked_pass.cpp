// Forward passes forked from a reference's cache (forked_pass.h).
#include "forked_pass.h"

#include <algorithm>
#include <cstring>

#include "carbon/support/common.h"

namespace carbon {

ForkedPasses::ForkedPasses(Backend& be, std::vector<std::vector<int32_t>> reference_views, bool all_positions)
    : be_(be), ref_(std::move(reference_views)), all_(all_positions) {
    if (ref_.empty()) throw Error("ForkedPasses: no reference views");
    std::vector<ForwardItem> items;
    try {
        for (const auto& r : ref_) {
            seq_.push_back(be_.create_sequence());
            items.push_back({seq_.back(), r, all_});
            tokens_ += r.size();
        }
        be_.forward(items, Head::Hidden, ref_rows_);
    } catch (...) {
        for (SeqId s : seq_) be_.free_sequence(s);
        throw;
    }
}

ForkedPasses::~ForkedPasses() {
    for (SeqId s : seq_) be_.free_sequence(s);
}

void ForkedPasses::run(std::span<const std::vector<int32_t>> inputs, size_t from, size_t to, ForwardOutput& out) {
    const size_t views = ref_.size();
    std::vector<size_t> shared(to - from);
    std::vector<ForwardItem> items;
    ForwardOutput fwd;
    try {
        for (size_t k = from; k < to; ++k) {
            const std::vector<int32_t>& in = inputs[k];
            const std::vector<int32_t>& r = ref_[k % views];
            size_t n = 0;
            const size_t most = std::min(in.size() - 1, r.size());  // at least the last token is forwarded
            while (n < most && in[n] == r[n]) ++n;
            shared[k - from] = n;
            const SeqId s = be_.fork_sequence(seq_[k % views]);
            items.push_back({s, std::span<const int32_t>(in).subspan(n), all_});
            be_.truncate_sequence(s, n);
            tokens_ += in.size() - n;
        }
        be_.forward(items, Head::Hidden, fwd);
    } catch (...) {
        for (const ForwardItem& it : items) be_.free_sequence(it.seq);
        throw;
    }
    for (const ForwardItem& it : items) be_.free_sequence(it.seq);
    if (!all_) {
        out = std::move(fwd);
        return;
    }
    // Every position's row: the shared prefix's from the reference's pass, the rest from the fork's.
    out.width = fwd.width;
    out.row_begin.assign(1, 0);
    for (size_t k = from; k < to; ++k) out.row_begin.push_back(out.row_begin.back() + inputs[k].size());
    out.logits.resize(out.row_begin.back() * out.width);
    for (size_t k = from; k < to; ++k) {
        const size_t i = k - from, n = shared[i], T = inputs[k].size();
        float* dst = out.logits.data() + out.row_begin[i] * out.width;
        if (n) std::memcpy(dst, ref_rows_.row(k % views, 0), n * out.width * sizeof(float));
        std::memcpy(dst + n * out.width, fwd.row(i, 0), (T - n) * out.width * sizeof(float));
    }
}

}  // namespace carbon
