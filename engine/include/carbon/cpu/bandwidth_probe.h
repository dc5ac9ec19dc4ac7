// How fast this machine reads memory with a given number of threads: the limit a memory-bound
// decode step can approach, so benchmarks state their decode figures as a fraction of it.
#pragma once

#include <cstddef>
#include <string>

namespace carbon {

// Reads a buffer of `bytes` (touched first, so it is resident) with `threads` threads, each its
// own contiguous part, `repeats` times; returns the best rate in bytes per second.
double measure_read_bandwidth(int threads, size_t bytes = size_t(1) << 30, int repeats = 4);

// Bytes a batch-1 decode step reads from the weights: every layer's tensors, the final norm, the
// head's 4,096 DNA rows and one embedding row (the rest of the vocabulary is never read). With
// `quantised_bytes_per_value` > 0 the projections and the head's rows count that many bytes per
// value instead of their stored size (int8_bytes_per_weight()).
struct ModelWeights;
size_t decode_weight_bytes(const ModelWeights& w, size_t dna_rows = 4096, double quantised_bytes_per_value = 0);

// Bytes per weight of the CPU backend's 8-bit weights (BackendOptions::weights): "int8" 1 (a 4-byte
// scale per row aside), "q8_0" 34 / 32 (a 2-byte scale per 32); 0 for anything else (as stored).
double quantised_bytes_per_weight(const std::string& weights);

}  // namespace carbon
