// token_logprob: for each row of full-vocabulary logits, lse = log(sum_v exp(logits[v])) and
// logp = logits[target] - lse = log_softmax(logits)[target] (carbon::log_softmax at one index), so a
// row of V logits leaves the device as two floats. Token-level scoring's reduction.
//
// Numerics: one pass over the row; each thread keeps a running maximum m and a Kahan-compensated
// fp32 sum of exp(x - m) (rescaled when m grows, so nothing overflows whatever the logits); the
// block takes the maximum M of the threads' m, rescales each thread's sum to M and adds them (a
// tree); lse = M + log(S) and logp = x_target - lse in double (one of each per row). A NaN or +inf
// logit gives a non-finite lse (the backend's non-finite-logits check reads lse: B floats, not B x V).
//
// Launch shape: one block of 512 threads per row; a thread reads 8-element chunks (one or two
// 16-byte loads), two chunks in flight per iteration. Versions considered: two passes (max, then the
// sum: reads the row twice, from DRAM once several rows of 623 KB no longer fit in L2), a grid split
// of each row over several blocks with a combine step (fills the GPU at batch 1-16, but needs a
// workspace and a second launch) and the kept one-pass block per row, which is bandwidth-bound when
// rows >= 2-4 x the SM count (token-level scoring of a window: ~1,400 rows) and latency-bound below
// (one SM per row). The logits themselves come from the head GEMM (cuBLASLt, issue 14) and are
// B x V floats in device memory; a fused variant that never materialises them would have the head
// GEMM's epilogue emit per-tile (max, sum exp) pairs and the target's logit, and this combine step
// merge the tiles (the same (m, s) algebra as below), leaving only B x 2 floats per row tile.
#pragma once

#include "block_reduce.cuh"
#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kTokenLogprobThreads = 512;

// The injected bugs the test must catch; production launchers use None.
enum class LogprobBug {
    None,
    DroppedBarrier,  // the block reduction's first barrier
    NoMaxShift,      // sum exp(x) without subtracting the maximum: overflows for logits above ~88
};

namespace token_logprob_impl {

// A thread's running state: maximum m and s - c = sum of exp(x - m), Kahan-compensated.
struct Running {
    float m = -INFINITY, s = 0.0f, c = 0.0f;
};

__device__ __forceinline__ void kahan_add(Running& r, float v) {
    const float y = v - r.c;
    const float t = r.s + y;
    r.c = (t - r.s) - y;
    r.s = t;
}

template <LogprobBug kBug>
__device__ __forceinline__ void add_logit(Running& r, float x) {
    if constexpr (kBug == LogprobBug::NoMaxShift) {
        r.m = 0.0f;
        kahan_add(r, expf(x));
    } else if (x > r.m) {  // a new maximum: rescale what was summed against the old one
        const float f = expf(r.m - x);
        r.s *= f;
        r.c *= f;
        r.m = x;
        kahan_add(r, 1.0f);
    } else if (x != -INFINITY) {  // -inf adds exactly 0 (and -inf - -inf would be NaN); NaN poisons s
        kahan_add(r, expf(x - r.m));
    }
}

}  // namespace token_logprob_impl

// kVector: ld and vocab multiples of 8, logits 16-byte aligned. targets / logp may be null (lse only).
template <class T, bool kVector, LogprobBug kBug = LogprobBug::None>
__global__ void __launch_bounds__(kTokenLogprobThreads)
    token_logprob_kernel(const T* __restrict__ logits, long long ld, int vocab, const int* __restrict__ targets,
                         float* __restrict__ lse_out, float* __restrict__ logp_out, int* __restrict__ bad_targets) {
    using namespace token_logprob_impl;
    constexpr int kT = kTokenLogprobThreads;
    CARBON_SHARED(reduce::Scratch<kT>, scratch);
    const T* row = logits + static_cast<long long>(blockIdx.x) * ld;
    const int tid = static_cast<int>(threadIdx.x);
    Running r;
    if constexpr (kVector) {
        const int n = vocab / io::kVec;
        for (int c = tid; c < n; c += 2 * kT) {
            float a[io::kVec], b[io::kVec];
            const bool second = c + kT < n;
            io::load8(row + static_cast<long long>(c) * io::kVec, a);
            if (second) io::load8(row + static_cast<long long>(c + kT) * io::kVec, b);
            for (int i = 0; i < io::kVec; ++i) add_logit<kBug>(r, a[i]);
            if (second) {
                for (int i = 0; i < io::kVec; ++i) add_logit<kBug>(r, b[i]);
            }
        }
    } else {
        for (int v = tid; v < vocab; v += kT) add_logit<kBug>(r, io::to_float(row[v]));
    }
    constexpr bool kSkip = kBug == LogprobBug::DroppedBarrier;
    const float m = reduce::block_max<kT, kSkip>(r.m, scratch);
    const float mine = r.s - r.c;
    const float s = reduce::block_sum<kT, kSkip>(mine == 0.0f ? 0.0f : mine * expf(r.m - m), scratch);
    if (tid != 0) return;
    const double lse = static_cast<double>(m) + log(static_cast<double>(s));
    lse_out[blockIdx.x] = static_cast<float>(lse);
    if (targets == nullptr) return;
    const int target = targets[blockIdx.x];
    const bool valid = target >= 0 && target < vocab;
    if (!valid && bad_targets != nullptr) atomicAdd(bad_targets, 1);
    logp_out[blockIdx.x] = valid ? static_cast<float>(static_cast<double>(io::to_float(row[target])) - lse) : NAN;
}

}  // namespace carbon::kern
