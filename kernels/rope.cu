// Launchers of rope_rotate_half (rope.cuh): check the layout, launch one block per token; explicit
// instantiations for fp32 and bf16 activations.
#include <cmath>

#include "carbon/kernels/rope.h"
#include "rope.cuh"

namespace carbon::kern {

template <class T>
cudaError_t rope_rotate_half(T* q, long long q_stride, int q_heads, T* k, long long k_stride, int k_heads, int head_dim,
                             int rotary_dim, const std::int32_t* positions, int tokens, const float* inv_freq,
                             float attention_scaling, cudaStream_t stream) {
    if (tokens < 0 || q_heads < 0 || k_heads < 0 || head_dim < 1) return cudaErrorInvalidValue;
    if (rotary_dim < 2 || rotary_dim % 2 != 0 || rotary_dim > head_dim || rotary_dim > kRopeMaxRotaryDim)
        return cudaErrorInvalidValue;
    if (!std::isfinite(attention_scaling)) return cudaErrorInvalidValue;
    if ((static_cast<long long>(q_heads) + k_heads) * (rotary_dim / 2) > 0x7fffffffLL)
        return cudaErrorInvalidValue;
    if (q_heads > 0 && (q == nullptr || q_stride < static_cast<long long>(q_heads) * head_dim)) return cudaErrorInvalidValue;
    if (k_heads > 0 && (k == nullptr || k_stride < static_cast<long long>(k_heads) * head_dim)) return cudaErrorInvalidValue;
    if (tokens == 0 || (q_heads == 0 && k_heads == 0)) return cudaSuccess;
    if (positions == nullptr || inv_freq == nullptr) return cudaErrorInvalidValue;
    const RopeArgs<T> args{q,          q_stride,  q_heads,  k,
                           k_stride,   k_heads,   head_dim, rotary_dim,
                           positions,  inv_freq,  attention_scaling};
    return launch(rope_rotate_half_kernel<T>, dim3(static_cast<unsigned>(tokens)), dim3(kRopeThreads), 0, stream, args);
}

template cudaError_t rope_rotate_half<float>(float*, long long, int, float*, long long, int, int, int,
                                             const std::int32_t*, int, const float*, float, cudaStream_t);
template cudaError_t rope_rotate_half<__nv_bfloat16>(__nv_bfloat16*, long long, int, __nv_bfloat16*, long long, int, int,
                                                     int, const std::int32_t*, int, const float*, float, cudaStream_t);

}  // namespace carbon::kern
