// Element and 8-wide vector access for the elementwise and row kernels (embedding, RMSNorm, SwiGLU,
// token log-probabilities): fp32 <-> float / bf16 / half conversions and 16-byte global loads/stores.
// Assumes a vector access starts at an element index that is a multiple of 8 of a 16-byte aligned
// array (the launchers check it and pick the scalar path otherwise).
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"

namespace carbon::kern::io {

inline constexpr int kVec = 8;  // elements per vector access: 16 bytes of bf16/half, 32 bytes of fp32

// Host side, for the launchers: may vector accesses start at p?
inline bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

__device__ __forceinline__ float to_float(float v) {
    return v;
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
    return __bfloat162float(v);
}
__device__ __forceinline__ float to_float(__half v) {
    return __half2float(v);
}

// Round to nearest even, as PyTorch's casts do.
template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
    return __float2half(v);
}

// The value of one 16-bit element from its bits.
__device__ __forceinline__ float bits_to_float(unsigned bits, const __nv_bfloat16*) {
    return __uint_as_float(bits << 16);
}
__device__ __forceinline__ float bits_to_float(unsigned bits, const __half*) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
}
__device__ __forceinline__ unsigned float_to_bits(float v, const __nv_bfloat16*) {
    return __bfloat16_as_ushort(__float2bfloat16(v));
}
__device__ __forceinline__ unsigned float_to_bits(float v, const __half*) {
    return __half_as_ushort(__float2half(v));
}

__device__ __forceinline__ unsigned word(const uint4& r, int i) {
    return i == 0 ? r.x : i == 1 ? r.y : i == 2 ? r.z : r.w;
}

// v[0..8) = p[0..8) as fp32: one 16-byte load for 16-bit types, two for fp32. The words are taken
// apart with shifts (not through a pointer to a local), so everything stays in registers.
template <class T>
__device__ __forceinline__ void load8(const T* __restrict__ p, float (&v)[kVec]) {
    const uint4 r = *reinterpret_cast<const uint4*>(p);
    for (int i = 0; i < 4; ++i) {
        const unsigned w = word(r, i);
        v[2 * i] = bits_to_float(w & 0xFFFFu, p);
        v[2 * i + 1] = bits_to_float(w >> 16, p);
    }
}
template <>
__device__ __forceinline__ void load8<float>(const float* __restrict__ p, float (&v)[kVec]) {
    const float4 a = *reinterpret_cast<const float4*>(p);
    const float4 b = *reinterpret_cast<const float4*>(p + 4);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
    v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

// p[0..8) = v[0..8) rounded to T, with 16-byte stores.
template <class T>
__device__ __forceinline__ void store8(T* __restrict__ p, const float (&v)[kVec]) {
    uint4 r;
    r.x = float_to_bits(v[0], p) | (float_to_bits(v[1], p) << 16);
    r.y = float_to_bits(v[2], p) | (float_to_bits(v[3], p) << 16);
    r.z = float_to_bits(v[4], p) | (float_to_bits(v[5], p) << 16);
    r.w = float_to_bits(v[6], p) | (float_to_bits(v[7], p) << 16);
    *reinterpret_cast<uint4*>(p) = r;
}
template <>
__device__ __forceinline__ void store8<float>(float* __restrict__ p, const float (&v)[kVec]) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(p + 4) = make_float4(v[4], v[5], v[6], v[7]);
}

}  // namespace carbon::kern::io
