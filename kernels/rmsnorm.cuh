// rmsnorm: out[r, :] = weight * cast(x[r, :] * 1 / sqrt(mean(x[r, :]^2) + eps)) with fp32 math, as
// transformers' LlamaRMSNorm and cpu::rmsnorm: the normalised value is cast to the activation type
// before the weight multiplies it (a no-op for fp32 activations, HF's rounding for bf16). Optionally
// fused with the residual add before it: h[r, :] += x[r, :] (stored in the activation type), then
// out = rmsnorm(h) of the stored h, exactly what the add and the norm give one after the other.
//
// Launch shape: one block of 256 threads per row. Pass 1 sums squares (fp32 fmaf per thread, then
// the block reduction), pass 2 re-reads the row (same element-to-thread mapping, so a thread reads
// what it wrote in the fused case; the re-read hits L1/L2: a row is at most a few tens of KiB) and
// writes the output. Versions considered: a warp per row (the row of 4,096 bf16 would take 16 vector
// loads per lane in one warp: fine for prefill, slow at batch 1), caching the row in registers or
// shared memory between the passes (saves an L2 re-read, not a DRAM one; it caps the hidden size or
// costs occupancy) and the kept block per row with two passes, which handles every hidden size with
// one code path. 1 / sqrtf (IEEE, as on the CPU) rather than rsqrtf (2 ulp) keeps fp32 parity tight.
#pragma once

#include "block_reduce.cuh"
#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kRmsNormThreads = 256;

namespace rmsnorm_impl {

// The value the norm sees at element index c (scalar) or chunk index c (vector): x, or in the fused
// case the residual sum rounded to A (written back by pass 1 only).
template <class A, bool kResidual, bool kWrite>
__device__ __forceinline__ float scalar_input(const A* x, A* h, long long c) {
    float v = io::to_float(x[c]);
    if constexpr (kResidual) {
        if constexpr (kWrite) {
            const A s = io::from_float<A>(io::to_float(h[c]) + v);
            h[c] = s;
            v = io::to_float(s);
        } else {
            v = io::to_float(h[c]);
        }
    }
    return v;
}

template <class A, bool kResidual, bool kWrite>
__device__ __forceinline__ void vector_input(const A* x, A* h, long long c, float (&v)[io::kVec]) {
    if constexpr (kResidual) {
        if constexpr (kWrite) {
            float a[io::kVec];
            io::load8(x + c * io::kVec, a);
            io::load8(h + c * io::kVec, v);
            for (int i = 0; i < io::kVec; ++i) v[i] = io::to_float(io::from_float<A>(v[i] + a[i]));
            io::store8(h + c * io::kVec, v);
        } else {
            io::load8(h + c * io::kVec, v);
        }
    } else {
        io::load8(x + c * io::kVec, v);
    }
}

// weight * cast(v * inv), rounded to A.
template <class A, class W>
__device__ __forceinline__ float normed(float v, float inv, W w) {
    return io::to_float(w) * io::to_float(io::from_float<A>(v * inv));
}

}  // namespace rmsnorm_impl

// kVector: hidden % 8 == 0 and every array 16-byte aligned. kResidual: h (the residual stream) is
// read, h += x is stored, and the norm is taken of the stored h. x, h and out are not __restrict__:
// out may be x (in place; each element is read and written by one thread, the write after the
// barrier that ends pass 1). kSkipBarrier = true drops the
// block reduction's first barrier: the injected bug the test must catch.
template <class A, class W, bool kVector, bool kResidual, bool kSkipBarrier = false>
__global__ void __launch_bounds__(kRmsNormThreads)
    rmsnorm_kernel(const A* x, A* h, const W* __restrict__ weight, A* out, int hidden, float eps) {
    using namespace rmsnorm_impl;
    CARBON_SHARED(reduce::Scratch<kRmsNormThreads>, scratch);
    const long long row = static_cast<long long>(blockIdx.x) * hidden;
    const A* xr = x + row;
    A* hr = kResidual ? h + row : nullptr;
    A* outr = out + row;
    const int n = kVector ? hidden / io::kVec : hidden;
    const int tid = static_cast<int>(threadIdx.x);

    float ss = 0.0f;
    for (int c = tid; c < n; c += kRmsNormThreads) {
        if constexpr (kVector) {
            float v[io::kVec];
            vector_input<A, kResidual, true>(xr, hr, c, v);
            for (int i = 0; i < io::kVec; ++i) ss = fmaf(v[i], v[i], ss);
        } else {
            const float v = scalar_input<A, kResidual, true>(xr, hr, c);
            ss = fmaf(v, v, ss);
        }
    }
    ss = reduce::block_sum<kRmsNormThreads, kSkipBarrier>(ss, scratch);
    const float inv = 1.0f / sqrtf(ss / static_cast<float>(hidden) + eps);

    for (int c = tid; c < n; c += kRmsNormThreads) {
        if constexpr (kVector) {
            float v[io::kVec], w[io::kVec];
            vector_input<A, kResidual, false>(xr, hr, c, v);
            io::load8(weight + static_cast<long long>(c) * io::kVec, w);
            for (int i = 0; i < io::kVec; ++i) v[i] = io::to_float(w[i]) * io::to_float(io::from_float<A>(v[i] * inv));
            io::store8(outr + static_cast<long long>(c) * io::kVec, v);
        } else {
            const float v = scalar_input<A, kResidual, false>(xr, hr, c);
            outr[c] = io::from_float<A>(normed<A>(v, inv, weight[c]));
        }
    }
}

}  // namespace carbon::kern
