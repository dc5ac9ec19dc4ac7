// Host execution layer, CUDA's device-only math for kernel code: the fast float intrinsics (__expf,
// __fdividef, rsqrtf, ...), reinterpretations (__float_as_int, ...), bit operations (__popc, __clz,
// __ffs, __brev) and the min/max overloads. The host computes them exactly (libm), where the GPU's
// fast intrinsics are approximate: compare kernels with a tolerance, never bitwise.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

inline float __expf(float x) {
    return std::exp(x);
}
inline float __exp10f(float x) {
    return std::pow(10.0f, x);
}
inline float __logf(float x) {
    return std::log(x);
}
inline float __log2f(float x) {
    return std::log2(x);
}
inline float __log10f(float x) {
    return std::log10(x);
}
inline float __sinf(float x) {
    return std::sin(x);
}
inline float __cosf(float x) {
    return std::cos(x);
}
inline float __tanf(float x) {
    return std::tan(x);
}
inline float __powf(float x, float y) {
    return std::pow(x, y);
}
inline float __fdividef(float x, float y) {
    return x / y;
}
inline float __frcp_rn(float x) {
    return 1.0f / x;
}
inline float __fsqrt_rn(float x) {
    return std::sqrt(x);
}
inline float __frsqrt_rn(float x) {
    return 1.0f / std::sqrt(x);
}
inline float rsqrtf(float x) {
    return 1.0f / std::sqrt(x);
}
inline double rsqrt(double x) {
    return 1.0 / std::sqrt(x);
}
inline float __saturatef(float x) {
    return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f;
}  // NaN -> 0, as on the GPU
inline float __fmaf_rn(float x, float y, float z) {
    return std::fma(x, y, z);
}
inline float __fadd_rn(float x, float y) {
    return x + y;
}
inline float __fsub_rn(float x, float y) {
    return x - y;
}
inline float __fmul_rn(float x, float y) {
    return x * y;
}
inline float __fdiv_rn(float x, float y) {
    return x / y;
}

inline int __float_as_int(float x) {
    return std::bit_cast<int>(x);
}
inline unsigned int __float_as_uint(float x) {
    return std::bit_cast<unsigned int>(x);
}
inline float __int_as_float(int x) {
    return std::bit_cast<float>(x);
}
inline float __uint_as_float(unsigned int x) {
    return std::bit_cast<float>(x);
}
inline long long __double_as_longlong(double x) {
    return std::bit_cast<long long>(x);
}
inline double __longlong_as_double(long long x) {
    return std::bit_cast<double>(x);
}
inline int __float2int_rn(float x) {
    return static_cast<int>(std::nearbyint(x));
}  // default mode: to nearest even
inline int __float2int_rz(float x) {
    return static_cast<int>(x);
}
inline float __int2float_rn(int x) {
    return static_cast<float>(x);
}

// Four signed byte products of a and b's words, added to c (sm_61's dp4a; int8 GEMV).
inline int __dp4a(int a, int b, int c) {
    for (int i = 0; i < 4; ++i)
        c += static_cast<int>(static_cast<signed char>(a >> (8 * i))) * static_cast<int>(static_cast<signed char>(b >> (8 * i)));
    return c;
}

inline int __popc(unsigned int x) {
    return std::popcount(x);
}
inline int __popcll(unsigned long long x) {
    return std::popcount(x);
}
inline int __clz(int x) {
    return std::countl_zero(static_cast<unsigned int>(x));
}
inline int __clzll(long long x) {
    return std::countl_zero(static_cast<unsigned long long>(x));
}
inline int __ffs(int x) {
    return x == 0 ? 0 : std::countr_zero(static_cast<unsigned int>(x)) + 1;
}
inline int __ffsll(long long x) {
    return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1;
}
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
}

// CUDA's device min/max overloads (its float versions are fminf/fmaxf: a NaN operand loses).
#define CARBON_HOST_MINMAX(T) \
    inline T min(T a, T b) {  \
        return b < a ? b : a; \
    }                         \
    inline T max(T a, T b) {  \
        return a < b ? b : a; \
    }
CARBON_HOST_MINMAX(int)
CARBON_HOST_MINMAX(unsigned int)
CARBON_HOST_MINMAX(long)
CARBON_HOST_MINMAX(unsigned long)
CARBON_HOST_MINMAX(long long)
CARBON_HOST_MINMAX(unsigned long long)
#undef CARBON_HOST_MINMAX
inline float min(float a, float b) {
    return std::fmin(a, b);
}
inline float max(float a, float b) {
    return std::fmax(a, b);
}
inline double min(double a, double b) {
    return std::fmin(a, b);
}
inline double max(double a, double b) {
    return std::fmax(a, b);
}
// Mixed signedness compares as unsigned, as CUDA's overloads do.
inline unsigned int min(int a, unsigned int b) {
    return min(static_cast<unsigned int>(a), b);
}
inline unsigned int min(unsigned int a, int b) {
    return min(a, static_cast<unsigned int>(b));
}
inline unsigned int max(int a, unsigned int b) {
    return max(static_cast<unsigned int>(a), b);
}
inline unsigned int max(unsigned int a, int b) {
    return max(a, static_cast<unsigned int>(b));
}
