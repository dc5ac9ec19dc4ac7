// Token-level (direct 6-mer) generation over the backend interface: batched, greedy or seeded
// sampling, restricted to the 4,096 DNA 6-mers. Base-level (FNS) generation builds on the same
// loop with per-base marginals.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "carbon/backend.h"
#include "carbon/sampling.h"
#include "carbon/tokenizer.h"

namespace carbon {

struct DirectGenerationRequest {
    std::vector<int32_t> prompt;  // full prompt ids, ending inside DNA mode (open <dna>)
    size_t n_tokens = 0;          // 6-mer tokens to generate per sequence
    size_t n_sequences = 1;       // designs sharing the prompt (stream index = sequence index)
    SamplingParams sampling;
};

// Called after each decode step with the number of tokens generated so far per sequence;
// returning false cancels (the partial results are returned).
using StepCallback = std::function<bool(size_t tokens_done)>;

// Returns, per sequence, the chosen 6-mer indices (0..4095). Draw k of sequence s uses
// uniform01(seed, s, k, 0).
std::vector<std::vector<int>> generate_direct(Backend& backend, const Tokenizer& tokenizer,
                                              const DirectGenerationRequest& request,
                                              const StepCallback& on_step = {});

}  // namespace carbon
