// The one error check for every CUDA runtime and cuBLASLt call of the real seam (llm.c's habit):
// CARBON_CUDA_CHECK(cudaMemcpyAsync(...)) throws gpu::Error with the call as written, the status's
// name and text, and this file and line. Needs the CUDA headers: only the real implementation
// includes it.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "gpu/device.h"

namespace carbon::gpu::detail {

inline void check(cudaError_t status, const char* call, const char* file, int line) {
    if (status == cudaSuccess) return;
    // Clears the runtime's last error for the calls that do not leave the context broken (a
    // sticky error, such as a kernel's illegal address, keeps failing every later call anyway).
    (void)cudaGetLastError();
    throw Error(call, cudaGetErrorName(status), cudaGetErrorString(status), file, line);
}

inline void check(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw Error(call, cublasLtGetStatusName(status), cublasLtGetStatusString(status), file, line);
}

}  // namespace carbon::gpu::detail

#define CARBON_CUDA_CHECK(call) ::carbon::gpu::detail::check((call), #call, __FILE__, __LINE__)
