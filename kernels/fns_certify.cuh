// The FNS base pick with a certificate: which base the CPU's adjust_base_distribution + pick_base
// (engine/src/fns/fns.cpp) choose from a position's masked marginals, decided only when every marginal
// vector within the stated CPU-GPU bound gives that same base; otherwise "undecided", and the row
// goes back to the CPU functions. Host and device code (the tests call it directly).
//
// Why a certificate and not the CPU's arithmetic replayed: the decisive chain starts with exp() in
// dna_softmax and pow() in adjust_base_distribution, whose last bit is the library's choice (glibc
// has FMA and SSE2 variants chosen at run time; CUDA's libdevice is another), so no ordering of the
// sums makes the GPU's marginals bit-identical to the CPU's on every input, and a draw at a razor-
// thin boundary (u * total against a cumulative mass, two marginals an ulp apart) could then flip.
// Instead the kernel bounds the difference and proves the decision does not depend on it.
//
// The bound (fns_step.h states it too): the CPU's masked marginal c and the GPU's g both lie within
// 4.2e-7 * mu + 2^-110/total + 2^-124 of the exact value mu: per probability 3 float roundings
// (float(e), float(1/S), the product: 3 * 2^-24 = 1.79e-7) plus double sums and an exp within
// 2^-40 (both libraries are within 2 ulp, 2^-51), the ratio of two such sums (2 * 1.79e-7), one more
// float rounding (6e-8); the absolute term covers subnormals and flush-to-zero (2^-125 per
// probability, 4,096 of them). So |c - g| <= 1e-6 * g + abs, with 20% headroom. Everything after
// the marginals is followed as intervals: pow within 1e-11 relative (both libraries within 2^-40),
// each CPU double step within 1e-14, each float rounding within 2^-23 relative + 2^-126.
#pragma once

#include <cmath>

#include "cuda_portable.cuh"

namespace carbon::kern {

// Slack of every step; fns_slack(true) (all zero) is the injected bug of the certificate's own test: it
// trusts the GPU's marginals as if they were the CPU's, and the test must find a pick it gets wrong.
struct FnsSlack {
    double marginal_rel, round_rel, pow_rel, float_rel, float_abs, double_abs;
};
__host__ __device__ constexpr FnsSlack fns_slack(bool none) {
    return none ? FnsSlack{0, 0, 0, 0, 0, 0} : FnsSlack{1e-6, 1e-14, 1e-11, 0x1p-23, 0x1p-126, 1e-300};
}

// The absolute part of the marginal bound, for a masked total (the sum of the allowed 6-mers'
// probabilities). Totals below kFnsMinCertifiedTotal are never certified: there the bound would
// be no tighter than the marginals themselves, and the CPU's total, within 2^-112 of ours, is then
// still certainly positive (the CPU does not refuse a certified row).
inline constexpr double kFnsMinCertifiedTotal = 0x1p-100;
__host__ __device__ __forceinline__ double fns_marginal_abs_bound(double masked_total) {
    return 0x1p-109 / masked_total + 0x1p-123;
}

struct FnsPick {
    bool decided;
    int base;  // the code the CPU picks (A=0, T=1, C=2, G=3) when decided, else -1
};

namespace fns_certify_impl {

__host__ __device__ __forceinline__ double down(double x, double rel, double abs) {
    const double y = x - x * rel - abs;
    return y > 0.0 ? y : 0.0;
}
__host__ __device__ __forceinline__ double up(double x, double rel, double abs) {
    return x + x * rel + abs;
}
__host__ __device__ __forceinline__ bool has(unsigned set, int b) {
    return (set >> b) & 1u;
}
// Decreasing order of four values, with compile-time indices only.
__host__ __device__ __forceinline__ void sort4_decreasing(double (&v)[4]) {
    auto order = [](double& a, double& b) {
        if (a < b) {
            const double t = a;
            a = b;
            b = t;
        }
    };
    order(v[0], v[1]);
    order(v[2], v[3]);
    order(v[0], v[2]);
    order(v[1], v[3]);
    order(v[1], v[2]);
}

}  // namespace fns_certify_impl

// g: the GPU's masked marginals at one position (g[b] for codes b = 0..3); margin_abs:
// fns_marginal_abs_bound(total); left: the bases the CPU may pick (BaseMask: the template's allowed
// bases, or what the constraint search has not tried yet); temperature, top_p, u: as the CPU has
// them (u = 0 for temperature 0). Mirrors, step by step, adjust_base_distribution and pick_base,
// and choose_fns's fallback (the most likely left base when nothing has mass).
// All arrays are indexed with compile-time indices only (unrolled loops), so nvcc keeps them in
// registers.
template <bool kNoSlack = false>
__host__ __device__ __forceinline__ FnsPick fns_certified_pick(const float* g, double margin_abs, unsigned left,
                                                               float temperature, float top_p, float u) {
    using namespace fns_certify_impl;
    constexpr FnsSlack s = fns_slack(kNoSlack);
    constexpr FnsPick undecided{false, -1};
    left &= 0xFu;
    if (left == 0) return undecided;  // the CPU never picks from nothing
    if ((left & (left - 1)) == 0) {
        // One base left: adjust gives it all the mass, or nothing and the fallback takes it.
        int only = 0;
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b)
            if (has(left, b)) only = b;
        return {true, only};
    }
    // Where the CPU's marginal c[b] can be.
    double mlo[4], mhi[4];
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) {
        const double gb = g[b];
        const double d = gb * s.marginal_rel + (kNoSlack ? 0.0 : margin_abs);
        mlo[b] = gb - d > 0.0 ? gb - d : 0.0;
        mhi[b] = gb + d;
    }

    if (temperature <= 0.0f) {
        // Greedy: the first strict arg-max among the left bases with p > 0. Decided when one base
        // is certainly positive and certainly above every other.
        int best = -1;
        float best_g = 0.0f;
        double best_lo = 0.0;
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b)
            if (has(left, b) && (best < 0 || g[b] > best_g)) best = b, best_g = g[b], best_lo = mlo[b];
        if (!(best_lo > 0.0)) return undecided;
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b)
            if (has(left, b) && b != best && !(best_lo > mhi[b])) return undecided;
        return {true, best};
    }

    // q[b] = pow(c[b], 1/T) for left bases with c[b] > 0, else exactly 0 (zero[b]: known zero).
    const double inv_t = 1.0 / static_cast<double>(temperature);  // the CPU's very operation
    double qlo[4], qhi[4];
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) {
        qlo[b] = 0.0, qhi[b] = 0.0;
        if (has(left, b)) {
            qhi[b] = up(pow(mhi[b], inv_t), s.pow_rel, s.double_abs);
            qlo[b] = mlo[b] > 0.0 ? down(pow(mlo[b], inv_t), s.pow_rel, s.double_abs) : 0.0;
        }
    }
    double sum_lo = 0.0;
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) sum_lo += qlo[b];
    if (!(down(sum_lo, s.round_rel, s.double_abs) > 0.0)) return undecided;  // the CPU's sum might be 0

    // n[b] = q[b] / sum: increasing in q[b], decreasing in the others' sum.
    double nlo[4], nhi[4];
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) {
        double olo = 0.0, ohi = 0.0;
        CARBON_UNROLL
        for (int c = 0; c < 4; ++c)
            if (c != b) olo += qlo[c], ohi += qhi[c];
        nlo[b] = nhi[b] = 0.0;
        if (has(left, b)) {
            nlo[b] = qlo[b] + ohi > 0.0 ? down(qlo[b] / (qlo[b] + ohi), s.round_rel, s.double_abs) : 0.0;
            const double h = up(qhi[b] / (qhi[b] + olo), s.round_rel, s.double_abs);
            nhi[b] = h < 1.0 ? h : 1.0;
        }
    }

    // r[b]: the distribution pick_base sees (before its float rounding).
    double rlo[4], rhi[4];
    unsigned kept = left;
    if (top_p < 1.0f) {
        // The nucleus: the CPU sorts by n (stable: ties by code) and keeps the first K, K the first
        // count whose running mass reaches top_p (or all positive ones). The order inside the
        // nucleus does not matter, only K and which bases: the CPU's top-k mass lies between the
        // sums of the k largest lower and upper bounds, and the kept set is certain when every
        // kept base is certainly above every other one. (A nearly flat row keeps all four bases at
        // top-p 0.9 whatever their order: requiring a certain order would refuse it.)
        const double p = static_cast<double>(top_p);
        double slo[4], shi[4];  // nlo, nhi sorted in decreasing order (a sorting network)
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b) slo[b] = nlo[b], shi[b] = nhi[b];
        sort4_decreasing(slo);
        sort4_decreasing(shi);
        int positive = 0, maybe_zero = 0;  // left bases with n certainly > 0; that might be 0
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b)
            if (has(left, b)) ++(nlo[b] > 0.0 ? positive : maybe_zero);
        int keep = -1;
        double top_lo = 0.0, top_hi = 0.0;
        CARBON_UNROLL
        for (int k = 1; k <= 4; ++k) {
            top_lo += slo[k - 1];
            top_hi += shi[k - 1];
            if (keep >= 0) continue;
            if (k > positive) {
                // The CPU's k-th base might be 0 (its loop stops there) or positive.
                if (maybe_zero > 0) return undecided;
                keep = positive;
            } else if (down(top_lo, s.round_rel, s.double_abs) >= p) {
                keep = k;
            } else if (!(up(top_hi, s.round_rel, s.double_abs) < p)) {
                return undecided;
            }
        }
        if (keep < 0) keep = 4;  // four certainly positive bases, the mass below top_p until the last
        // The kept set: the `keep` left bases of largest nlo (ties by code), certainly above the rest.
        kept = 0;
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b) {
            int rank = 0;
            CARBON_UNROLL
            for (int c = 0; c < 4; ++c)
                if (has(left, c) && (nlo[c] > nlo[b] || (nlo[c] == nlo[b] && c < b))) ++rank;
            if (has(left, b) && rank < keep) kept |= 1u << b;
        }
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b) {
            CARBON_UNROLL
            for (int c = 0; c < 4; ++c)
                if (has(kept, b) && has(left, c) && !has(kept, c) && !(nlo[b] > nhi[c])) return undecided;
        }
        // r[b] = n[b] / (sum of the kept n).
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b) {
            double olo = 0.0, ohi = 0.0;
            CARBON_UNROLL
            for (int c = 0; c < 4; ++c)
                if (c != b && has(kept, c)) olo += nlo[c], ohi += nhi[c];
            rlo[b] = rhi[b] = 0.0;
            if (has(kept, b)) {
                rlo[b] = down(nlo[b] / (nlo[b] + ohi), s.round_rel, s.double_abs);
                const double h = up(nhi[b] / (nhi[b] + olo), s.round_rel, s.double_abs);
                rhi[b] = h < 1.0 ? h : 1.0;
            }
        }
    } else {
        CARBON_UNROLL
        for (int b = 0; b < 4; ++b) rlo[b] = nlo[b], rhi[b] = nhi[b];
    }

    // The float rounding of adjust_base_distribution's result; bases outside `kept` are exact zeros.
    double flo[4], fhi[4];
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) {
        flo[b] = down(rlo[b], s.float_rel, s.float_abs);
        fhi[b] = has(kept, b) ? up(rhi[b], s.float_rel, s.float_abs) : 0.0;
    }

    // pick_base: returns the first b with r[b] > 0 and u * total < (mass up to b). With A the mass up
    // to b and B the mass after it, u (A + B) < A is hardest at (A low, B high), easiest at (A high,
    // B low); A and B sum disjoint entries, so their ranges are independent.
    // Written without early returns, and with a bit set instead of flo[b]: nvcc otherwise merges the
    // unrolled iterations and indexes flo at run time (local memory).
    const double ud = static_cast<double>(u);
    unsigned positive = 0;
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b)
        if (flo[b] > 0.0) positive |= 1u << b;
    int picked = -1;
    bool done = false, sure = false;
    CARBON_UNROLL
    for (int b = 0; b < 4; ++b) {
        double a_lo = 0.0, a_hi = 0.0, b_lo = 0.0, b_hi = 0.0;
        CARBON_UNROLL
        for (int c = 0; c < 4; ++c) {
            if (c <= b)
                a_lo += flo[c], a_hi += fhi[c];
            else
                b_lo += flo[c], b_hi += fhi[c];
        }
        const bool surely = up(ud * (a_lo + b_hi), s.round_rel, s.double_abs) < down(a_lo, s.round_rel, s.double_abs);
        const bool surely_not =
            down(ud * (a_hi + b_lo), s.round_rel, s.double_abs) >= up(a_hi, s.round_rel, s.double_abs);
        // Bases outside `kept` are exactly 0 on the CPU too, which skips them.
        if (!done && has(kept, b) && !surely_not) {
            done = true;
            sure = surely && has(positive, b);
            picked = b;
        }
    }
    // Not done is unreachable for the CPU (u * total < total): refuse rather than guess.
    return done && sure ? FnsPick{true, picked} : undecided;
}

}  // namespace carbon::kern
