// Launchers of rmsnorm (kernels/rmsnorm.cuh): the decoder's RMSNorm, plain and fused with the residual
// add before it. Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// Activation type A: float or __nv_bfloat16. Weight type W (the checkpoint's dtype): float, __half or
// __nv_bfloat16. Those six pairs are instantiated (another pair does not link).
// x, out: [rows, hidden] row-major; weight: [hidden].
//
// out[r, c] = A(weight[c] * float(A(x[r, c] * inv_r))), inv_r = 1 / sqrt(mean_c(x[r, c]^2) + eps),
// with the sum of squares in fp32 (transformers' LlamaRMSNorm; cpu::rmsnorm for A = float). out may
// be x (in place); no other overlap.
// cudaErrorInvalidValue for negative rows, non-positive hidden, eps negative or not finite, or null
// pointers; rows == 0 launches nothing. Every hidden size works; hidden % 8 == 0 with 16-byte aligned
// arrays takes the vector path.
template <class A, class W>
cudaError_t rmsnorm(const A* x, const W* weight, A* out, int rows, int hidden, float eps, cudaStream_t stream);

// The residual add fused in front: h[r, c] = A(h[r, c] + x[r, c]), then out = rmsnorm(h) as above,
// of the stored (rounded) h. Equal to the add followed by rmsnorm(h, weight, out). h, x and out must
// not overlap.
template <class A, class W>
cudaError_t rmsnorm_residual(A* h, const A* x, const W* weight, A* out, int rows, int hidden, float eps,
                             cudaStream_t stream);

}  // namespace carbon::kern
