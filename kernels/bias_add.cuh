// bias_add: y[r, c] += float(bias[c]) on fp32 rows, for checkpoints with attention_bias or mlp_bias
// (the CPU backend's cpu::add_bias; Carbon's own checkpoints have no biases). The bias is in the
// checkpoint's dtype, converted exactly to fp32.
//
// Launch shape: grid (rows, ceil(cols / 256)), 256 threads, one element per thread: biases are rare
// and the add is a read and a write of the output, so the simplest coalesced shape.
#pragma once

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kBiasAddThreads = 256;

// kSkipFirstRow = true is the injected bug (row 0 never gets its bias).
template <class W, bool kSkipFirstRow = false>
__global__ void __launch_bounds__(kBiasAddThreads) bias_add_kernel(float* y, long long ldy, const W* bias, int cols) {
    const int c = static_cast<int>(blockIdx.y * kBiasAddThreads + threadIdx.x);
    if (c >= cols || (kSkipFirstRow && blockIdx.x == 0)) return;
    y[static_cast<long long>(blockIdx.x) * ldy + c] += io::to_float(bias[c]);
}

}  // namespace carbon::kern
