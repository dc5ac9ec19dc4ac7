// gemv_int8: decode's product over int8 weights with one fp32 scale per row, against activations
// quantised per row (quantize_rows_int8): y[b, j] = float(D) * (xs[b] * ws[row(j)]), D the exact
// int32 dot product of x's int8 row b and W's int8 row row(j) over all of k. That is the CPU
// backend's rows scheme (engine/src/cpu/cpu_q8.h) bit for bit: integer sums are exact, so neither
// the order of the additions, nor the batch, nor the launch shape can change D, and float(D) and
// the two products are single roundings in the CPU's order. row(j) = rows ? rows[j] : j (the DNA
// head); a row outside [0, w_rows) makes output j NaN. accumulate: y[b, j] + that (the residual
// add of a prefill that falls back to this kernel, in scale_int32_products' order).
//
// Launch shape: grid ceil(n / 4), 128 threads; block t computes output rows 4t..4t+3 for kBatch
// activation rows. Its threads stride over k in chunks of 16 values (one 128-bit load per weight
// row, one per activation row, four dp4a per pair), then add their 128 partial sums of each
// output through shared memory (no shuffles: the host layer runs each as a 32-fiber rendezvous).
// |D| <= k * 127 * 127 fits int32 for k below 133,000.
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"

namespace carbon::kern {

inline constexpr int kGemvInt8Threads = 128;
inline constexpr int kGemvInt8Rows = 4;    // output rows per block
inline constexpr int kGemvInt8Chunk = 16;  // int8 values per 128-bit load
inline constexpr int kGemvInt8Batch = 8;   // activation rows per launch

namespace gemv_int8_impl {

// Sum of the four int8 x int8 products of the 16-byte chunks' words, added to acc.
__device__ __forceinline__ int dot16(const uint4& a, const uint4& b, int acc) {
    acc = __dp4a(static_cast<int>(a.x), static_cast<int>(b.x), acc);
    acc = __dp4a(static_cast<int>(a.y), static_cast<int>(b.y), acc);
    acc = __dp4a(static_cast<int>(a.z), static_cast<int>(b.z), acc);
    return __dp4a(static_cast<int>(a.w), static_cast<int>(b.w), acc);
}

}  // namespace gemv_int8_impl

// kSkipLastChunk = true is the injected bug (every thread stops one chunk early).
template <int kBatch, bool kSkipLastChunk = false>
__global__ void __launch_bounds__(kGemvInt8Threads)
    gemv_int8_kernel(const int8_t* __restrict__ x, const float* __restrict__ xs, int batch, int ldx,
                     const int8_t* __restrict__ w, const float* __restrict__ ws, int w_rows, int k,
                     const int32_t* __restrict__ rows, int n, float* __restrict__ y, int ldy, bool accumulate) {
    constexpr int kValues = kGemvInt8Rows * kBatch;
    CARBON_SHARED(int[kValues][kGemvInt8Threads + 1], all_acc);
    const int j0 = static_cast<int>(blockIdx.x) * kGemvInt8Rows;
    long long row_of[kGemvInt8Rows];
CARBON_UNROLL
    for (int r = 0; r < kGemvInt8Rows; ++r) {
        long long row = -1;
        if (j0 + r < n) {
            row = rows != nullptr ? static_cast<long long>(rows[j0 + r]) : j0 + r;
            if (row < 0 || row >= w_rows) row = -1;
        }
        row_of[r] = row;
    }
    int acc[kGemvInt8Rows][kBatch];
CARBON_UNROLL
    for (int r = 0; r < kGemvInt8Rows; ++r)
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) acc[r][b] = 0;

    const int chunks = k / kGemvInt8Chunk - (kSkipLastChunk ? 1 : 0);
    for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kGemvInt8Threads) {
        const long long offset = static_cast<long long>(c) * kGemvInt8Chunk;
        uint4 wv[kGemvInt8Rows];
CARBON_UNROLL
        for (int r = 0; r < kGemvInt8Rows; ++r)
            wv[r] = row_of[r] >= 0 ? __ldg(reinterpret_cast<const uint4*>(w + row_of[r] * k + offset)) : make_uint4(0, 0, 0, 0);
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) {
            if (b >= batch) break;
            const uint4 xv = __ldg(reinterpret_cast<const uint4*>(x + static_cast<long long>(b) * ldx + offset));
CARBON_UNROLL
            for (int r = 0; r < kGemvInt8Rows; ++r) acc[r][b] = gemv_int8_impl::dot16(wv[r], xv, acc[r][b]);
        }
    }

    const int t = static_cast<int>(threadIdx.x);
CARBON_UNROLL
    for (int r = 0; r < kGemvInt8Rows; ++r)
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) all_acc[r * kBatch + b][t] = acc[r][b];
    __syncthreads();
    if (t >= kValues) return;
    const int b = t % kBatch, j = j0 + t / kBatch;
    if (b >= batch || j >= n) return;
    int d = 0;
    for (int i = 0; i < kGemvInt8Threads; ++i) d += all_acc[t][i];
    // The row again (indexing row_of by a computed r would put it in local memory).
    const long long row = rows != nullptr ? static_cast<long long>(rows[j]) : j;
    float* const out = y + static_cast<long long>(b) * ldy + j;
    const float v = row >= 0 && row < w_rows ? static_cast<float>(d) * (xs[b] * ws[row]) : __int_as_float(0x7fc00000);
    *out = accumulate ? *out + v : v;
}

}  // namespace carbon::kern
