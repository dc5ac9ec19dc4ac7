// Errors through the seam on the host implementation: every failure is a gpu::Error naming the call,
// the CUDA/cuBLAS status, what is wrong and where it was checked. Freed pointers, ranges past an
// allocation, host pointers passed as device pointers (to copies and to kernels), bad GEMM arguments,
// foreign handles; and failures of queued work, reported at the synchronize and sticky afterwards.
#include <cstring>
#include <string>
#include <vector>

#include "carbon/kernels/row_sum_squares.h"
#include "check.h"
#include "cuda_portable.cuh"
#include "gpu/gemm_row_major.h"
#include "host_device.h"
#include "seam_objects.h"

using namespace carbon::gpu;
using carbon::DType;
using test::DeviceArray;
using test::StreamOwner;

// Not every thread reaches the barrier: the host layer reports a divergent __syncthreads when the
// block runs, which on a seam stream is at the synchronize.
__global__ void divergent_barrier_kernel(float* out) {
    if (threadIdx.x == 0) return;
    __syncthreads();
    out[threadIdx.x] = 1.0f;
}

TEST(an_error_carries_the_call_status_detail_file_and_line) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    DeviceArray<char> d(device, 64);
    std::vector<char> h(65);
    try {
        device.copy_to_device(d.get(), h.data(), 65, stream.get());
        CHECK(!"expected an error");
    } catch (const Error& e) {
        CHECK_EQ(e.call(), std::string("cudaMemcpyAsync (host to device)"));
        CHECK_EQ(e.status(), std::string("cudaErrorInvalidValue"));
        CHECK(e.detail().find("1 bytes past the end") != std::string::npos);
        CHECK_EQ(e.file(), std::string("host_allocations.cpp"));
        CHECK(e.line() > 0);
        // One line with all of it, as logs and the GUI show it.
        const std::string what = e.what();
        CHECK(what.find("cudaMemcpyAsync (host to device) failed: cudaErrorInvalidValue: ") == 0);
        CHECK(what.find("(host_allocations.cpp:") != std::string::npos);
        CHECK(dynamic_cast<const carbon::Error*>(&e) != nullptr);  // the engine's error type
    }
}

TEST(a_freed_pointer_is_named_as_freed) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    void* d = device.allocate(256);
    device.free(d);
    std::vector<char> h(16);
    CHECK_THROWS_WITH(device.copy_to_host(h.data(), d, 16, stream.get()), "cudaMemcpyAsync (device to host)", "src",
                      "already freed");
    CHECK_THROWS_WITH(device.memset(static_cast<char*>(d) + 8, 0, 8, stream.get()), "cudaMemsetAsync", "already freed");
    CHECK_THROWS_WITH(device.free(d), "cudaFree", "already freed");
}

TEST(a_copy_past_the_end_of_an_allocation_is_refused) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    DeviceArray<float> a(device, 10), b(device, 10);
    CHECK_THROWS_WITH(device.copy_on_device(a.get(), b.get() + 5, 6 * sizeof(float), stream.get()),
                      "cudaMemcpyAsync (device to device)", "src", "4 bytes past the end", "allocation of 40 bytes");
    CHECK_THROWS_WITH(device.copy_on_device(a.get(), a.get() + 2, 4 * sizeof(float), stream.get()), "overlap");
    CHECK_EQ(device.pending(stream.get()), std::size_t{0});  // nothing refused was queued
}

TEST(a_host_pointer_passed_as_a_device_pointer_is_refused) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    std::vector<float> host_buf(8), other(8);
    DeviceArray<float> d(device, 8);
    CHECK_THROWS_WITH(device.copy_to_host(other.data(), host_buf.data(), 32, stream.get()), "src",
                      "must be device memory", "not memory of this device");
    // Swapped arguments: the device buffer given as the host side.
    CHECK_THROWS_WITH(device.copy_to_device(d.get(), d.get(), 32, stream.get()), "must be host memory");
    // Kernels: a host pointer as an argument is caught at the launch, naming the kernel and argument.
    CHECK_THROWS_WITH(carbon::kern::row_sum_squares(host_buf.data(), d.get(), 2, 4, stream.get()),
                      "row_sum_squares_kernel", "pointer argument 0", "not memory of this device");
    RowMajorGemm g;
    g.m = 2, g.n = 2, g.k = 2, g.a = host_buf.data(), g.lda = 2, g.b = d.get(), g.ldb = 2, g.c = d.get(), g.ldc = 2;
    CHECK_THROWS_WITH(gemm_row_major(device, g, stream.get()), "cublasLtMatmul", "not memory of this device");
}

TEST(bad_gemm_arguments_are_refused_before_anything_runs) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    DeviceArray<float> a(device, 64), b(device, 64), c(device, 64);
    Gemm g;
    g.m = 4, g.n = 4, g.k = 4, g.a = a.get(), g.lda = 4, g.b = b.get(), g.ldb = 4, g.c = c.get(), g.ldc = 4;
    Gemm bad = g;
    bad.lda = 3;
    CHECK_THROWS_WITH(device.gemm(bad, stream.get()), "gemm", "CUBLAS_STATUS_INVALID_VALUE", "lda 3");
    bad = g;
    bad.b_type = DType::BF16;
    CHECK_THROWS_WITH(device.gemm(bad, stream.get()), "gemm", "CUBLAS_STATUS_NOT_SUPPORTED");
    bad = g;
    bad.a_type = bad.b_type = DType::F32, bad.c_type = DType::BF16;
    CHECK_THROWS_WITH(device.gemm(bad, stream.get()), "CUBLAS_STATUS_NOT_SUPPORTED", "C is bfloat16");
    bad = g;
    bad.k = 0;
    CHECK_THROWS_WITH(device.gemm(bad, stream.get()), "k must be at least 1");
    bad = g;
    bad.ldc = 21;  // C runs past its 64 floats: 3 * 21 + 4 = 67
    CHECK_THROWS_WITH(device.gemm(bad, stream.get()), "cublasLtMatmul", "C", "past the end");
    bad = g;
    bad.m = 0;
    device.gemm(bad, stream.get());  // nothing to do
    CHECK_EQ(device.pending(stream.get()), std::size_t{0});
}

TEST(foreign_and_null_handles_are_refused) {
    host_seam::HostDevice device, other;
    StreamOwner theirs(other);
    DeviceArray<float> d(device, 4);
    CHECK_THROWS_WITH(device.memset(d.get(), 0, 16, nullptr), "cudaMemsetAsync", "null stream");
    CHECK_THROWS_WITH(device.memset(d.get(), 0, 16, theirs.get()), "cudaMemsetAsync", "not a stream of this device");
    CHECK_THROWS_WITH(device.stream_synchronize(theirs.get()), "cudaErrorInvalidResourceHandle");
}

TEST(memory_freed_before_its_queued_copy_ran_fails_at_the_synchronize_and_stays_failed) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    std::vector<float> h(4, 1.0f);
    void* d = device.allocate(16);
    device.copy_to_device(d, h.data(), 16, stream.get());
    device.free(d);  // the copy has not run yet: freeing first is the bug
    CHECK_THROWS_WITH(device.stream_synchronize(stream.get()), "cudaStreamSynchronize failed: cudaErrorIllegalAddress",
                      "cudaMemcpyAsync (host to device) of 16 bytes", "already freed");
    // Like a GPU fault, the error is sticky: every later call fails, naming itself and the cause.
    CHECK_THROWS_WITH(device.allocate(16), "cudaMalloc failed: cudaErrorIllegalAddress", "earlier failure");
    CHECK_THROWS_WITH(device.create_stream(), "cudaErrorIllegalAddress");
}

TEST(a_kernel_fault_in_queued_work_fails_the_synchronize_naming_the_kernel) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    DeviceArray<float> out(device, 64);
    CHECK_EQ(carbon::kern::launch(divergent_barrier_kernel, dim3(1), dim3(64), 0, stream.get(), out.get()),
             cudaSuccess);
    CHECK_THROWS_WITH(device.stream_synchronize(stream.get()), "cudaStreamSynchronize", "cudaErrorLaunchFailure",
                      "divergent_barrier_kernel", "divergent __syncthreads");
}

TEST(a_kernel_launch_over_freed_memory_is_caught_at_the_launch) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    void* d = device.allocate(64);
    device.free(d);
    CHECK_THROWS_WITH(
        carbon::kern::launch(divergent_barrier_kernel, dim3(1), dim3(32), 0, stream.get(), static_cast<float*>(d)),
        "kernel 'divergent_barrier_kernel", "pointer argument 0", "already freed");
}

CHECK_MAIN()
