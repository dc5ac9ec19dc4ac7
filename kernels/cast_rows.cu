// Launcher of cast_rows (cast_rows.cuh): checks the sizes, picks the vector or scalar path.
#include "carbon/kernels/cast_rows.h"
#include "cast_rows.cuh"
#include "element_io.cuh"

namespace carbon::kern {

template <class To>
cudaError_t cast_rows(const float* x, long long ldx, To* y, long long ldy, int rows, int cols, cudaStream_t stream) {
    if (rows < 0 || cols < 1 || cols > 65535 * kCastThreads || ldx < cols || ldy < cols) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (x == nullptr || y == nullptr) return cudaErrorInvalidValue;
    const bool vector = cols % io::kVec == 0 && ldx % io::kVec == 0 && ldy % io::kVec == 0 && io::aligned16(x) &&
                        io::aligned16(y);
    const int chunks = vector ? cols / io::kVec : cols;
    const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((chunks + kCastThreads - 1) / kCastThreads));
    if (vector) return launch(cast_rows_kernel<To, true>, grid, dim3(kCastThreads), 0, stream, x, ldx, y, ldy, cols);
    return launch(cast_rows_kernel<To, false>, grid, dim3(kCastThreads), 0, stream, x, ldx, y, ldy, cols);
}

template cudaError_t cast_rows<__nv_bfloat16>(const float*, long long, __nv_bfloat16*, long long, int, int, cudaStream_t);
template cudaError_t cast_rows<__half>(const float*, long long, __half*, long long, int, int, cudaStream_t);
template cudaError_t cast_rows<float>(const float*, long long, float*, long long, int, int, cudaStream_t);

}  // namespace carbon::kern
