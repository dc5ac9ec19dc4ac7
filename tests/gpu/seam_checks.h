// Checks every implementation of the device seam must pass, written once against gpu::Device: the
// host seam runs them in CI (tests/gpu/test_seam_*.cpp), the real one on a GPU (test_cuda_device.cpp).
// Each records failures with check.h's CHECK macros.
#pragma once

#include <string>

#include "gpu/device.h"
#include "gpu/gemm_row_major.h"

namespace carbon::gpu::checks {

// How a row-major GEMM becomes the seam's column-major call (to_column_major; a test passes a broken
// mapping to prove the comparison notices).
using Mapping = Gemm (*)(const RowMajorGemm&);

struct GemmReport {
    int cases = 0;
    int refused = 0;     // cases the seam refused (a range past an allocation, a leading dimension too small)
    int mismatches = 0;  // cases run with an element outside the bound, or a padding element changed
    std::string first;   // the first mismatch, described
};

// Row-major GEMMs through `mapping` and the seam against a plain double-precision reference on the
// same (rounded) inputs: m 1, 3, 17; n and k not multiples of 8; every transpose pair; leading
// dimensions larger than the rows (the padding of C must stay untouched); bf16 -> fp32, bf16 ->
// bf16, fp16 -> fp32, fp32 -> fp32; alpha/beta, and beta 0 over NaN junk in C (C must not be read).
GemmReport row_major_gemms(Device& device, Mapping mapping = to_column_major);

// int8 x int8 -> int32 linear layers (y[rows, out] = x[rows, k] W[out, k]^T through
// gemm_row_major, the CUDA backend's int8 prefill) against exact integer sums: rows 1, 9, 64, 130;
// out 4, 64, 1,028; k 16, 64, 1,040; values over the whole int8 range but -128 (the rows scheme's).
// Every int32 must be exact.
GemmReport int8_gemms(Device& device);

// Host -> device, memset, device -> device at offsets, device -> host on one stream, in issue order
// (a reordering changes the result); pageable and pinned host memory.
void copies_and_memsets_in_order(Device& device);

// Stream 2 waits for an event recorded on stream 1 after stream 1's upload, then copies the data on
// and down; only stream 2 is synchronized. Also event_synchronize as the host's wait.
void event_orders_two_streams(Device& device);

// copy -> kernel (row_sum_squares) -> GEMM on the kernel's output -> copies back, captured once and
// replayed twice with different inputs written into the pinned buffers between replays: each replay
// equals a direct (uncaptured) run of the same sequence and a CPU reference; capturing runs nothing.
void graph_replays_with_new_inputs(Device& device);

}  // namespace carbon::gpu::checks
