// Launcher of quantize_rows_int8 (quantize_rows_int8.cuh).
#include "carbon/kernels/quantize_rows_int8.h"
#include "quantize_rows_int8.cuh"

namespace carbon::kern {

template <class Tx>
cudaError_t quantize_rows_int8(const Tx* x, long long ldx, int rows, int k, int8_t* q, long long ldq, float* scales,
                               cudaStream_t stream) {
    if (rows < 0 || k < 1 || ldx < k || ldq < k || rows > 2147483647) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (x == nullptr || q == nullptr || scales == nullptr) return cudaErrorInvalidValue;
    return launch(quantize_rows_int8_kernel<Tx>, dim3(static_cast<unsigned>(rows)), dim3(kQuantizeThreads), 0, stream, x,
                  ldx, k, q, ldq, scales);
}

template cudaError_t quantize_rows_int8<float>(const float*, long long, int, int, int8_t*, long long, float*, cudaStream_t);
template cudaError_t quantize_rows_int8<__nv_bfloat16>(const __nv_bfloat16*, long long, int, int, int8_t*, long long, float*,
                                                       cudaStream_t);

}  // namespace carbon::kern
