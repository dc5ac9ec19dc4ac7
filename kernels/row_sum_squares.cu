// Launchers of row_sum_squares (row_sum_squares.cuh): check the sizes, launch one block per row.
#include "carbon/kernels/row_sum_squares.h"
#include "row_sum_squares.cuh"

namespace carbon::kern {
namespace {

template <class T>
cudaError_t launch_row_sum_squares(const T* x, float* out, int rows, int cols, cudaStream_t stream) {
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (out == nullptr || (x == nullptr && cols > 0)) return cudaErrorInvalidValue;
    return launch(row_sum_squares_kernel<T>, dim3(static_cast<unsigned>(rows)), dim3(kRowSumSquaresThreads), 0, stream,
                  x, out, cols);
}

}  // namespace

cudaError_t row_sum_squares(const float* x, float* out, int rows, int cols, cudaStream_t stream) {
    return launch_row_sum_squares(x, out, rows, cols, stream);
}

cudaError_t row_sum_squares(const __nv_bfloat16* x, float* out, int rows, int cols, cudaStream_t stream) {
    return launch_row_sum_squares(x, out, rows, cols, stream);
}

}  // namespace carbon::kern
