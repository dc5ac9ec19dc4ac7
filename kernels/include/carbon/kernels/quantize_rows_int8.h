// Launcher of quantize_rows_int8 (kernels/quantize_rows_int8.cuh): activation rows to int8 with one
// scale per row, the CPU backend's rows scheme bit for bit. Plain C++ for any caller.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

// For r < rows: scales[r] and q[r * ldq + c], c < k, as quantize_rows_int8.cuh states (amax / 127,
// values rint(x * 127 / amax) within +-127; a row holding a value that is not finite gets a NaN
// scale and zeros, an all-zero or too-small row a zero scale and zeros). Tx: float or bf16.
// cudaErrorInvalidValue for negative rows, k below 1, strides below k or null pointers; rows == 0
// launches nothing.
template <class Tx>
cudaError_t quantize_rows_int8(const Tx* x, long long ldx, int rows, int k, int8_t* q, long long ldq, float* scales,
                               cudaStream_t stream);

}  // namespace carbon::kern
