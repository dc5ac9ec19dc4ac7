// Launchers of swiglu (kernels/swiglu.cuh): the gated activation of the decoder's MLP. Plain C++ for
// any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// T: float or __nv_bfloat16 (the two instantiations). For r < rows, c < cols:
//   out[r * out_stride + c] = T(g / (1 + exp(-g)) * u), g = gate[r * gate_stride + c],
//   u = up[r * up_stride + c], in fp32 (cpu::silu_mul for T = float).
// out may be gate or up (in place, same stride); no other overlap. Strides are in elements, so gate
// and up may be the two halves of a fused [rows, 2 * cols] projection.
// cudaErrorInvalidValue for negative rows, non-positive cols or cols above 16,776,960, a stride
// smaller than cols, or null pointers; rows == 0 launches nothing. cols, strides multiples of 8 with
// 16-byte aligned arrays take the vector path.
template <class T>
cudaError_t swiglu(const T* gate, long long gate_stride, const T* up, long long up_stride, T* out, long long out_stride,
                   int rows, int cols, cudaStream_t stream);

}  // namespace carbon::kern
