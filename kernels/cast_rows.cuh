// cast_rows: y[r, c] = To(x[r, c]) for fp32 rows x, rounded once to nearest even (bf16, fp16) or
// copied (fp32): the activations a GEMM takes in the weights' type (cuBLASLt multiplies bf16 by bf16
// with fp32 accumulation; the residual stream, norms and attention stay fp32).
//
// Launch shape: grid (rows, ceil(chunks / 256)), 256 threads, one 8-element chunk per thread in the
// vector path (two 16-byte fp32 loads, one 16-byte bf16 store), one element in the scalar path: the
// swiglu shape, for the same reasons (strided rows, a batch-1 row spread over several blocks).
#pragma once

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kCastThreads = 256;

// kVector: cols and both strides multiples of 8, arrays 16-byte aligned. kTruncate = true is the
// injected bug (bf16 by dropping the low 16 bits, not rounding).
template <class To, bool kVector, bool kTruncate = false>
__global__ void __launch_bounds__(kCastThreads)
    cast_rows_kernel(const float* x, long long ldx, To* y, long long ldy, int cols) {
    const int per = kVector ? io::kVec : 1;
    const int chunk = static_cast<int>(blockIdx.y * kCastThreads + threadIdx.x);
    if (chunk >= cols / per) return;
    const long long r = blockIdx.x, c = static_cast<long long>(chunk) * per;
    const float* src = x + r * ldx + c;
    To* dst = y + r * ldy + c;
    if constexpr (kVector) {
        float v[io::kVec];
        io::load8(src, v);
        if constexpr (kTruncate)
            for (int i = 0; i < io::kVec; ++i) v[i] = __int_as_float(__float_as_int(v[i]) & ~0xFFFF);
        io::store8(dst, v);
    } else {
        *dst = io::from_float<To>(kTruncate ? __int_as_float(__float_as_int(*src) & ~0xFFFF) : *src);
    }
}

}  // namespace carbon::kern
