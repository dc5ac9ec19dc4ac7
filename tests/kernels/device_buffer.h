// Test-side memory for kernel tests, so that one test source drives both builds: device memory
// (cudaMalloc, copies) when nvcc builds the test for the GPU (CARBON_KERNEL_TEST_GPU), plain host
// memory under the host execution layer. Fresh buffers hold 0xFF junk in both, like unwritten smem.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace carbon::test {

inline void cuda_check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status));
}

#if defined(CARBON_KERNEL_TEST_GPU)

// Empty when a usable GPU is present, else why not (no driver, no device).
inline std::string gpu_missing() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    if (count == 0) return "no CUDA device";
    return {};
}

template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t n) : n_(n) {
        cuda_check(cudaMalloc(reinterpret_cast<void**>(&p_), bytes() ? bytes() : 1), "cudaMalloc");
        cuda_check(cudaMemset(p_, 0xFF, bytes()), "cudaMemset");
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
        cuda_check(cudaMemcpy(p_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    }
    ~DeviceBuffer() { cudaFree(p_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() { return p_; }
    // Waits for the kernels before it (and reports their errors), then copies back.
    std::vector<T> download() const {
        cuda_check(cudaDeviceSynchronize(), "kernel");
        std::vector<T> host(n_);
        cuda_check(cudaMemcpy(host.data(), p_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        return host;
    }

private:
    std::size_t bytes() const { return n_ * sizeof(T); }
    std::size_t n_;
    T* p_ = nullptr;
};

#else  // host execution layer: "device" memory is host memory and launches are synchronous

inline std::string gpu_missing() {
    return {};
}

// Exactly the requested bytes (so AddressSanitizer sees a kernel read past the end), 16-byte aligned.
template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t n) : n_(n), p_(static_cast<T*>(::operator new(n * sizeof(T), kAlign))) {
        if (n_ > 0) std::memset(static_cast<void*>(p_), 0xFF, n_ * sizeof(T));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
        if (n_ > 0) std::memcpy(static_cast<void*>(p_), static_cast<const void*>(host.data()), n_ * sizeof(T));
    }
    ~DeviceBuffer() { ::operator delete(p_, kAlign); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() { return p_; }
    std::vector<T> download() const {
        std::vector<T> host(n_);
        if (n_ > 0) std::memcpy(static_cast<void*>(host.data()), static_cast<const void*>(p_), n_ * sizeof(T));
        return host;
    }

private:
    static constexpr std::align_val_t kAlign{16};
    std::size_t n_;
    T* p_;
};

#endif

}  // namespace carbon::test

// The main() of a kernel test: on a machine without a usable GPU (the nvcc build) the program says
// SKIP and why (CTest's skip pattern) instead of failing; otherwise every TEST runs.
#define CARBON_KERNEL_TEST_MAIN()                                          \
    int main() {                                                           \
        if (const std::string why = carbon::test::gpu_missing(); !why.empty()) { \
            std::printf("SKIP %s\n", why.c_str());                          \
            return 0;                                                      \
        }                                                                  \
        return check::run_all();                                           \
    }
