// One forward pass of fresh sequences for their final hidden states (predict/): each input a new
// sequence of the backend, freed again whether the pass succeeds or throws. The regressor and the
// embedder read their rows from it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "carbon/backend.h"

namespace carbon {

// Head::Hidden rows of inputs[from, to): every position when `all_positions`, else the last.
inline void hidden_pass(Backend& be, std::span<const std::vector<int32_t>> inputs, size_t from, size_t to, bool all_positions,
                        ForwardOutput& out) {
    std::vector<ForwardItem> items;
    for (size_t k = from; k < to; ++k) items.push_back({be.create_sequence(), inputs[k], all_positions});
    try {
        be.forward(items, Head::Hidden, out);
    } catch (...) {
        for (const ForwardItem& it : items) be.free_sequence(it.seq);
        throw;
    }
    for (const ForwardItem& it : items) be.free_sequence(it.seq);
}

}  // namespace carbon
