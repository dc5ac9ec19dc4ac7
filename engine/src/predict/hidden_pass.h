// One forward pass of fresh sequences for their final hidden states (predict/): each input a new
// sequence of the backend, freed again whether the pass succeeds or throws. The regressor and the
// embedder read their rows from it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/fns/fns.h"

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

// Every sequence tokenized (and checked) before the first forward pass: `views` 1 gives the forward
// strand, 2 the forward strand then its reverse complement, side by side. tokenize(bases, name)
// returns the token ids or throws with the name.
template <class Tokenize>
std::vector<std::vector<int32_t>> strand_inputs(std::span<const std::string> sequences, std::span<const std::string> names,
                                                size_t views, const Tokenize& tokenize) {
    std::vector<std::vector<int32_t>> inputs;
    inputs.reserve(sequences.size() * views);
    for (size_t i = 0; i < sequences.size(); ++i) {
        const std::string name = i < names.size() ? names[i] : "sequence " + std::to_string(i + 1);
        inputs.push_back(tokenize(sequences[i], name));
        if (views == 2) inputs.push_back(tokenize(acgt_reverse_complement(sequences[i]), name + " (reverse complement)"));
    }
    return inputs;
}

}  // namespace carbon
