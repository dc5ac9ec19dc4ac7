// Shared basics of the engine: the error type every loader and runner throws, tensor element
// types, and exact bf16/f16 <-> f32 conversions (round-to-nearest-even, as PyTorch does).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace carbon {

// Every user-facing failure of the engine: the message names what and where (file, tensor,
// position) and is meant to be shown as is.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// 'text', for messages that name a token, key or file content.
inline std::string in_quotes(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    out += s;
    out += '\'';
    return out;
}

// Q8_0: a GGUF file's blocks of 32 int8 values after one fp16 scale (34 bytes), only ever a
// weight matrix read from a GGUF file, which the CPU backend takes as its q8_0 weights; it has no
// per-value size. I8 and I32: the operands and the product of the CUDA backend's int8 GEMMs
// (int8 weights and activations, exact int32 sums); never a checkpoint's tensor.
enum class DType : uint8_t { F32, F16, BF16, Q8_0, I8, I32 };

inline const char* dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "float32";
        case DType::F16: return "float16";
        case DType::BF16: return "bfloat16";
        case DType::Q8_0: return "Q8_0";
        case DType::I8: return "int8";
        case DType::I32: return "int32";
    }
    return "?";
}
// Bytes per value of a float type (an Error for Q8_0, which has none).
inline size_t dtype_size(DType t) {
    if (t == DType::Q8_0) throw Error("a Q8_0 tensor has no per-value size (blocks of 32 values in 34 bytes)");
    return t == DType::F32 || t == DType::I32 ? 4 : t == DType::I8 ? 1 : 2;
}

inline float bf16_to_f32(uint16_t h) {
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40);  // quiet NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return uint16_t(bits >> 16);
}

inline float f16_to_f32(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: normalize
            int e = -1;
            do { ++e; mant <<= 1; } while ((mant & 0x400u) == 0);
            bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

inline uint16_t f32_to_f16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return uint16_t(sign | 0x7e00u);
    if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow (after rounding) -> inf
    if (ax < 0x38800000u) {                                 // subnormal or zero in f16
        if (ax < 0x33000000u) return uint16_t(sign);
        uint32_t e = ax >> 23;                      // 102..112
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;  // implicit leading one
        uint32_t shift = 126 - e;                   // to units of 2^-24
        uint32_t res = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (res & 1u))) ++res;
        return uint16_t(sign | res);
    }
    uint32_t res = ((ax >> 13) - (112u << 10));
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (res & 1u))) ++res;
    return uint16_t(sign | res);
}

// Reads element i of a raw tensor of type t as f32.
inline float load_as_f32(const void* data, DType t, size_t i) {
    switch (t) {
        case DType::F32: {  // memcpy: a tensor after an odd number of 2-byte elements is not 4-byte aligned
            float f;
            std::memcpy(&f, static_cast<const uint8_t*>(data) + 4 * i, 4);
            return f;
        }
        case DType::F16: return f16_to_f32(static_cast<const uint16_t*>(data)[i]);
        case DType::BF16: return bf16_to_f32(static_cast<const uint16_t*>(data)[i]);
        case DType::Q8_0: {  // block i / 32: the fp16 scale, then 32 int8 values
            const uint8_t* b = static_cast<const uint8_t*>(data) + (i / 32) * 34;
            uint16_t d;
            std::memcpy(&d, b, 2);
            return f16_to_f32(d) * float(int8_t(b[2 + i % 32]));
        }
        case DType::I8: return float(static_cast<const int8_t*>(data)[i]);
        case DType::I32: {
            int32_t v;
            std::memcpy(&v, static_cast<const uint8_t*>(data) + 4 * i, 4);
            return float(v);
        }
    }
    return 0.f;
}

}  // namespace carbon
