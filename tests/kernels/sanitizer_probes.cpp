// Kernels with deliberate bugs that the sanitizer builds must report (CTest passes when the report,
// naming this file's line, appears): "missing-barrier" under TSan (thread build), "shared-overflow"
// under ASan and "shared-index" under UBSan (ucontext build). Not part of any normal test run.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_portable.cuh"

// Each thread reads its neighbour's slot with no __syncthreads after the writes: a data race.
__global__ void probe_missing_barrier_kernel(int* out) {
    CARBON_SHARED(int[64], buf);
    buf[threadIdx.x] = static_cast<int>(threadIdx.x);
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 64];
}

// The last thread reads one past the end of a 32-float shared array, through a pointer (ASan: every
// CARBON_SHARED variable is its own heap allocation) or by indexing the array (UBSan's bounds check).
__global__ void probe_shared_overflow_kernel(float* out) {
    CARBON_SHARED(float[32], buf);
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    const float* p = buf;
    out[threadIdx.x] = p[threadIdx.x + 1];
}
__global__ void probe_shared_index_kernel(float* out) {
    CARBON_SHARED(float[32], buf);
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x + 1];
}

int main(int argc, char** argv) {
    const char* probe = argc > 1 ? argv[1] : "";
    if (std::strcmp(probe, "missing-barrier") == 0) {
        std::vector<int> out(64);
        carbon::kern::launch(probe_missing_barrier_kernel, dim3(1), dim3(64), 0, nullptr, out.data());
    } else if (std::strcmp(probe, "shared-overflow") == 0) {
        std::vector<float> out(32);
        carbon::kern::launch(probe_shared_overflow_kernel, dim3(1), dim3(32), 0, nullptr, out.data());
    } else if (std::strcmp(probe, "shared-index") == 0) {
        std::vector<float> out(32);
        carbon::kern::launch(probe_shared_index_kernel, dim3(1), dim3(32), 0, nullptr, out.data());
    } else {
        std::fprintf(stderr, "usage: %s missing-barrier|shared-overflow|shared-index\n", argv[0]);
        return 2;
    }
    std::printf("probe %s ran without a sanitizer report\n", probe);
    return 0;
}
