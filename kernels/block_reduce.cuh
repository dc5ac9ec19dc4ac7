// Warp and block reductions (sum, max) of fp32 values for the row kernels (RMSNorm, token
// log-probabilities): xor shuffles within a warp, then the warps' values through shared memory.
// kSkipBarrier = true drops the barrier after the warps write their values: the injected bug the
// kernel tests must catch; production launchers never set it.
#pragma once

#include "cuda_portable.cuh"

namespace carbon::kern::reduce {

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

// Shared scratch of one block reduction: a value per warp and the result.
template <int kThreads>
using Scratch = float[kThreads / 32 + 1];

// The block's total (every thread gets it). All kThreads threads must call it; kThreads is a
// multiple of 32 up to 1024. Two barriers, so the same scratch may serve the next call at once:
// the next call's first write to scratch[kThreads / 32] comes after its first barrier, which every
// thread reaches only after reading this call's result.
template <int kThreads, bool kMax, bool kSkipBarrier = false>
__device__ __forceinline__ float block_reduce(float v, float* scratch) {
    static_assert(kThreads % 32 == 0 && kThreads <= 1024, "a whole number of warps");
    constexpr int kWarps = kThreads / 32;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    v = kMax ? warp_max(v) : warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    if constexpr (!kSkipBarrier) __syncthreads();
    if (warp == 0) {
        const float neutral = kMax ? -INFINITY : 0.0f;
        float t = lane < kWarps ? scratch[lane] : neutral;
        t = kMax ? warp_max(t) : warp_sum(t);
        if (lane == 0) scratch[kWarps] = t;
    }
    __syncthreads();
    return scratch[kWarps];
}

template <int kThreads, bool kSkipBarrier = false>
__device__ __forceinline__ float block_sum(float v, float* scratch) {
    return block_reduce<kThreads, false, kSkipBarrier>(v, scratch);
}

template <int kThreads, bool kSkipBarrier = false>
__device__ __forceinline__ float block_max(float v, float* scratch) {
    return block_reduce<kThreads, true, kSkipBarrier>(v, scratch);
}

}  // namespace carbon::kern::reduce
