// Launcher of bias_add (kernels/bias_add.cuh): a linear layer's bias added to its fp32 output rows.
// Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// W: float, __half or __nv_bfloat16 (the checkpoint's dtype; the three instantiations).
// y[r * ldy + c] += float(bias[c]) for r < rows, c < cols.
// cudaErrorInvalidValue for negative rows, cols below 1 or above 65,535 * 256, ldy below cols, or
// null pointers; rows == 0 launches nothing.
template <class W>
cudaError_t bias_add(float* y, long long ldy, int rows, int cols, const W* bias, cudaStream_t stream);

}  // namespace carbon::kern
