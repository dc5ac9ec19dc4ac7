// Launchers of row_sum_squares (kernels/row_sum_squares.cuh), the per-row reduction at the heart of
// RMSNorm. Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// out[r] = sum over c of x[r * cols + c]^2 for r < rows, accumulated in fp32; x is row-major.
// cudaErrorInvalidValue for negative sizes or null pointers; rows == 0 launches nothing.
cudaError_t row_sum_squares(const float* x, float* out, int rows, int cols, cudaStream_t stream);
cudaError_t row_sum_squares(const __nv_bfloat16* x, float* out, int rows, int cols, cudaStream_t stream);

}  // namespace carbon::kern
