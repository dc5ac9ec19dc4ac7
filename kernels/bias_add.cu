// Launcher of bias_add (bias_add.cuh): checks the sizes, launches rows x column blocks.
#include "carbon/kernels/bias_add.h"
#include "bias_add.cuh"

namespace carbon::kern {

template <class W>
cudaError_t bias_add(float* y, long long ldy, int rows, int cols, const W* bias, cudaStream_t stream) {
    if (rows < 0 || cols < 1 || cols > 65535 * kBiasAddThreads || ldy < cols) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (y == nullptr || bias == nullptr) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((cols + kBiasAddThreads - 1) / kBiasAddThreads));
    return launch(bias_add_kernel<W>, grid, dim3(kBiasAddThreads), 0, stream, y, ldy, bias, cols);
}

template cudaError_t bias_add<float>(float*, long long, int, int, const float*, cudaStream_t);
template cudaError_t bias_add<__half>(float*, long long, int, int, const __half*, cudaStream_t);
template cudaError_t bias_add<__nv_bfloat16>(float*, long long, int, int, const __nv_bfloat16*, cudaStream_t);

}  // namespace carbon::kern
