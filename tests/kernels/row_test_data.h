// Test data for the elementwise and row kernels (embedding, RMSNorm, RoPE, SwiGLU, token
// log-probabilities): seeded random values, the checkpoint's bit patterns (bf16/f16 as uint16, as the
// CPU backend reads them) next to the CUDA types the kernels take, and the sanitizer-build switch
// that trims the size lists (the thread build runs one OS thread per CUDA thread).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "carbon/support/common.h"

namespace carbon::test {

// True in the ASan+UBSan and TSan builds: each test keeps its awkward sizes but drops the big ones.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

inline std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -2.0f, float hi = 2.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

inline float as_float(float v) {
    return v;
}
inline float as_float(__nv_bfloat16 v) {
    return __bfloat162float(v);
}
inline float as_float(__half v) {
    return __half2float(v);
}

// Values of one dtype in both forms: `dev` for the kernels (float, __half, __nv_bfloat16) and `raw`
// with carbon::DType for cpu:: functions (the bytes of the same values).
template <class T>
struct Typed {
    std::vector<T> dev;
    DType dtype;
    const void* raw() const { return dev.data(); }
};

inline DType dtype_of(float) {
    return DType::F32;
}
inline DType dtype_of(__half) {
    return DType::F16;
}
inline DType dtype_of(__nv_bfloat16) {
    return DType::BF16;
}

// x rounded to T (round to nearest even, as the engine's f32_to_bf16 / f32_to_f16).
template <class T>
T to_type(float x) {
    if constexpr (std::is_same_v<T, float>) {
        return x;
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        return __ushort_as_bfloat16(f32_to_bf16(x));
    } else {
        return __ushort_as_half(f32_to_f16(x));
    }
}

template <class T>
Typed<T> typed(const std::vector<float>& x) {
    Typed<T> t{std::vector<T>(x.size()), dtype_of(T{})};
    for (std::size_t i = 0; i < x.size(); ++i) t.dev[i] = to_type<T>(x[i]);
    return t;
}

// The values of `v` as fp32 (what a CPU reference sees after the kernel's input rounding).
template <class T>
std::vector<float> to_floats(const std::vector<T>& v) {
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = as_float(v[i]);
    return out;
}

inline bool same_bits(float a, float b) {
    uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y;
}

// |got - want| <= tol, where NaN never passes.
inline bool within(double got, double want, double tol) {
    return std::fabs(got - want) <= tol;
}

}  // namespace carbon::test
