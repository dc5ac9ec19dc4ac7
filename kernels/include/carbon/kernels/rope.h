// Launchers of rope_rotate_half (kernels/rope.cuh): rotary position embedding of q and k in the
// Hugging Face rotate-half layout. Plain C++ for any caller: device pointers, sizes and a stream in,
// a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

// T: float or __nv_bfloat16 (the two instantiations). In place, for t < tokens:
//   q head h of token t at q + t * q_stride + h * head_dim, h < q_heads; likewise k (k_heads may be 0,
//   then k may be null); the first rotary_dim elements of each head rotate by position positions[t]:
//   for i < rotary_dim / 2, angle = float(positions[t]) * inv_freq[i],
//   c = cos(angle) * attention_scaling, s = sin(angle) * attention_scaling,
//   x[i] = x[i] * c - x[i + half] * s, x[i + half] = x[i + half] * c + x[i] * s.
// inv_freq and attention_scaling are carbon::RopeTable's (compute_rope), copied to the device once.
// This is carbon::rope_cos_sin + rope_apply computed in fp32; bf16 values are rounded once.
// positions and inv_freq are device memory. Any position is valid (no table to overrun).
// cudaErrorInvalidValue for negative tokens or heads, head_dim < 1, rotary_dim odd, < 2, above
// head_dim or above 512, a stride smaller than heads * head_dim, a non-finite attention_scaling, or
// a null pointer that is needed; tokens == 0 or no heads launches nothing.
template <class T>
cudaError_t rope_rotate_half(T* q, long long q_stride, int q_heads, T* k, long long k_stride, int k_heads, int head_dim,
                             int rotary_dim, const std::int32_t* positions, int tokens, const float* inv_freq,
                             float attention_scaling, cudaStream_t stream);

}  // namespace carbon::kern
