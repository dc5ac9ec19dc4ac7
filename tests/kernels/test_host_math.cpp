// Host layer tests, device math: the float intrinsics, reinterpretations, bit operations and min/max
// overloads, and the bf16/half functions CUDA 13 lacks on the host; __hfma(2) is checked against an
// exact reference (__float128 arithmetic, round to nearest even) including the double-rounding ties.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "check.h"
#include "cuda_portable.cuh"

TEST(float_intrinsics) {
    CHECK_NEAR(__expf(1.0f), 2.718281828, 1e-6);
    CHECK_NEAR(__exp10f(2.0f), 100.0, 1e-4);
    CHECK_NEAR(__logf(10.0f), 2.302585093, 1e-6);
    CHECK_NEAR(__log2f(8.0f), 3.0, 1e-6);
    CHECK_NEAR(__log10f(1000.0f), 3.0, 1e-6);
    CHECK_NEAR(__sinf(0.5f), 0.479425539, 1e-6);
    CHECK_NEAR(__cosf(0.5f), 0.877582562, 1e-6);
    CHECK_NEAR(__tanf(0.5f), 0.546302490, 1e-6);
    CHECK_NEAR(__powf(2.0f, 10.0f), 1024.0, 1e-3);
    CHECK_EQ(__fdividef(3.0f, 4.0f), 0.75f);
    CHECK_EQ(__frcp_rn(4.0f), 0.25f);
    CHECK_EQ(__fsqrt_rn(9.0f), 3.0f);
    CHECK_EQ(__frsqrt_rn(16.0f), 0.25f);
    CHECK_EQ(rsqrtf(4.0f), 0.5f);
    CHECK_EQ(rsqrt(0.25), 2.0);
    CHECK_EQ(__saturatef(1.5f), 1.0f);
    CHECK_EQ(__saturatef(-0.5f), 0.0f);
    CHECK_EQ(__saturatef(0.25f), 0.25f);
    CHECK_EQ(__saturatef(std::numeric_limits<float>::quiet_NaN()), 0.0f);
    CHECK_EQ(__fmaf_rn(2.0f, 3.0f, 1.0f), 7.0f);
    CHECK_EQ(__fadd_rn(1.0f, 2.0f), 3.0f);
    CHECK_EQ(__fsub_rn(1.0f, 2.0f), -1.0f);
    CHECK_EQ(__fmul_rn(1.5f, 2.0f), 3.0f);
    CHECK_EQ(__fdiv_rn(1.0f, 4.0f), 0.25f);
}

TEST(reinterpretations_and_conversions) {
    CHECK_EQ(__float_as_int(1.0f), 0x3f800000);
    CHECK_EQ(__float_as_uint(-0.0f), 0x80000000u);
    CHECK_EQ(__int_as_float(0x40400000), 3.0f);
    CHECK_EQ(__uint_as_float(0x3f000000u), 0.5f);
    CHECK_EQ(__double_as_longlong(1.0), 0x3ff0000000000000ll);
    CHECK_EQ(__longlong_as_double(0x4000000000000000ll), 2.0);
    CHECK_EQ(__float2int_rn(2.5f), 2);
    CHECK_EQ(__float2int_rn(3.5f), 4);
    CHECK_EQ(__float2int_rn(-2.5f), -2);
    CHECK_EQ(__float2int_rz(-2.7f), -2);
    CHECK_EQ(__int2float_rn(7), 7.0f);
}

TEST(bit_operations) {
    CHECK_EQ(__popc(0xF0F0u), 8);
    CHECK_EQ(__popcll(~0ull), 64);
    CHECK_EQ(__clz(0), 32);
    CHECK_EQ(__clz(1), 31);
    CHECK_EQ(__clz(-1), 0);
    CHECK_EQ(__clzll(1ll), 63);
    CHECK_EQ(__ffs(0), 0);
    CHECK_EQ(__ffs(8), 4);
    CHECK_EQ(__ffsll(1ll << 40), 41);
    CHECK_EQ(__brev(1u), 0x80000000u);
    CHECK_EQ(__brev(0x12345678u), 0x1E6A2C48u);
}

TEST(min_max_overloads) {
    CHECK_EQ(min(3, -4), -4);
    CHECK_EQ(max(3u, 4u), 4u);
    CHECK_EQ(min(5ll, -6ll), -6ll);
    CHECK_EQ(max(5ull, 6ull), 6ull);
    CHECK_EQ(min(2L, 1L), 1L);
    CHECK_EQ(max(2UL, 1UL), 2UL);
    CHECK_EQ(max(1.5f, -2.0f), 1.5f);
    CHECK_EQ(min(1.5, -2.0), -2.0);
    CHECK_EQ(max(std::numeric_limits<float>::quiet_NaN(), 3.0f), 3.0f);  // fmaxf: the NaN loses
    CHECK_EQ(max(-1, 2u), 0xFFFFFFFFu);                                  // mixed: compared as unsigned
    CHECK_EQ(min(2u, -1), 2u);
}

namespace {

using Quad = __float128;

template <class H>
Quad quad(H x) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return static_cast<Quad>(__bfloat162float(x));
    else
        return static_cast<Quad>(__half2float(x));
}
template <class H>
std::uint16_t bits(H x) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return __bfloat16_as_ushort(x);
    else
        return __half_as_ushort(x);
}
template <class H>
H from_bits(std::uint16_t b) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return __ushort_as_bfloat16(b);
    else
        return __ushort_as_half(b);
}

template <class H>
constexpr std::uint16_t kMaxFinite = std::is_same_v<H, __nv_bfloat16> ? 0x7F7F : 0x7BFF;

// Nearest H to the exact value v, ties to the even significand: a binary search over the finite
// magnitudes (increasing with their bits), independent of the layer's rounding.
template <class H>
H round_reference(Quad v) {
    const bool negative = v < 0;
    const Quad m = negative ? -v : v;
    std::uint16_t lo = 0, hi = kMaxFinite<H>;
    while (lo < hi) {
        const auto mid = static_cast<std::uint16_t>((lo + hi + 1) / 2);
        if (quad(from_bits<H>(mid)) <= m)
            lo = mid;
        else
            hi = static_cast<std::uint16_t>(mid - 1);
    }
    std::uint16_t b = lo;
    if (lo < kMaxFinite<H>) {
        const Quad below = m - quad(from_bits<H>(lo));
        const Quad above = quad(from_bits<H>(static_cast<std::uint16_t>(lo + 1))) - m;
        if (above < below || (above == below && (lo & 1u) != 0)) b = static_cast<std::uint16_t>(lo + 1);
    }
    return from_bits<H>(static_cast<std::uint16_t>(negative ? (b | 0x8000u) : b));
}

template <class H>
void check_hfma(H a, H b, H c) {
    const Quad exact = quad(a) * quad(b) + quad(c);
    const H want = round_reference<H>(exact);
    const H got = __hfma(a, b, c);
    if (bits(got) != bits(want) && !(quad(got) == 0 && quad(want) == 0)) {
        CHECK_EQ(bits(got), bits(want));
        std::fprintf(stderr, "  __hfma(%g, %g, %g)\n", double(quad(a)), double(quad(b)), double(quad(c)));
    }
}

template <class H>
H value(float f) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return __float2bfloat16(f);
    else
        return __float2half(f);
}

// Products that land exactly on a midpoint between two H values (1.5 times an odd significand below
// 4/3 has one bit too many), plus a tiny addend that decides the rounding. For bf16 the addend is
// below a double's resolution, where rounding the sum to double first and then to bf16 goes wrong.
template <class H>
void check_hfma_ties() {
    int ties = 0;
    for (const float fa : {1.5f, 1.25f, 1.75f, 3.0f}) {
        const H a = value<H>(fa);
        for (std::uint16_t bb = static_cast<std::uint16_t>(bits(value<H>(1.0f)) + 1);
             quad(from_bits<H>(bb)) < static_cast<Quad>(1.34); bb = static_cast<std::uint16_t>(bb + 2)) {
            const H b = from_bits<H>(bb);
            const Quad p = quad(a) * quad(b);
            const H r = round_reference<H>(p);
            const Quad up = quad(from_bits<H>(static_cast<std::uint16_t>(bits(r) + 1)));
            const Quad down = quad(from_bits<H>(static_cast<std::uint16_t>(bits(r) - 1)));
            if (p != (quad(r) + up) / 2 && p != (quad(r) + down) / 2) continue;
            ++ties;
            const H tiny = std::is_same_v<H, __nv_bfloat16> ? value<H>(1e-20f) : from_bits<H>(0x0001);
            const H minus_tiny = from_bits<H>(static_cast<std::uint16_t>(bits(tiny) | 0x8000u));
            check_hfma(a, b, tiny);
            check_hfma(a, b, minus_tiny);
            check_hfma(a, b, value<H>(0.0f));
        }
    }
    CHECK(ties >= 8);
}

template <class H>
void check_hfma_random() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> mant(-2.0f, 2.0f);
    std::uniform_int_distribution<int> expo(-6, 6);
    for (int i = 0; i < 2000; ++i) {
        const H a = value<H>(std::ldexp(mant(rng), expo(rng)));
        const H b = value<H>(std::ldexp(mant(rng), expo(rng)));
        const H c = value<H>(std::ldexp(mant(rng), expo(rng)));
        check_hfma(a, b, c);
    }
}

}  // namespace

TEST(hfma_rounds_once_like_the_gpu) {
    check_hfma_ties<__nv_bfloat16>();
    check_hfma_ties<__half>();
    check_hfma_random<__nv_bfloat16>();
    check_hfma_random<__half>();
    const __nv_bfloat162 a = __floats2bfloat162_rn(1.5f, -2.0f), b = __floats2bfloat162_rn(2.0f, 3.0f);
    const __nv_bfloat162 r = __hfma2(a, b, __floats2bfloat162_rn(0.25f, 1.0f));
    CHECK_EQ(__low2float(r), 3.25f);
    CHECK_EQ(__high2float(r), -5.0f);
    const __half2 h =
        __hfma2(__floats2half2_rn(1.5f, -2.0f), __floats2half2_rn(2.0f, 3.0f), __floats2half2_rn(0.25f, 1.0f));
    CHECK_EQ(__low2float(h), 3.25f);
    CHECK_EQ(__high2float(h), -5.0f);
}

TEST(half_precision_functions_within_one_ulp) {
    for (const float x : {0.25f, 0.7f, 1.0f, 2.0f, 3.3f, 100.0f}) {
        // bf16 keeps 8 significant bits (relative step 2^-7), half 11 (2^-10).
        CHECK_NEAR(__bfloat162float(hsqrt(__float2bfloat16(x))), std::sqrt(__bfloat162float(__float2bfloat16(x))),
                   std::sqrt(x) * 0x1p-7);
        CHECK_NEAR(__bfloat162float(hrsqrt(__float2bfloat16(x))),
                   1.0f / std::sqrt(__bfloat162float(__float2bfloat16(x))), 0x1p-7 / std::sqrt(x));
        CHECK_NEAR(__bfloat162float(hexp(__float2bfloat16(x / 32))),
                   std::exp(__bfloat162float(__float2bfloat16(x / 32))), std::exp(x / 32) * 0x1p-7);
        CHECK_NEAR(__bfloat162float(hlog(__float2bfloat16(x))), std::log(__bfloat162float(__float2bfloat16(x))),
                   std::fabs(std::log(x)) * 0x1p-7 + 1e-6);
        CHECK_NEAR(__bfloat162float(hrcp(__float2bfloat16(x))), 1.0f / __bfloat162float(__float2bfloat16(x)),
                   0x1p-7 / x);
        CHECK_NEAR(__half2float(hsqrt(__float2half(x))), std::sqrt(__half2float(__float2half(x))),
                   std::sqrt(x) * 0x1p-10);
        CHECK_NEAR(__half2float(hrsqrt(__float2half(x))), 1.0f / std::sqrt(__half2float(__float2half(x))),
                   0x1p-10 / std::sqrt(x));
        CHECK_NEAR(__half2float(hexp(__float2half(x / 32))), std::exp(__half2float(__float2half(x / 32))),
                   std::exp(x / 32) * 0x1p-10);
        CHECK_NEAR(__half2float(hlog(__float2half(x))), std::log(__half2float(__float2half(x))),
                   std::fabs(std::log(x)) * 0x1p-10 + 1e-6);
        CHECK_NEAR(__half2float(hrcp(__float2half(x))), 1.0f / __half2float(__float2half(x)), 0x1p-10 / x);
    }
}
