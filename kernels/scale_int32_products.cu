// Launcher of scale_int32_products (scale_int32_products.cuh).
#include "carbon/kernels/scale_int32_products.h"
#include "scale_int32_products.cuh"

namespace carbon::kern {

cudaError_t scale_int32_products(const int32_t* c, long long ldc, const float* xs, const float* ws, int rows, int n,
                                 float* y, long long ldy, bool accumulate, cudaStream_t stream) {
    if (rows < 0 || n < 0 || ldc < n || ldy < n) return cudaErrorInvalidValue;
    if (rows == 0 || n == 0) return cudaSuccess;
    if (c == nullptr || xs == nullptr || ws == nullptr || y == nullptr) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((n + kScaleProductsThreads - 1) / kScaleProductsThreads));
    if (accumulate)
        return launch(scale_int32_products_kernel<true>, grid, dim3(kScaleProductsThreads), 0, stream, c, ldc, xs, ws, n, y, ldy);
    return launch(scale_int32_products_kernel<false>, grid, dim3(kScaleProductsThreads), 0, stream, c, ldc, xs, ws, n, y, ldy);
}

}  // namespace carbon::kern
