// Launcher of scale_int32_products (kernels/scale_int32_products.cuh): an int8 GEMM's int32 sums
// to fp32 with the rows scheme's scales. Plain C++ for any caller.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

// For i < rows, j < n: y[i * ldy + j] (+)= float(c[i * ldc + j]) * (xs[i] * ws[j]) (accumulate:
// added to what y holds). cudaErrorInvalidValue for negative sizes, strides below n or null
// pointers; rows or n of 0 launches nothing.
cudaError_t scale_int32_products(const int32_t* c, long long ldc, const float* xs, const float* ws, int rows, int n,
                                 float* y, long long ldy, bool accumulate, cudaStream_t stream);

}  // namespace carbon::kern
