// row_sum_squares: out[r] = sum over c of x[r, c]^2 in fp32, one block of 256 threads per row. Each
// thread strides over the row, each warp adds its lanes with __shfl_xor_sync, the warps' sums meet in
// shared memory and warp 0 adds them. RMSNorm's reduction, and the example of the kernel layout.
#pragma once

#include "cuda_portable.cuh"

namespace carbon::kern {

inline constexpr int kRowSumSquaresThreads = 256;

namespace row_sum_squares_impl {

__device__ __forceinline__ float load_float(const float* p) {
    return *p;
}
__device__ __forceinline__ float load_float(const __nv_bfloat16* p) {
    return __bfloat162float(*p);
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

}  // namespace row_sum_squares_impl

// kSkipBarrier = true drops the __syncthreads between writing and reading the warps' sums: the
// injected bug the host test must catch. The launcher never uses it.
template <class T, bool kSkipBarrier = false>
__global__ void __launch_bounds__(kRowSumSquaresThreads)
    row_sum_squares_kernel(const T* __restrict__ x, float* __restrict__ out, int cols) {
    using namespace row_sum_squares_impl;
    CARBON_SHARED(float[kRowSumSquaresThreads / 32], warp_sums);
    const T* row = x + static_cast<long long>(blockIdx.x) * cols;
    float s = 0.0f;
    for (int c = static_cast<int>(threadIdx.x); c < cols; c += kRowSumSquaresThreads) {
        const float v = load_float(row + c);
        s = fmaf(v, v, s);
    }
    s = warp_sum(s);
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (lane == 0) warp_sums[warp] = s;
    if constexpr (!kSkipBarrier) __syncthreads();
    if (warp == 0) {
        float t = lane < kRowSumSquaresThreads / 32 ? warp_sums[lane] : 0.0f;
        t = warp_sum(t);
        if (lane == 0) out[blockIdx.x] = t;
    }
}

}  // namespace carbon::kern
