// Host execution layer, the bf16/half math CUDA 13 declares for device code only: __hfma, __hfma2
// (rounded once, exactly like the GPU's fma.rn), hsqrt, hrsqrt, hexp, hlog, hrcp (computed in float
// and rounded to nearest, as the GPU computes them, whose float steps are approximate).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

namespace carbon::host::detail {

inline double to_double(__nv_bfloat16 x) {
    return static_cast<double>(__bfloat162float(x));
}
inline double to_double(__half x) {
    return static_cast<double>(__half2float(x));
}
inline std::uint16_t raw_bits(__nv_bfloat16 x) {
    return __bfloat16_as_ushort(x);
}
inline std::uint16_t raw_bits(__half x) {
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
H round_from_double(double x) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return __double2bfloat16(x);
    else
        return __double2half(x);
}
template <class H>
H from_float(float x) {
    if constexpr (std::is_same_v<H, __nv_bfloat16>)
        return __float2bfloat16(x);
    else
        return __float2half(x);
}

// The next representable value after x towards +inf (up) or -inf, on the sign-magnitude bits.
template <class H>
H step(H x, bool up) {
    const std::uint16_t b = raw_bits(x);
    const bool negative = (b & 0x8000u) != 0;
    const std::uint16_t magnitude = b & 0x7fffu;
    if (magnitude == 0) return from_bits<H>(up ? 0x0001u : 0x8001u);
    const bool grow = up != negative;  // away from zero
    return from_bits<H>(static_cast<std::uint16_t>(grow ? b + 1 : b - 1));
}

// Rounds the exact value hi + lo (|lo| at most half an ulp of the double hi) to H, to nearest even,
// with one rounding: a tie of hi alone is broken by the sign of lo.
template <class H>
H round_exact(double hi, double lo) {
    const H r = round_from_double<H>(hi);
    const double rd = to_double(r);
    if (lo == 0.0 || !std::isfinite(rd) || rd == hi) return r;
    const H n = step(r, hi > rd);  // the neighbour on hi's side
    const double nd = to_double(n);
    if (!std::isfinite(nd) || hi != (rd + nd) / 2) return r;
    return (lo > 0) == (nd > rd) ? n : r;
}

// a * b + c rounded once: the product of two 8- or 11-bit significands is exact in a double; the sum
// is split into its rounded double and the error (Knuth's two-sum).
template <class H>
H fma_exact(H a, H b, H c) {
    const double p = to_double(a) * to_double(b);
    const double q = to_double(c);
    const double s = p + q;
    const double bp = s - q;
    const double lo = (p - bp) + (q - (s - bp));
    if (!std::isfinite(s)) return round_from_double<H>(s);
    return round_exact<H>(s, lo);
}

template <class H>
H via_float(H x, float (*f)(float)) {
    return from_float<H>(f(static_cast<float>(to_double(x))));
}
inline float sqrt_f(float x) {
    return std::sqrt(x);
}
inline float rsqrt_f(float x) {
    return 1.0f / std::sqrt(x);
}
inline float exp_f(float x) {
    return std::exp(x);
}
inline float log_f(float x) {
    return std::log(x);
}
inline float rcp_f(float x) {
    return 1.0f / x;
}

}  // namespace carbon::host::detail

#define CARBON_HOST_HALF_MATH(H, H2)                                              \
    inline H __hfma(H a, H b, H c) {                                              \
        return carbon::host::detail::fma_exact(a, b, c);                          \
    }                                                                             \
    inline H2 __hfma2(H2 a, H2 b, H2 c) {                                         \
        H2 r = a;                                                                 \
        r.x = carbon::host::detail::fma_exact(a.x, b.x, c.x);                     \
        r.y = carbon::host::detail::fma_exact(a.y, b.y, c.y);                     \
        return r;                                                                 \
    }                                                                             \
    inline H hsqrt(H x) {                                                         \
        return carbon::host::detail::via_float(x, carbon::host::detail::sqrt_f);  \
    }                                                                             \
    inline H hrsqrt(H x) {                                                        \
        return carbon::host::detail::via_float(x, carbon::host::detail::rsqrt_f); \
    }                                                                             \
    inline H hexp(H x) {                                                          \
        return carbon::host::detail::via_float(x, carbon::host::detail::exp_f);   \
    }                                                                             \
    inline H hlog(H x) {                                                          \
        return carbon::host::detail::via_float(x, carbon::host::detail::log_f);   \
    }                                                                             \
    inline H hrcp(H x) {                                                          \
        return carbon::host::detail::via_float(x, carbon::host::detail::rcp_f);   \
    }
CARBON_HOST_HALF_MATH(__nv_bfloat16, __nv_bfloat162)
CARBON_HOST_HALF_MATH(__half, __half2)
#undef CARBON_HOST_HALF_MATH
