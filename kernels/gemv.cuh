// gemv: decode's weight-streaming product y[b, j] = sum_c x[b, c] * W[row(j), c] for 1-8 activation
// rows (cpu::matmul_wt's semantics), W row-major [w_rows, k] as the checkpoint stores it (bf16, f16
// or f32), x bf16 or fp32, fp32 accumulation, row(j) = rows ? rows[j] : j (the DNA-rows head).
//
// Launch shape: grid (ceil(n / 4), S), 128 threads. Block (t, s) computes output rows 4t..4t+3 over
// the s-th of S slices of k. Its threads stride over the slice in chunks of 8 elements: per step a
// thread issues one 128-bit load per weight row (4 independent loads in flight) and one 128-bit load
// (bf16) or two (fp32) per activation row, each activation chunk used for the 4 weight rows. Every
// accumulator sums in one fixed order: per thread, its chunks in order, each chunk's 8 products in
// order (explicit fmaf); then, through shared memory, each warp's 32 lanes in order; then the 4
// warps in order; then the S slices in order. S = gemv_plan(n, k).splits depends on n and k only,
// never on the batch or the GPU, so y[b] depends on x[b] alone, bit for bit, whatever the batch
// (batch-invariant; the tests compare bits), and the host layer runs the operations the GPU runs,
// in the same order. With S > 1 each block writes its fp32 partial sums to
// the workspace, takes a ticket (atomicAdd on a per-tile counter after __threadfence), and the block
// that draws the last ticket adds the S partials in slice order, writes y and resets the counter to 0.
//
// Split-K heuristic (gemv_plan): one 4-row tile per block leaves an H100 (132 SMs, ~6-8 of these
// blocks resident per SM) underused below about 1,024 blocks (n below 4,096), which is where the k/v
// projections (n = nkv * d = 384-1,024) and the 500M/3B q/o/down projections sit; such shapes split
// k into up to ceil(1024 / tiles) slices, but never slices shorter than 128 chunks (1,024 elements:
// every thread still loads at least once per row; so k = 1,024 is never split) and never more than
// 16. Slices are whole multiples of 128 chunks.
// Carbon shapes (n x k -> S): 500M: q/o 1024x1024 1, k/v 512x1024 1, gate/up 3072x1024 1, down
// 1024x3072 3; 3B: q/o 3072x3072 2, k/v 384x3072 3, gate/up 8448x3072 1, down 3072x8448 2; 8B: q/o
// 4096x4096 1, k/v 1024x4096 4, gate/up 14336x4096 1, down 4096x14336 1; heads (4,096 or 155,776
// rows) 1. The 1,024 is a model of occupancy, not a measurement: tune it on a GPU.
//
// Versions considered (no GPU here: chosen by the instruction and traffic counts in the comments,
// to be timed by the benchmark of issue 14):
//  - one warp per output row (the host layer's GEMV bench, llama.cpp's mul_mat_vec shape): each row
//    re-reads and re-converts x, which at B = 8 fp32 is 16x the weight bytes through L1 and about as
//    many conversion instructions as FMAs; the 4-row tile reads and converts each x chunk once per 4
//    rows and gives each thread 4 independent weight loads per step.
//  - x staged as fp32 in shared memory: saves the per-tile conversion, but B * k * 4 bytes (458 KiB
//    at k = 14,336, B = 8) does not fit, so it needs a k-tiled loop with barriers; worth it only if
//    the GPU shows B = 8 issue-bound.
//  - split-K reductions: float atomicAdd into y (order of arrival: not deterministic); a second
//    kernel over the partials (deterministic, but one more launch, ~1-2 us, as long as the whole
//    product for a 384 x 3072 matrix); kept: the last block of each tile adds the partials in slice
//    order (deterministic, one launch; the CUDA guide's threadFenceReduction pattern).
//  - reduction of the 4 * B accumulators over the block: a warp butterfly per accumulator, then the
//    warps (5 shuffles each: 20 per warp at B = 1, 160 at B = 8; on the host layer every shuffle is
//    a 32-fiber rendezvous, and the ASan build of this test ran past 10 minutes); recursive halving
//    (31 shuffles for 32 values); kept: every accumulator to shared memory (16.5 KiB at B = 8), a
//    barrier, 4 * (4 * B) threads each add one warp's 32 values of one accumulator, a barrier, warp 0
//    adds the 4 warps. No shuffles, two barriers, no bank conflicts (rows padded to 33). A variant
//    that let each thread add 4 * B consecutive threads' values used the threads better but changed
//    the summation order with the register tile (1, 2, 4, 8 rows): batch-variant, and the test's
//    bitwise comparison of a row alone against the same row in a batch of 17 failed it.
// One path only, the portable one: a GPU runs exactly what the host layer proves.
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"

// Full unrolling (CARBON_UNROLL, cuda_portable.cuh) keeps the accumulator arrays in registers.
namespace carbon::kern {

inline constexpr int kGemvThreads = 128;        // 4 warps per block
inline constexpr int kGemvRows = 4;             // output rows per block (one tile)
inline constexpr int kGemvChunk = 8;            // k elements per thread per step: 16 bytes of bf16
inline constexpr int kGemvBatchGroup = 8;       // activation rows per launch (more: several launches)
inline constexpr int kGemvTargetBlocks = 1024;  // below this many tiles, split k (see above)
inline constexpr int kGemvMaxSplits = 16;

// The injected bugs the test must catch; the launcher always uses none.
enum class GemvBug {
    none,
    skip_barrier,     // threads add the block's accumulators without waiting for them to be stored
    drop_last_chunk,  // every k slice ends one chunk early (an off-by-one tile edge)
};

// How k is split: S slices of chunks_per_split chunks of 8 (the last one shorter). A function of n
// and k only (batch invariance; see above).
struct GemvPlan {
    int splits = 1;
    int chunks_per_split = 0;
};

constexpr GemvPlan gemv_plan(int n, int k) {
    const long long chunks = k / kGemvChunk;
    const long long tiles = (static_cast<long long>(n) + kGemvRows - 1) / kGemvRows;
    long long want = tiles > 0 ? (kGemvTargetBlocks + tiles - 1) / tiles : 1;
    const long long most = chunks / kGemvThreads;  // slices of at least one step per thread
    if (want > most) want = most;
    if (want > kGemvMaxSplits) want = kGemvMaxSplits;
    if (want <= 1) return GemvPlan{1, static_cast<int>(chunks)};
    // Whole steps per slice; recount the slices so that none is empty.
    long long per = (chunks + want - 1) / want;
    per = (per + kGemvThreads - 1) / kGemvThreads * kGemvThreads;
    return GemvPlan{static_cast<int>((chunks + per - 1) / per), static_cast<int>(per)};
}

namespace gemv_impl {

// bf16 is the top half of an fp32: the conversion is a shift (exact).
__device__ __forceinline__ void bf16x2_to_float(unsigned int v, float& lo, float& hi) {
    lo = __uint_as_float(v << 16);
    hi = __uint_as_float(v & 0xffff0000u);
}
__device__ __forceinline__ void f16x2_to_float(unsigned int v, float& lo, float& hi) {
    lo = __half2float(__ushort_as_half(static_cast<unsigned short>(v & 0xffffu)));
    hi = __half2float(__ushort_as_half(static_cast<unsigned short>(v >> 16)));
}

// The 8 elements at p (16-byte aligned) as fp32, through 128-bit read-only loads (ld.global.nc.v4).
__device__ __forceinline__ void load8(const __nv_bfloat16* p, float (&f)[8]) {
    const uint4 u = __ldg(reinterpret_cast<const uint4*>(p));
    bf16x2_to_float(u.x, f[0], f[1]);
    bf16x2_to_float(u.y, f[2], f[3]);
    bf16x2_to_float(u.z, f[4], f[5]);
    bf16x2_to_float(u.w, f[6], f[7]);
}
__device__ __forceinline__ void load8(const __half* p, float (&f)[8]) {
    const uint4 u = __ldg(reinterpret_cast<const uint4*>(p));
    f16x2_to_float(u.x, f[0], f[1]);
    f16x2_to_float(u.y, f[2], f[3]);
    f16x2_to_float(u.z, f[4], f[5]);
    f16x2_to_float(u.w, f[6], f[7]);
}
__device__ __forceinline__ void load8(const float* p, float (&f)[8]) {
    const float4 a = __ldg(reinterpret_cast<const float4*>(p));
    const float4 b = __ldg(reinterpret_cast<const float4*>(p) + 1);
    f[0] = a.x, f[1] = a.y, f[2] = a.z, f[3] = a.w;
    f[4] = b.x, f[5] = b.y, f[6] = b.z, f[7] = b.w;
}

__device__ __forceinline__ void store(float* p, float v) {
    *p = v;
}
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) {
    *p = __float2bfloat16(v);  // round to nearest even
}

// W's row for output j, or -1 when rows[j] is outside [0, w_rows) (that output becomes NaN).
__device__ __forceinline__ long long weight_row(const int32_t* rows, int j, int w_rows) {
    const long long row = rows != nullptr ? static_cast<long long>(rows[j]) : j;
    return row >= 0 && row < w_rows ? row : -1;
}

}  // namespace gemv_impl

// One launch of kBatch >= batch activation rows (kBatch 1, 2, 4 or 8: the registers scale with it).
// x: [batch, ldx], y: [batch, ldy]; partials (S * batch * n floats) and tickets (ceil(n / 4) counters,
// zero on entry and on exit) only when gridDim.y = S > 1.
template <class Tw, class Tx, class Ty, int kBatch, GemvBug kBug = GemvBug::none>
__global__ void __launch_bounds__(kGemvThreads)
    gemv_kernel(const Tx* __restrict__ x, int batch, int ldx, const Tw* __restrict__ w, int w_rows, int k,
                const int32_t* __restrict__ rows, int n, Ty* __restrict__ y, int ldy, float* __restrict__ partials,
                unsigned int* __restrict__ tickets, int chunks_per_split) {
    using namespace gemv_impl;
    constexpr int kWarps = kGemvThreads / 32;
    constexpr int kValues = kGemvRows * kBatch;  // accumulators per thread: 4, 8, 16 or 32
    static_assert(kValues <= 32, "one lane of warp 0 per accumulator");
    CARBON_SHARED(float[kWarps][kValues][33], all_acc);  // every thread's accumulators
    CARBON_SHARED(float[kWarps][kValues], part_sums);    // per warp

    const int tile = static_cast<int>(blockIdx.x), split = static_cast<int>(blockIdx.y);
    const int splits = static_cast<int>(gridDim.y);
    const int j0 = tile * kGemvRows;

    // The tile's weight rows; rows past n or out of range are skipped (their outputs are not real).
    const Tw* wrow[kGemvRows];
    bool live[kGemvRows];
CARBON_UNROLL
    for (int r = 0; r < kGemvRows; ++r) {
        const long long row = j0 + r < n ? weight_row(rows, j0 + r, w_rows) : -1;
        live[r] = row >= 0;
        wrow[r] = w + (live[r] ? row : 0) * static_cast<long long>(k);
    }

    const int chunks = k / kGemvChunk;
    const int c_begin = split * chunks_per_split;
    int c_end = c_begin + chunks_per_split < chunks ? c_begin + chunks_per_split : chunks;
    if constexpr (kBug == GemvBug::drop_last_chunk) c_end -= 1;

    float acc[kGemvRows][kBatch];
CARBON_UNROLL
    for (int r = 0; r < kGemvRows; ++r)
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) acc[r][b] = 0.0f;

    for (int c = c_begin + static_cast<int>(threadIdx.x); c < c_end; c += kGemvThreads) {
        const long long offset = static_cast<long long>(c) * kGemvChunk;
        float wf[kGemvRows][8];
CARBON_UNROLL
        for (int r = 0; r < kGemvRows; ++r) {
            if (live[r]) {
                load8(wrow[r] + offset, wf[r]);
            } else {
CARBON_UNROLL
                for (int e = 0; e < 8; ++e) wf[r][e] = 0.0f;
            }
        }
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) {
            if (b >= batch) break;
            float xf[8];
            load8(x + static_cast<long long>(b) * ldx + offset, xf);
CARBON_UNROLL
            for (int r = 0; r < kGemvRows; ++r)
CARBON_UNROLL
                for (int e = 0; e < 8; ++e) acc[r][b] = fmaf(xf[e], wf[r][e], acc[r][b]);
        }
    }

    // The block's 128 values of each accumulator v = r * kBatch + b, added in an order that does not
    // depend on kBatch (batch invariance): each warp's 32 lanes in order, then the 4 warps in order.
    // Thread t < 4 * kValues adds lanes 0..31 of warp t / kValues for accumulator t % kValues; the
    // pad of 33 makes those reads, and the stores before them, free of bank conflicts.
    const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
CARBON_UNROLL
    for (int r = 0; r < kGemvRows; ++r)
CARBON_UNROLL
        for (int b = 0; b < kBatch; ++b) all_acc[warp][r * kBatch + b][lane] = acc[r][b];
    if constexpr (kBug != GemvBug::skip_barrier) __syncthreads();
    if (t < kWarps * kValues) {
        const int v = t % kValues, q = t / kValues;
        float s = all_acc[q][v][0];
CARBON_UNROLL
        for (int i = 1; i < 32; ++i) s += all_acc[q][v][i];
        part_sums[q][v] = s;
    }
    __syncthreads();
    if (t >= 32) return;

    const int r = lane / kBatch, b = lane % kBatch, j = j0 + r;
    const bool mine = lane < kValues && b < batch && j < n;  // this lane has an output to produce
    float total = 0.0f;
    if (mine) {
        total = part_sums[0][lane];
CARBON_UNROLL
        for (int q = 1; q < kWarps; ++q) total += part_sums[q][lane];
    }
    const float nan = __int_as_float(0x7fc00000);
    Ty* const out = y + static_cast<long long>(b) * ldy + j;
    if (splits == 1) {
        if (mine) store(out, weight_row(rows, j, w_rows) >= 0 ? total : nan);
        return;
    }

    // Split k: publish this slice's sums; the block drawing the last ticket adds the slices in order.
    const long long stride = static_cast<long long>(batch) * n;  // one slice's partials
    float* const mine_partial = partials + static_cast<long long>(b) * n + j;
    if (mine) mine_partial[split * stride] = total;
    __threadfence();
    __syncwarp();
    unsigned int ticket = 0;
    if (lane == 0) ticket = atomicAdd(&tickets[tile], 1u);
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket != static_cast<unsigned int>(splits - 1)) return;
    __threadfence();
    if (mine) {
        float sum = __ldcg(mine_partial);  // L2: the other slices were written by other SMs
        for (int s = 1; s < splits; ++s) sum += __ldcg(mine_partial + s * stride);
        store(out, weight_row(rows, j, w_rows) >= 0 ? sum : nan);
    }
    if (lane == 0) tickets[tile] = 0u;  // ready for the next launch on this workspace
}

}  // namespace carbon::kern
