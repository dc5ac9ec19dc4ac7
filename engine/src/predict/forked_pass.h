// Forward passes of inputs that are one reference with a few tokens changed (an evolution round's
// candidates, a variant's alternatives; predict/): the reference's views are forwarded once and
// kept, each input is forked from the view of its strand at the first token where the two differ,
// and only the rest is forwarded. Attention is causal, so the rows and the cache before that token
// are the reference's own: the output equals hidden_pass's for the same inputs (rows in the same
// layout; every position's row when `all_positions`, the prefix rows taken from the reference's
// pass) up to the rounding of a differently batched pass. The reference's sequences are freed
// with the object, the forks after each run, whether it succeeds or throws.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "carbon/backend.h"

namespace carbon {

class ForkedPasses {
public:
    // `reference_views[v]` is the reference as input k appears when k % views == v (views: the
    // number of reference views: 1, or 2 for the forward strand and the reverse complement).
    ForkedPasses(Backend& be, std::vector<std::vector<int32_t>> reference_views, bool all_positions);
    ~ForkedPasses();
    ForkedPasses(const ForkedPasses&) = delete;
    ForkedPasses& operator=(const ForkedPasses&) = delete;

    // Head::Hidden rows of inputs[from, to), as hidden_pass(be, inputs, from, to, all_positions, out).
    void run(std::span<const std::vector<int32_t>> inputs, size_t from, size_t to, ForwardOutput& out);
    // Tokens forwarded so far, the reference's included.
    size_t tokens() const { return tokens_; }

private:
    Backend& be_;
    std::vector<std::vector<int32_t>> ref_;
    std::vector<SeqId> seq_;
    ForwardOutput ref_rows_;  // every row of each reference view, when all_positions
    bool all_;
    size_t tokens_ = 0;
};

}  // namespace carbon
