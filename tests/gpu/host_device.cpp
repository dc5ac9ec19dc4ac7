// The host device seam (host_device.h): each operation checks its arguments when issued (as the CUDA
// runtime would, and more: every pointer is looked up), then queues work that checks its pointers
// again when it runs (memory freed in between is caught) and does the copy, memset, GEMM or launch.
#include "host_device.h"

#include <cstdio>
#include <cstring>

#include "launch.h"  // the host execution layer's deferred launches
#include "reference_gemm.h"

namespace carbon::gpu::host_seam {
namespace {

std::string bytes_text(std::size_t bytes) {
    return std::to_string(bytes) + " bytes";
}

std::string dims(dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

std::size_t operand_bytes(Transpose t, std::int64_t rows_no, std::int64_t cols_no, std::int64_t ld, DType type) {
    return t == Transpose::No ? matrix_extent_bytes(rows_no, cols_no, ld, type)
                              : matrix_extent_bytes(cols_no, rows_no, ld, type);
}

}  // namespace

HostDevice::HostDevice(HostDeviceOptions options) : options_(std::move(options)), memory_(options_.memory_bytes) {}

HostDevice::~HostDevice() {
    for (Stream s : streams_.streams()) carbon::host::unregister_deferred_stream(s);
    streams_.discard();
}

DeviceInfo HostDevice::info() const {
    DeviceInfo d;
    d.name = options_.name;
    d.uuid = "HOST-SEAM";
    d.compute_major = 9;  // the host execution layer emulates sm_90's limits
    d.multiprocessors = 1;
    d.total_memory = memory_.capacity();
    return d;
}

MemoryInfo HostDevice::memory_info() const {
    streams_.check_sticky("cudaMemGetInfo");
    return {memory_.capacity() - memory_.device_bytes_in_use(), memory_.capacity()};
}

void* HostDevice::allocate(std::size_t bytes) {
    streams_.check_sticky("cudaMalloc");
    if (streams_.capturing()) streams_.refuse_during_capture("cudaMalloc", __FILE__, __LINE__);
    return bytes == 0 ? nullptr : memory_.allocate(bytes, MemoryKind::Device, "cudaMalloc");
}

void HostDevice::free(void* device_ptr) {
    if (device_ptr == nullptr) return;
    if (streams_.capturing()) streams_.refuse_during_capture("cudaFree", __FILE__, __LINE__);
    memory_.release(device_ptr, MemoryKind::Device, "cudaFree");
}

void* HostDevice::allocate_pinned(std::size_t bytes) {
    streams_.check_sticky("cudaMallocHost");
    if (streams_.capturing()) streams_.refuse_during_capture("cudaMallocHost", __FILE__, __LINE__);
    return bytes == 0 ? nullptr : memory_.allocate(bytes, MemoryKind::Pinned, "cudaMallocHost");
}

void HostDevice::free_pinned(void* host_ptr) {
    if (host_ptr == nullptr) return;
    if (streams_.capturing()) streams_.refuse_during_capture("cudaFreeHost", __FILE__, __LINE__);
    memory_.release(host_ptr, MemoryKind::Pinned, "cudaFreeHost");
}

bool HostDevice::is_capturing(Stream stream) const {
    return streams_.capturing(stream);
}

void HostDevice::require_host_side(Stream stream, const void* p, std::size_t bytes, const char* call,
                                   const char* role) {
    memory_.require_host(p, bytes, is_capturing(stream), call, role);
}

void HostDevice::issue(Stream stream, std::string what, std::function<void()> run) {
    streams_.enqueue(stream, Work{std::move(what), std::move(run)});
}

void HostDevice::copy_to_device(void* dst, const void* host_src, std::size_t bytes, Stream stream) {
    static constexpr const char* call = "cudaMemcpyAsync (host to device)";
    streams_.check_sticky(call);
    streams_.require(stream, call);
    if (bytes == 0) return;
    memory_.require(dst, bytes, MemoryKind::Device, call, "dst");
    require_host_side(stream, host_src, bytes, call, "src");
    issue(stream, std::string(call) + " of " + bytes_text(bytes), [this, dst, host_src, bytes] {
        memory_.require(dst, bytes, MemoryKind::Device, call, "dst", "cudaErrorIllegalAddress");
        memory_.require_host(host_src, bytes, false, call, "src");
        std::memcpy(dst, host_src, bytes);
    });
}

void HostDevice::copy_to_host(void* host_dst, const void* src, std::size_t bytes, Stream stream) {
    static constexpr const char* call = "cudaMemcpyAsync (device to host)";
    streams_.check_sticky(call);
    streams_.require(stream, call);
    if (bytes == 0) return;
    memory_.require(src, bytes, MemoryKind::Device, call, "src");
    require_host_side(stream, host_dst, bytes, call, "dst");
    issue(stream, std::string(call) + " of " + bytes_text(bytes), [this, host_dst, src, bytes] {
        memory_.require(src, bytes, MemoryKind::Device, call, "src", "cudaErrorIllegalAddress");
        memory_.require_host(host_dst, bytes, false, call, "dst");
        std::memcpy(host_dst, src, bytes);
    });
}

void HostDevice::copy_on_device(void* dst, const void* src, std::size_t bytes, Stream stream) {
    static constexpr const char* call = "cudaMemcpyAsync (device to device)";
    streams_.check_sticky(call);
    streams_.require(stream, call);
    if (bytes == 0) return;
    memory_.require(dst, bytes, MemoryKind::Device, call, "dst");
    memory_.require(src, bytes, MemoryKind::Device, call, "src");
    const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
    if (d < s + bytes && s < d + bytes)
        throw Error(call, "cudaErrorInvalidValue",
                    "src and dst overlap (" + bytes_text(bytes) + " at offsets " + std::to_string(s) + " and " +
                        std::to_string(d) + "): the result of an overlapping copy is undefined",
                    __FILE__, __LINE__);
    issue(stream, std::string(call) + " of " + bytes_text(bytes), [this, dst, src, bytes] {
        memory_.require(dst, bytes, MemoryKind::Device, call, "dst", "cudaErrorIllegalAddress");
        memory_.require(src, bytes, MemoryKind::Device, call, "src", "cudaErrorIllegalAddress");
        std::memcpy(dst, src, bytes);
    });
}

void HostDevice::memset(void* dst, int byte_value, std::size_t bytes, Stream stream) {
    static constexpr const char* call = "cudaMemsetAsync";
    streams_.check_sticky(call);
    streams_.require(stream, call);
    if (bytes == 0) return;
    memory_.require(dst, bytes, MemoryKind::Device, call, "dst");
    issue(stream, std::string(call) + " of " + bytes_text(bytes), [this, dst, byte_value, bytes] {
        memory_.require(dst, bytes, MemoryKind::Device, call, "dst", "cudaErrorIllegalAddress");
        std::memset(dst, byte_value & 0xFF, bytes);
    });
}

void HostDevice::gemm(const Gemm& g, Stream stream) {
    static constexpr const char* call = "cublasLtMatmul";
    streams_.check_sticky(call);
    streams_.require(stream, call);
    validate_gemm(g, __FILE__, __LINE__);
    if (g.m == 0 || g.n == 0) return;
    const std::size_t a_bytes = operand_bytes(g.trans_a, g.m, g.k, g.lda, g.a_type);
    const std::size_t b_bytes = operand_bytes(g.trans_b, g.k, g.n, g.ldb, g.b_type);
    const std::size_t c_bytes = matrix_extent_bytes(g.m, g.n, g.ldc, g.c_type);
    const auto check = [this, g, a_bytes, b_bytes, c_bytes](const char* status) {
        memory_.require(g.a, a_bytes, MemoryKind::Device, call, "A", status);
        memory_.require(g.b, b_bytes, MemoryKind::Device, call, "B", status);
        memory_.require(g.c, c_bytes, MemoryKind::Device, call, "C", status);
    };
    check("CUBLAS_STATUS_INVALID_VALUE");
    const std::string what = std::string(call) + " m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " +
                             std::to_string(g.k) + " (" + dtype_name(g.a_type) + " -> " + dtype_name(g.c_type) + ")";
    issue(stream, what, [g, check] {
        check("cudaErrorIllegalAddress");
        reference_gemm(g);
    });
}

Stream HostDevice::create_stream() {
    const Stream stream = streams_.create_stream();
    // Kernel launches on this stream are queued on it, arguments checked now and when they run.
    carbon::host::register_deferred_stream(stream, [this, stream](carbon::host::DeferredLaunch&& launch) {
        const std::string what = "kernel '" + launch.kernel_name + "'";
        streams_.check_sticky(what.c_str());
        const auto check = [this](const carbon::host::DeferredLaunch& l, const std::string& name) {
            for (const auto& arg : l.pointer_args)
                if (arg.value != nullptr)
                    memory_.require(arg.value, 0, MemoryKind::Device, name.c_str(),
                                    "pointer argument " + std::to_string(arg.index), "cudaErrorIllegalAddress");
        };
        check(launch, what);
        auto shared = std::make_shared<carbon::host::DeferredLaunch>(std::move(launch));
        issue(stream, what + " grid " + dims(shared->grid) + " block " + dims(shared->block), [shared, check, what] {
            check(*shared, what);
            shared->run();
        });
    });
    return stream;
}

void HostDevice::destroy_stream(Stream stream) {
    streams_.destroy_stream(stream);
    carbon::host::unregister_deferred_stream(stream);
}

void HostDevice::stream_synchronize(Stream stream) {
    streams_.stream_synchronize(stream, "cudaStreamSynchronize");
}

void HostDevice::device_synchronize() {
    streams_.device_synchronize("cudaDeviceSynchronize");
}

Event HostDevice::create_event() {
    return streams_.create_event();
}

void HostDevice::destroy_event(Event event) {
    streams_.destroy_event(event);
}

void HostDevice::event_record(Event event, Stream stream) {
    streams_.event_record(event, stream);
}

void HostDevice::stream_wait_event(Stream stream, Event event) {
    streams_.stream_wait_event(stream, event);
}

void HostDevice::event_synchronize(Event event) {
    streams_.event_synchronize(event, "cudaEventSynchronize");
}

void HostDevice::begin_capture(Stream stream) {
    streams_.begin_capture(stream);
}

Graph HostDevice::end_capture(Stream stream) {
    return streams_.end_capture(stream);
}

void HostDevice::launch_graph(Graph graph, Stream stream) {
    streams_.launch_graph(graph, stream);
}

void HostDevice::destroy_graph(Graph graph) {
    streams_.destroy_graph(graph);
}

}  // namespace carbon::gpu::host_seam
