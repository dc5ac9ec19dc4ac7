// fns_step: the FNS decode step on the 4,096 DNA logits of a row (fns_step.h says what it computes
// and how it matches the CPU). One block of 256 threads per row; each thread holds 16 logits.
//
// Thread t holds 6-mers i = t + 256 k, k = 0..15. A 6-mer's base j sits in bits 2(5-j)..2(5-j)+1
// of i, so bases 2..5 of all 16 are fixed by t (t's bits 6-7, 4-5, 2-3, 0-1) and bases 0 and 1 are
// k's bits 2-3 and 0-1. A thread therefore needs only 8 partial sums for positions 0-1 (per base)
// and its total for positions 2-5, per set (plain, masked): 18 doubles. The warp then sums the 16
// position-0/1 partials by halving exchanges (16 shuffles: lane pairs end with value lane >> 1) and
// the totals grouped by the lane bits that carry a base (9 shuffles); 8 warps meet in shared memory.
// Softmax, sums and marginals follow the CPU's formula and precision (double exp, float(e), double
// sums, float(1/S), float products, float(acc/total)); only the order of the double sums differs,
// which fns_certify.cuh's bound covers.
//
// Cost per row, whatever the model: reads the 4,096 logits (16 KB fp32, 8 KB bf16) and 22 bytes of
// masks and counters, writes at most 248 bytes (status, token, 6 logp, 2 x 24 marginals); 4,096
// double exps and about 37,000 other double operations (up to 50,000 more with
// certify_every_subset). At decode batches every row gets its own SM and the launch is bound by its
// chain of latencies (load, two reductions, the exps, the certificate), a few microseconds.
//
// Versions considered (llm.c habit):
// - kept: a block of 256 per row. 16 logits per thread stay in registers from load to marginals;
//   8 warps hide the latency of the double exp; every row costs one pass over its 16 KB.
// - a warp per row (128 logits per lane): no block barriers, but 8x fewer threads per row to hide
//   the exp latency, and at batch <= 64 most SMs idle either way.
// - several blocks per row (for batch 1): needs a second launch or a grid-wide wait to combine max,
//   sum and marginals; the whole step is a few microseconds, so not worth the second pass.
// - marginals by 48 passes over the probabilities in shared memory (one per position, base, set):
//   simpler indexing, but 12x the reads and 16 KB of shared memory per row.
// - replaying the CPU's sequential sums in one thread (bitwise-identical sums): 4,096 dependent
//   double adds, and still not equal, since exp() itself differs in the last bit between libraries;
//   replaced by the certificate (fns_certify.cuh).
// - expf on float arguments: Ada/Ampere consumer GPUs run fp64 at 1/64 rate, but rounding the
//   argument (|d| * 2^-24 relative) would widen the bound 10x and change most last bits of the
//   probabilities; kept the double exp (4,096 per row, a few microseconds even at 1/64 rate).
#pragma once

#include <cmath>
#include <cstdint>

#include "carbon/kernels/fns_step.h"
#include "cuda_portable.cuh"
#include "fns_certify.cuh"
#include "philox.cuh"

namespace carbon::kern {

inline constexpr int kFnsThreads = 256;
inline constexpr int kFnsPerThread = kFnsKmers / kFnsThreads;  // 16
inline constexpr int kFnsWarps = kFnsThreads / 32;

// Injected bugs for the tests (the launchers use None): WrongPosition sums position 1's marginal
// over position 0's base; NoBarrier drops the __syncthreads between the warps' partial sums and
// the threads that add them up.
enum class FnsBug { None, WrongPosition, NoBarrier };

namespace fns_step_impl {

constexpr unsigned kFull = 0xffffffffu;
// Per-warp partial sums in shared memory: [0, 16) the position-0/1 sums (index 8 * set + 4 * position
// + base), then per set (plain 16, masked 27): 4 by position 5's base, 4 by position 4's, 2 by the
// half of position 3's base a warp holds, the warp's total.
constexpr int kGroupPlain = 16, kGroupMasked = 27;
constexpr int kSlots = 38;

__device__ __forceinline__ float load_logit(const float* p) {
    return *p;
}
__device__ __forceinline__ float load_logit(const __nv_bfloat16* p) {
    return __bfloat162float(*p);
}
__device__ __forceinline__ bool is_finite(float x) {
    return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u;
}

// v[0..15] per lane in; returns the warp's sum of v[lane >> 1]. Each exchange hands the partner
// the half it keeps and adds the half it receives (8 + 4 + 2 + 1 shuffles, then one for the pair).
__device__ __forceinline__ double warp_sum_by_pair(const double (&v)[16], int lane) {
    double a[8], b[4], c[2];
    const bool h4 = lane & 16, h3 = lane & 8, h2 = lane & 4, h1 = lane & 2;
    CARBON_UNROLL
    for (int i = 0; i < 8; ++i) a[i] = (h4 ? v[i + 8] : v[i]) + __shfl_xor_sync(kFull, h4 ? v[i] : v[i + 8], 16);
    CARBON_UNROLL
    for (int i = 0; i < 4; ++i) b[i] = (h3 ? a[i + 4] : a[i]) + __shfl_xor_sync(kFull, h3 ? a[i] : a[i + 4], 8);
    CARBON_UNROLL
    for (int i = 0; i < 2; ++i) c[i] = (h2 ? b[i + 2] : b[i]) + __shfl_xor_sync(kFull, h2 ? b[i] : b[i + 2], 4);
    double d = (h1 ? c[1] : c[0]) + __shfl_xor_sync(kFull, h1 ? c[0] : c[1], 2);
    return d + __shfl_xor_sync(kFull, d, 1);
}

// A thread's total x, summed over the lanes that share the lane bits carrying bases 5, 4 and
// (half of) 3, and over the warp; each lane writes the groups it is the first lane of.
__device__ __forceinline__ void write_group_sums(double x, int lane, double* slots) {
    double a = x + __shfl_xor_sync(kFull, x, 1);
    a += __shfl_xor_sync(kFull, a, 2);                     // lanes sharing bits 2-4
    const double by4 = a + __shfl_xor_sync(kFull, a, 16);  // sharing bits 2-3: position 4's base
    double by3 = a + __shfl_xor_sync(kFull, a, 4);
    by3 += __shfl_xor_sync(kFull, by3, 8);  // sharing bit 4: half of position 3's base
    const double total = by3 + __shfl_xor_sync(kFull, by3, 16);
    double by5 = x + __shfl_xor_sync(kFull, x, 4);
    by5 += __shfl_xor_sync(kFull, by5, 8);
    by5 += __shfl_xor_sync(kFull, by5, 16);  // sharing bits 0-1: position 5's base
    if (lane < 4) slots[lane] = by5;
    if (lane < 16 && (lane & 3) == 0) slots[4 + (lane >> 2)] = by4;
    if ((lane & 15) == 0) slots[8 + (lane >> 4)] = by3;
    if (lane == 0) slots[10] = total;
}

}  // namespace fns_step_impl

template <class T, FnsBug kBug = FnsBug::None>
__global__ void __launch_bounds__(kFnsThreads)
    fns_step_kernel(const T* __restrict__ logits, long long row_stride, FnsStepRows in, FnsStepParams params,
                    FnsStepOutputs out) {
    using namespace fns_step_impl;
    CARBON_SHARED(float[kFnsWarps], warp_max);
    CARBON_SHARED(double[kFnsWarps], warp_sum);
    CARBON_SHARED(double[kFnsWarps][kSlots], warp_part);
    CARBON_SHARED(float[2][kFnsPositions * 4], marg);  // [plain, masked][j * 4 + b]
    CARBON_SHARED(double[1], masked_total);
    CARBON_SHARED(unsigned[kFnsPositions], row_mask);
    CARBON_SHARED(int[kFnsPositions], chosen);

    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const long long row = blockIdx.x;
    const T* x_row = logits + row * row_stride;
    const float nan_f = NAN;
    const double nan_d = static_cast<double>(nan_f);

    // Max over the row, and the masks (all N without them).
    float x[kFnsPerThread];
    bool bad = false;
    float mx = -INFINITY;
    CARBON_UNROLL
    for (int k = 0; k < kFnsPerThread; ++k) {
        x[k] = load_logit(x_row + tid + kFnsThreads * k);
        bad = bad || !is_finite(x[k]);
        mx = fmaxf(mx, x[k]);
    }
    CARBON_UNROLL
    for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, off));
    if (lane == 0) warp_max[warp] = mx;
    if (tid < kFnsPositions) row_mask[tid] = in.masks ? in.masks[row * kFnsPositions + tid] & 0xFu : 0xFu;
    if (__syncthreads_or(bad)) {  // the CPU backends refuse such rows; nothing here is meaningful
        if (tid < kFnsPositions * 4) {
            if (out.marginals) out.marginals[row * 24 + tid] = nan_f;
            if (out.masked_marginals) out.masked_marginals[row * 24 + tid] = nan_f;
        }
        if (tid < kFnsPositions && out.logp) out.logp[row * kFnsPositions + tid] = nan_d;
        if (tid == 0) {
            out.status[row] = kFnsNonFinite;
            if (out.token) out.token[row] = -1;
        }
        return;
    }
    mx = warp_max[0];
    CARBON_UNROLL
    for (int w = 1; w < kFnsWarps; ++w) mx = fmaxf(mx, warp_max[w]);

    // dna_softmax: e = exp(double(x) - double(max)), probs = float(e) * float(1 / sum(e)).
    float p[kFnsPerThread];
    double e_sum = 0.0;
    CARBON_UNROLL
    for (int k = 0; k < kFnsPerThread; ++k) {
        const double e = exp(static_cast<double>(x[k]) - static_cast<double>(mx));
        p[k] = static_cast<float>(e);
        e_sum += e;
    }
    CARBON_UNROLL
    for (int off = 16; off > 0; off >>= 1) e_sum += __shfl_xor_sync(kFull, e_sum, off);
    if (lane == 0) warp_sum[warp] = e_sum;
    __syncthreads();
    double sum = warp_sum[0];
    CARBON_UNROLL
    for (int w = 1; w < kFnsWarps; ++w) sum += warp_sum[w];
    const float inv = static_cast<float>(1.0 / sum);
    CARBON_UNROLL
    for (int k = 0; k < kFnsPerThread; ++k) p[k] *= inv;

    // This thread's partial sums: positions 0-1 per base (from k), its totals (positions 2-5 from t).
    unsigned m[kFnsPositions];
    CARBON_UNROLL
    for (int j = 0; j < kFnsPositions; ++j) m[j] = row_mask[j];
    const bool t_allowed = ((m[2] >> ((tid >> 6) & 3)) & 1u) && ((m[3] >> ((tid >> 4) & 3)) & 1u) &&
                           ((m[4] >> ((tid >> 2) & 3)) & 1u) && ((m[5] >> (tid & 3)) & 1u);
    double v[16];
    CARBON_UNROLL
    for (int i = 0; i < 16; ++i) v[i] = 0.0;
    double plain_sum = 0.0, masked_sum = 0.0;
    CARBON_UNROLL
    for (int k = 0; k < kFnsPerThread; ++k) {
        constexpr bool wrong = kBug == FnsBug::WrongPosition;
        const int b0 = k >> 2, b1 = k & 3;
        const double pk = p[k];
        v[b0] += pk;
        v[4 + (wrong ? b0 : b1)] += pk;
        plain_sum += pk;
        if (t_allowed && ((m[0] >> b0) & 1u) && ((m[1] >> b1) & 1u)) {
            v[8 + b0] += pk;
            v[12 + (wrong ? b0 : b1)] += pk;
            masked_sum += pk;
        }
    }
    const double pair_sum = warp_sum_by_pair(v, lane);
    if ((lane & 1) == 0) warp_part[warp][lane >> 1] = pair_sum;
    write_group_sums(plain_sum, lane, &warp_part[warp][kGroupPlain]);
    write_group_sums(masked_sum, lane, &warp_part[warp][kGroupMasked]);
    if constexpr (kBug != FnsBug::NoBarrier) __syncthreads();

    // 48 threads add the warps' partials (warp order, the same in every run) into acc[set][j][b].
    if (tid < 2 * kFnsPositions * 4) {
        const int set = tid / 24, j = (tid % 24) / 4, b = tid % 4, g = set == 0 ? kGroupPlain : kGroupMasked;
        double acc = 0.0, total = 0.0;
        CARBON_UNROLL
        for (int w = 0; w < kFnsWarps; ++w) {
            const double* part = warp_part[w];
            total += part[g + 10];
            if (j == 0)
                acc += part[8 * set + b];
            else if (j == 1)
                acc += part[8 * set + 4 + b];
            else if (j == 2)
                acc += (w >> 1) == b ? part[g + 10] : 0.0;
            else if (j == 3)
                acc += (w & 1) == (b >> 1) ? part[g + 8 + (b & 1)] : 0.0;
            else if (j == 4)
                acc += part[g + 4 + b];
            else
                acc += part[g + b];
        }
        const float mj = total > 0.0 ? static_cast<float>(acc / total) : 0.0f;
        marg[set][j * 4 + b] = mj;
        float* dst = set == 0 ? out.marginals : out.masked_marginals;
        if (dst) dst[row * 24 + j * 4 + b] = mj;
        if (tid == 24) masked_total[0] = total;
    }
    __syncthreads();

    // The choice, certified (fns_certify.cuh): thread 16 j + s evaluates position j with the bases
    // `s` left (only s = the allowed set unless every subset is asked for).
    const bool none_allowed = !(m[0] && m[1] && m[2] && m[3] && m[4] && m[5]);
    const double total = masked_total[0];
    const bool certifiable = !none_allowed && total >= kFnsMinCertifiedTotal;
    bool certified = false;
    if (certifiable) {
        bool ok = true;
        if (tid < 16 * kFnsPositions) {
            const int j = tid >> 4;
            const unsigned sub = static_cast<unsigned>(tid & 15), allowed = row_mask[j];
            if (sub != 0 && (sub & ~allowed) == 0 && (params.certify_every_subset || sub == allowed)) {
                const float u = params.temperature > 0.0f
                                    ? philox_uniform01(params.seed, in.streams[row],
                                                       2 * in.steps[row] + static_cast<uint64_t>(j >> 2),
                                                       static_cast<uint32_t>(j & 3))
                                    : 0.0f;
                const FnsPick pick = fns_certified_pick(&marg[1][j * 4], fns_marginal_abs_bound(total), sub,
                                                        params.temperature, params.top_p, u);
                ok = pick.decided;
                if (sub == allowed) chosen[j] = pick.base;
            }
        }
        certified = __syncthreads_and(ok) != 0;
    }
    if (tid < kFnsPositions && out.logp)
        out.logp[row * kFnsPositions + tid] =
            certified ? log(static_cast<double>(marg[0][tid * 4 + chosen[tid]])) : nan_d;
    if (tid == 0) {
        int token = -1;
        if (certified) {
            token = 0;
            CARBON_UNROLL
            for (int j = 0; j < kFnsPositions; ++j) token = token * 4 + chosen[j];
        }
        if (out.token) out.token[row] = token;
        out.status[row] = certified ? kFnsCertified : none_allowed ? kFnsNoAllowedKmer : kFnsUndecided;
    }
}

}  // namespace carbon::kern
