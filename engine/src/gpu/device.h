// The device seam under the CUDA backend: the CUDA runtime and cuBLASLt operations it needs, cut at
// the level of their parameters. Plain C++, no CUDA headers; implemented over cudart + cuBLASLt
// (cuda_device.h) and on the host for CI (tests/gpu/host_device.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "carbon/support/common.h"

// The handle types are CUDA's own (cudaStream_t is CUstream_st*, ...), declared here without the
// CUDA headers, so a seam stream goes straight to a kernel launcher. The host seam's handles are
// pointers to its own objects that nothing dereferences as CUDA's.
struct CUstream_st;
struct CUevent_st;
struct CUgraphExec_st;

namespace carbon::gpu {

using Stream = CUstream_st*;    // made by Device::create_stream; never the null (legacy) stream
using Event = CUevent_st*;      // made by Device::create_event
using Graph = CUgraphExec_st*;  // an instantiated graph, from Device::end_capture

// A failed CUDA or cuBLAS call (or a check the host seam makes in its place), thrown by every seam
// operation: which call, the status's name ("cudaErrorInvalidValue", "CUBLAS_STATUS_NOT_SUPPORTED"),
// what it means, and the file and line of the checked call. what() is one line with all of it.
class Error : public carbon::Error {
public:
    Error(std::string call, std::string status, std::string detail, const char* file, int line);
    const std::string& call() const { return call_; }
    const std::string& status() const { return status_; }
    const std::string& detail() const { return detail_; }
    const std::string& file() const { return file_; }
    int line() const { return line_; }

private:
    std::string call_, status_, detail_, file_;
    int line_;
};

// What the self-check caches its verdict under, and what logs name.
struct DeviceInfo {
    std::string name;  // "NVIDIA H100 80GB HBM3"
    std::string uuid;  // "GPU-1a2b3c4d-...", as nvidia-smi prints it
    int ordinal = 0;
    int compute_major = 0, compute_minor = 0;
    int driver_version = 0;   // cudaDriverGetVersion: 13000 is 13.0
    int runtime_version = 0;  // cudaRuntimeGetVersion of the runtime this program runs with
    int multiprocessors = 0;
    std::size_t total_memory = 0;
};

struct MemoryInfo {
    std::size_t free = 0, total = 0;  // bytes, as cudaMemGetInfo
};

enum class Transpose : std::uint8_t { No, Yes };

// One cuBLASLt matmul, column-major as cuBLAS sees memory:
//   C[m, n] = alpha * op(A) op(B) + beta * C,  op(A) is m x k, op(B) is k x n,
// with fp32 accumulation and fp32 alpha/beta (CUBLAS_COMPUTE_32F: no TF32 shortcut for fp32
// inputs). A is stored m x k (No) or k x m (Yes) with column stride lda >= its stored rows; B
// likewise k x n or n x k with ldb; C m x n with ldc >= m. When beta is 0, C is not read (junk or
// NaN there does not propagate). Types: A and B alike (bf16, fp16 or fp32); C the same or fp32.
// Or int8 A and B into an int32 C (exact integer sums, CUBLAS_COMPUTE_32I) in the one form
// cuBLASLt's int8 kernels take in the regular layout: TN (A transposed, B not), m, k and every
// leading dimension multiples of 4, 4-byte aligned operands, alpha 1 and beta 0.
// m or n of 0 does nothing; k must be at least 1. Row-major callers go through gemm_row_major.h.
struct Gemm {
    Transpose trans_a = Transpose::No, trans_b = Transpose::No;
    std::int64_t m = 0, n = 0, k = 0;
    const void* a = nullptr;
    DType a_type = DType::F32;
    std::int64_t lda = 0;
    const void* b = nullptr;
    DType b_type = DType::F32;
    std::int64_t ldb = 0;
    void* c = nullptr;
    DType c_type = DType::F32;
    std::int64_t ldc = 0;
    float alpha = 1.0f, beta = 0.0f;
};

// Throws Error (call "gemm", CUBLAS_STATUS_INVALID_VALUE or _NOT_SUPPORTED) unless `g` is a call
// both implementations accept; each implementation checks with this before anything else.
void validate_gemm(const Gemm& g, const char* file, int line);

// Bytes from an operand's first element to one past its last: (cols - 1) * ld + rows elements.
std::size_t matrix_extent_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, DType type);

// The seam. Work on a stream runs in the order it was issued on that stream and may not have run
// when the call returns: results are visible to the host only after stream_synchronize,
// event_synchronize or device_synchronize (the host seam really defers it, so a missing
// synchronize fails the tests). Every call throws Error on failure. Not thread-safe: one host
// thread drives a Device.
class Device {
public:
    virtual ~Device() = default;

    virtual DeviceInfo info() const = 0;
    virtual MemoryInfo memory_info() const = 0;

    // Device memory, at least 256-byte aligned and never initialised (the host seam fills it with
    // 0xFF). allocate(0) returns nullptr; free(nullptr) does nothing. free does not wait for queued
    // work: whatever may still use the memory must have been synchronized first.
    virtual void* allocate(std::size_t bytes) = 0;
    virtual void free(void* device_ptr) = 0;
    // Page-locked host memory (cudaMallocHost): the host side of copies that must really be
    // asynchronous, and of every copy captured into a graph (the graph reads and writes it at replay).
    virtual void* allocate_pinned(std::size_t bytes) = 0;
    virtual void free_pinned(void* host_ptr) = 0;

    // Stream-ordered copies and memset (cudaMemcpyAsync, cudaMemsetAsync with `byte_value`'s low
    // byte). Ranges must not overlap; a copy of 0 bytes does nothing.
    virtual void copy_to_device(void* dst, const void* host_src, std::size_t bytes, Stream stream) = 0;
    virtual void copy_to_host(void* host_dst, const void* src, std::size_t bytes, Stream stream) = 0;
    virtual void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream stream) = 0;
    virtual void memset(void* dst, int byte_value, std::size_t bytes, Stream stream) = 0;
    // cublasLtMatmul (see Gemm), with the device's cuBLASLt handle and the stream's workspace.
    virtual void gemm(const Gemm& g, Stream stream) = 0;

    // Streams never synchronize with each other implicitly: order across streams with events.
    virtual Stream create_stream() = 0;
    virtual void destroy_stream(Stream stream) = 0;  // waits for its queued work first
    virtual void stream_synchronize(Stream stream) = 0;
    virtual void device_synchronize() = 0;

    virtual Event create_event() = 0;
    virtual void destroy_event(Event event) = 0;
    // The event completes when the stream's work issued before this call has run.
    virtual void event_record(Event event, Stream stream) = 0;
    // Work issued on `stream` after this call waits for the event's latest record (none: no wait).
    virtual void stream_wait_event(Stream stream, Event event) = 0;
    // The host waits for the event's latest record.
    virtual void event_synchronize(Event event) = 0;

    // Graph capture: between begin_capture and end_capture the stream's work (copies, memsets,
    // GEMMs, kernel launches) is recorded, not run; end_capture returns it as an instantiated graph
    // that launch_graph replays with the same arguments (pointers, not the data behind them: a replay
    // reads the buffers' current contents), on the stream it was captured on (its GEMMs use that
    // stream's cuBLASLt workspace). While a capture is open: no synchronize, allocate or free, and no
    // events on the capturing stream (the host seam refuses them; CUDA restricts them too).
    virtual void begin_capture(Stream stream) = 0;
    virtual Graph end_capture(Stream stream) = 0;
    virtual void launch_graph(Graph graph, Stream stream) = 0;
    virtual void destroy_graph(Graph graph) = 0;
};

}  // namespace carbon::gpu
