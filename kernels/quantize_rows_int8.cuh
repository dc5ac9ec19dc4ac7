// quantize_rows_int8: activation rows to int8 with one fp32 scale per row, the CPU backend's rows
// scheme (engine/src/cpu/cpu_q8.h) to the bit, so that the CUDA backend's int8 products are the
// CPU's exact integer dot products with the same scales:
//   amax = max |x[r, c]|;  scale = NaN when a value is not finite, else amax / 127 when amax > 0 and
//   127 / amax is finite, else 0;  q[r, c] = clamp(rint(x[r, c] * (127 / amax)), -127, 127), or 0
//   for every c where scale is not amax / 127.
// max is exact and order-free, and 127 / amax, x * inv and amax / 127 are single IEEE operations
// rounded to nearest (nvcc's default -prec-div=true), so the GPU and the CPU agree bit for bit.
//
// Launch shape: one block of 256 threads per row; each thread strides over the row twice (its
// maximum, then its values), the block's maximum through block_reduce.
#pragma once

#include <cstdint>

#include "block_reduce.cuh"
#include "cuda_portable.cuh"

namespace carbon::kern {

inline constexpr int kQuantizeThreads = 256;

namespace quantize_impl {
__device__ __forceinline__ float as_float(float v) {
    return v;
}
__device__ __forceinline__ float as_float(__nv_bfloat16 v) {
    return __uint_as_float(static_cast<unsigned int>(__bfloat16_as_ushort(v)) << 16);  // exact
}
__device__ __forceinline__ bool finite(float v) {
    return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u;
}
}  // namespace quantize_impl

// kRoundDown = true is the injected bug (values truncated towards zero instead of rounded).
template <class Tx, bool kRoundDown = false>
__global__ void __launch_bounds__(kQuantizeThreads)
    quantize_rows_int8_kernel(const Tx* __restrict__ x, long long ldx, int k, int8_t* __restrict__ q, long long ldq,
                              float* __restrict__ scales) {
    using quantize_impl::as_float;
    using quantize_impl::finite;
    CARBON_SHARED(reduce::Scratch<kQuantizeThreads>, scratch);
    const long long r = blockIdx.x;
    const Tx* row = x + r * ldx;
    // A value that is not finite makes the row's maximum infinite (no finite row reaches it).
    float m = 0.0f;
    for (int c = static_cast<int>(threadIdx.x); c < k; c += kQuantizeThreads) {
        const float v = as_float(row[c]);
        m = finite(v) ? fmaxf(m, fabsf(v)) : __uint_as_float(0x7f800000u);
    }
    const float amax = reduce::block_max<kQuantizeThreads>(m, scratch);
    const float inv = 127.0f / amax;
    const bool usable = finite(amax) && amax > 0.0f && finite(inv);
    int8_t* out = q + r * ldq;
    for (int c = static_cast<int>(threadIdx.x); c < k; c += kQuantizeThreads) {
        int v = 0;
        if (usable) {
            const float p = as_float(row[c]) * inv;
            v = kRoundDown ? __float2int_rz(p) : __float2int_rn(p);
            v = v > 127 ? 127 : v < -127 ? -127 : v;
        }
        out[c] = static_cast<int8_t>(v);
    }
    if (threadIdx.x == 0) scales[r] = !finite(amax) ? __int_as_float(0x7fc00000) : usable ? amax / 127.0f : 0.0f;
}

}  // namespace carbon::kern
