// scale_int32_products: the epilogue of an int8 GEMM (cuBLASLt's exact int32 sums of the rows
// scheme's int8 activations and weights) into fp32: y[i, j] = float(C[i, j]) * (xs[i] * ws[j]),
// or y[i, j] + that when accumulating (the residual add the fp32 path folds into its GEMM). The
// operations and their order are the CPU backend's (cpu_q8.h) and gemv_int8's, so a prefill row
// gets the bits a decode row gets.
//
// Launch shape: grid (rows, ceil(n / 256)), 256 threads, one output per thread.
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"

namespace carbon::kern {

inline constexpr int kScaleProductsThreads = 256;

// kSwapScales = true is the injected bug (the weight scale of row i taken for column j).
template <bool kAccumulate, bool kSwapScales = false>
__global__ void __launch_bounds__(kScaleProductsThreads)
    scale_int32_products_kernel(const int32_t* __restrict__ c, long long ldc, const float* __restrict__ xs,
                                const float* __restrict__ ws, int n, float* __restrict__ y, long long ldy) {
    const int j = static_cast<int>(blockIdx.y * kScaleProductsThreads + threadIdx.x);
    if (j >= n) return;
    const long long i = blockIdx.x;
    const float v = static_cast<float>(c[i * ldc + j]) * (xs[i] * ws[kSwapScales ? i : j]);
    float* out = y + i * ldy + j;
    *out = kAccumulate ? *out + v : v;
}

}  // namespace carbon::kern
