// Launcher of gemv_int8 (kernels/gemv_int8.cuh): decode's product over int8 weights with per-row
// scales and activations quantised per row (quantize_rows_int8.h), the CPU backend's rows scheme
// bit for bit. Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

struct GemvInt8Sizes {
    int batch = 0;   // activation rows (any number: launched 8 at a time)
    int k = 0;       // in_features: a multiple of 16 (rows of 128-bit loads)
    int n = 0;       // outputs per activation row
    int w_rows = 0;  // W is [w_rows, k] int8 with ws[w_rows]; without `rows`, n <= w_rows
    int ldx = 0;     // row stride of x in bytes: >= k, a multiple of 16
    int ldy = 0;     // row stride of y in floats: >= n
};

// y[b * ldy + j] = float(D) * (xs[b] * ws[row(j)]), D = sum over c < k of x[b * ldx + c] *
// W[row(j) * k + c] in exact int32, row(j) = rows ? rows[j] : j; a rows[j] outside [0, w_rows)
// makes column j NaN; accumulate: y[b * ldy + j] + that. Batch-invariant and independent of the launch (integer sums). x and W must be
// 16-byte aligned. cudaErrorInvalidValue for anything unsupported (gemv_int8_last_refusal() says
// what); batch == 0 or n == 0 launches nothing.
cudaError_t gemv_int8(const int8_t* x, const float* xs, const int8_t* w, const float* ws, const int32_t* rows, float* y,
                      const GemvInt8Sizes& sizes, bool accumulate, cudaStream_t stream);

// Why the last gemv_int8 call on this thread returned cudaErrorInvalidValue; "" otherwise.
const char* gemv_int8_last_refusal();

}  // namespace carbon::kern
