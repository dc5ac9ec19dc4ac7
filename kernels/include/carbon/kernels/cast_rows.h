// Launcher of cast_rows (kernels/cast_rows.cuh): fp32 activation rows converted to the type a GEMM
// takes them in. Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// To: __nv_bfloat16, __half or float (the three instantiations). y[r * ldy + c] = To(x[r * ldx + c])
// for r < rows, c < cols, rounded to nearest even (the engine's f32_to_bf16 / f32_to_f16); NaN stays
// NaN, overflow becomes infinity. x and y must not overlap.
// cudaErrorInvalidValue for negative rows, cols below 1 or above 65,535 * 256, strides below cols,
// or null pointers; rows == 0 launches nothing.
template <class To>
cudaError_t cast_rows(const float* x, long long ldx, To* y, long long ldy, int rows, int cols, cudaStream_t stream);

}  // namespace carbon::kern
