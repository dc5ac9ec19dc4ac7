// Launchers of swiglu (swiglu.cuh): check the sizes, pick the vector or scalar path, launch a 2-D grid
// of rows x chunks; explicit instantiations for fp32 and bf16 activations.
#include "carbon/kernels/swiglu.h"
#include "element_io.cuh"
#include "swiglu.cuh"

namespace carbon::kern {

template <class T>
cudaError_t swiglu(const T* gate, long long gate_stride, const T* up, long long up_stride, T* out, long long out_stride,
                   int rows, int cols, cudaStream_t stream) {
    if (rows < 0 || cols <= 0 || cols > 65535 * kSwigluThreads) return cudaErrorInvalidValue;
    if (gate_stride < cols || up_stride < cols || out_stride < cols) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (gate == nullptr || up == nullptr || out == nullptr) return cudaErrorInvalidValue;
    const bool vector = cols % io::kVec == 0 && gate_stride % io::kVec == 0 && up_stride % io::kVec == 0 &&
                        out_stride % io::kVec == 0 && io::aligned16(gate) && io::aligned16(up) && io::aligned16(out);
    const int chunks = vector ? cols / io::kVec : cols;
    const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((chunks + kSwigluThreads - 1) / kSwigluThreads));
    if (vector)
        return launch(swiglu_kernel<T, true>, grid, dim3(kSwigluThreads), 0, stream, gate, gate_stride, up, up_stride, out,
                      out_stride, cols);
    return launch(swiglu_kernel<T, false>, grid, dim3(kSwigluThreads), 0, stream, gate, gate_stride, up, up_stride, out,
                  out_stride, cols);
}

template cudaError_t swiglu<float>(const float*, long long, const float*, long long, float*, long long, int, int,
                                   cudaStream_t);
template cudaError_t swiglu<__nv_bfloat16>(const __nv_bfloat16*, long long, const __nv_bfloat16*, long long,
                                           __nv_bfloat16*, long long, int, int, cudaStream_t);

}  // namespace carbon::kern
