// The real device seam: every operation is one CUDA runtime or cuBLASLt call, checked with
// CARBON_CUDA_CHECK. The device owns the cuBLASLt handle, the matmul plans (cached per shape) and
// one cuBLASLt workspace per stream, so GEMMs on two streams never share scratch memory.
#include "gpu/cuda_device.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <unordered_map>

#include "gpu/cublaslt_plans.h"
#include "gpu/cuda_check.h"

namespace carbon::gpu {
namespace {

// Per stream; NVIDIA's recommendation for cuBLASLt on Hopper (smaller GPUs need less).
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
// The kernels are built for sm_80 and newer (kernels/CMakeLists.txt).
constexpr int kMinComputeMajor = 8;

struct Unavailable {
    std::string status, reason;
};

// Whether the NVIDIA driver's library can be loaded (it is installed with the driver).
bool nvidia_driver_present() {
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) return false;
    dlclose(lib);
    return true;
}

// Empty status when device `ordinal` is usable.
Unavailable probe(int ordinal) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        // Without any NVIDIA driver the runtime says the driver is "insufficient"; say what is
        // the case instead: there is no driver, so no GPU to use.
        if ((status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) && !nvidia_driver_present())
            return {cudaGetErrorName(status), "no NVIDIA driver is installed on this machine: libcuda.so.1 is not found"};
        return {cudaGetErrorName(status),
                std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")"};
    }
    if (count == 0) return {"cudaErrorNoDevice", "no CUDA device is present"};
    if (ordinal < 0 || ordinal >= count)
        return {"cudaErrorInvalidDevice", "there is no CUDA device " + std::to_string(ordinal) + " (this machine has " +
                                              std::to_string(count) + ")"};
    cudaDeviceProp prop{};
    if (const cudaError_t s = cudaGetDeviceProperties(&prop, ordinal); s != cudaSuccess) {
        (void)cudaGetLastError();
        return {cudaGetErrorName(s), std::string("cannot read the properties of CUDA device ") +
                                         std::to_string(ordinal) + ": " + cudaGetErrorString(s)};
    }
    if (prop.major < kMinComputeMajor)
        return {"cudaErrorNoKernelImageForDevice", std::string(prop.name) + " has compute capability " +
                                                       std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                                                       "; Carbon's kernels need " + std::to_string(kMinComputeMajor) +
                                                       ".0 (Ampere) or newer"};
    return {};
}

std::string uuid_string(const cudaUUID_t& uuid) {
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    char s[64];
    std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return s;
}

[[noreturn]] void not_a_seam_stream(const char* call, Stream stream) {
    char where[32];
    std::snprintf(where, sizeof where, "%p", static_cast<void*>(stream));
    throw Error(call, "cudaErrorInvalidResourceHandle",
                stream == nullptr ? "the null stream: the seam's work goes on a stream from create_stream()"
                                  : std::string("stream ") + where + " was not made by this device's create_stream()",
                __FILE__, __LINE__);
}

class CudaDevice final : public Device {
public:
    explicit CudaDevice(int ordinal) : ordinal_(ordinal) {
        make_current();
        cudaDeviceProp prop{};
        CARBON_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal_));
        info_.name = prop.name;
        info_.uuid = uuid_string(prop.uuid);
        info_.ordinal = ordinal_;
        info_.compute_major = prop.major;
        info_.compute_minor = prop.minor;
        info_.multiprocessors = prop.multiProcessorCount;
        info_.total_memory = prop.totalGlobalMem;
        CARBON_CUDA_CHECK(cudaDriverGetVersion(&info_.driver_version));
        CARBON_CUDA_CHECK(cudaRuntimeGetVersion(&info_.runtime_version));
        CARBON_CUDA_CHECK(cublasLtCreate(&lt_));
        plans_ = std::make_unique<MatmulPlans>(lt_, kWorkspaceBytes);
    }

    ~CudaDevice() override {
        // Nothing here may throw; errors at teardown have nowhere to go.
        (void)cudaSetDevice(ordinal_);
        for (auto& [stream, workspace] : streams_) {
            (void)cudaStreamSynchronize(stream);
            (void)cudaFree(workspace);
            (void)cudaStreamDestroy(stream);
        }
        for (auto& [graph, stream] : graphs_) (void)cudaGraphExecDestroy(graph);
        plans_.reset();
        if (lt_) cublasLtDestroy(lt_);
    }

    DeviceInfo info() const override { return info_; }

    MemoryInfo memory_info() const override {
        make_current();
        MemoryInfo m;
        CARBON_CUDA_CHECK(cudaMemGetInfo(&m.free, &m.total));
        return m;
    }

    void* allocate(std::size_t bytes) override {
        if (bytes == 0) return nullptr;
        make_current();
        void* p = nullptr;
        CARBON_CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    void free(void* device_ptr) override {
        if (device_ptr == nullptr) return;
        make_current();
        CARBON_CUDA_CHECK(cudaFree(device_ptr));
    }
    void* allocate_pinned(std::size_t bytes) override {
        if (bytes == 0) return nullptr;
        make_current();
        void* p = nullptr;
        CARBON_CUDA_CHECK(cudaMallocHost(&p, bytes));
        return p;
    }
    void free_pinned(void* host_ptr) override {
        if (host_ptr == nullptr) return;
        make_current();
        CARBON_CUDA_CHECK(cudaFreeHost(host_ptr));
    }

    void copy_to_device(void* dst, const void* host_src, std::size_t bytes, Stream stream) override {
        require_stream("cudaMemcpyAsync (host to device)", stream);
        if (bytes == 0) return;
        CARBON_CUDA_CHECK(cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyHostToDevice, stream));
    }
    void copy_to_host(void* host_dst, const void* src, std::size_t bytes, Stream stream) override {
        require_stream("cudaMemcpyAsync (device to host)", stream);
        if (bytes == 0) return;
        CARBON_CUDA_CHECK(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    }
    void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream stream) override {
        require_stream("cudaMemcpyAsync (device to device)", stream);
        if (bytes == 0) return;
        CARBON_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    }
    void memset(void* dst, int byte_value, std::size_t bytes, Stream stream) override {
        require_stream("cudaMemsetAsync", stream);
        if (bytes == 0) return;
        CARBON_CUDA_CHECK(cudaMemsetAsync(dst, byte_value, bytes, stream));
    }

    void gemm(const Gemm& g, Stream stream) override {
        void* workspace = require_stream("cublasLtMatmul", stream);
        validate_gemm(g, __FILE__, __LINE__);
        if (g.m == 0 || g.n == 0) return;
        const MatmulPlan& plan = plans_->get(g);
        // alpha and beta are host values (CUBLASLT_POINTER_MODE_HOST): read now, also under capture.
        // int8 GEMMs scale in int32 (CUDA_R_32I); validate_gemm allowed them only alpha 1, beta 0.
        const std::int32_t alpha_i = 1, beta_i = 0;
        const bool int8 = g.a_type == DType::I8;
        CARBON_CUDA_CHECK(cublasLtMatmul(lt_, plan.desc, int8 ? static_cast<const void*>(&alpha_i) : &g.alpha, g.a, plan.a, g.b,
                                         plan.b, int8 ? static_cast<const void*>(&beta_i) : &g.beta, g.c, plan.c, g.c, plan.c,
                                         &plan.algo, workspace, plan.workspace_bytes, stream));
    }

    Stream create_stream() override {
        make_current();
        cudaStream_t stream = nullptr;
        // Non-blocking: no implicit ordering with the legacy null stream, as the seam promises.
        CARBON_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        void* workspace = nullptr;
        if (const cudaError_t s = cudaMalloc(&workspace, kWorkspaceBytes); s != cudaSuccess) {
            (void)cudaStreamDestroy(stream);
            detail::check(s, "cudaMalloc(&workspace, kWorkspaceBytes)", __FILE__, __LINE__);
        }
        streams_.emplace(stream, workspace);
        return stream;
    }
    void destroy_stream(Stream stream) override {
        void* workspace = require_stream("cudaStreamDestroy", stream);
        // The stream's GEMMs may still use its workspace: wait before freeing it.
        CARBON_CUDA_CHECK(cudaStreamSynchronize(stream));
        streams_.erase(stream);
        CARBON_CUDA_CHECK(cudaFree(workspace));
        CARBON_CUDA_CHECK(cudaStreamDestroy(stream));
    }
    void stream_synchronize(Stream stream) override {
        require_stream("cudaStreamSynchronize", stream);
        CARBON_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    void device_synchronize() override {
        make_current();
        CARBON_CUDA_CHECK(cudaDeviceSynchronize());
    }

    Event create_event() override {
        make_current();
        cudaEvent_t event = nullptr;
        CARBON_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        return event;
    }
    void destroy_event(Event event) override { CARBON_CUDA_CHECK(cudaEventDestroy(event)); }
    void event_record(Event event, Stream stream) override {
        require_stream("cudaEventRecord", stream);
        CARBON_CUDA_CHECK(cudaEventRecord(event, stream));
    }
    void stream_wait_event(Stream stream, Event event) override {
        require_stream("cudaStreamWaitEvent", stream);
        CARBON_CUDA_CHECK(cudaStreamWaitEvent(stream, event, 0));
    }
    void event_synchronize(Event event) override { CARBON_CUDA_CHECK(cudaEventSynchronize(event)); }

    void begin_capture(Stream stream) override {
        require_stream("cudaStreamBeginCapture", stream);
        // Thread-local mode: only this thread's unsafe calls (allocation, synchronization) break the
        // capture, not another thread's unrelated work.
        CARBON_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    }
    Graph end_capture(Stream stream) override {
        require_stream("cudaStreamEndCapture", stream);
        cudaGraph_t graph = nullptr;
        CARBON_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        cudaGraphExec_t exec = nullptr;
        const cudaError_t s = cudaGraphInstantiate(&exec, graph, 0);
        (void)cudaGraphDestroy(graph);  // the executable graph does not need it
        detail::check(s, "cudaGraphInstantiate(&exec, graph, 0)", __FILE__, __LINE__);
        graphs_.emplace(exec, stream);
        return exec;
    }
    void launch_graph(Graph graph, Stream stream) override {
        require_stream("cudaGraphLaunch", stream);
        const auto it = graphs_.find(graph);
        if (it == graphs_.end())
            throw Error("cudaGraphLaunch", "cudaErrorInvalidResourceHandle",
                        "not a graph of this device (destroyed, or never returned by end_capture)", __FILE__, __LINE__);
        if (it->second != stream)
            throw Error("cudaGraphLaunch", "cudaErrorInvalidValue",
                        "a graph runs on the stream it was captured on (its GEMMs use that stream's workspace)",
                        __FILE__, __LINE__);
        CARBON_CUDA_CHECK(cudaGraphLaunch(graph, stream));
    }
    void destroy_graph(Graph graph) override {
        if (graphs_.erase(graph) == 0)
            throw Error("cudaGraphExecDestroy", "cudaErrorInvalidResourceHandle", "not a graph of this device",
                        __FILE__, __LINE__);
        CARBON_CUDA_CHECK(cudaGraphExecDestroy(graph));
    }

private:
    // cudaSetDevice is per host thread; remember what this thread last set.
    void make_current() const {
        static thread_local int current = -1;
        if (current == ordinal_) return;
        CARBON_CUDA_CHECK(cudaSetDevice(ordinal_));
        current = ordinal_;
    }

    // The stream's cuBLASLt workspace; throws for a stream this device did not make.
    void* require_stream(const char* call, Stream stream) const {
        make_current();
        const auto it = streams_.find(stream);
        if (it == streams_.end()) not_a_seam_stream(call, stream);
        return it->second;
    }

    int ordinal_;
    DeviceInfo info_;
    cublasLtHandle_t lt_ = nullptr;
    std::unique_ptr<MatmulPlans> plans_;
    std::unordered_map<Stream, void*> streams_;  // each stream's cuBLASLt workspace
    std::unordered_map<Graph, Stream> graphs_;   // each graph's capture stream
};

}  // namespace

std::string cuda_unavailable_reason(int ordinal) {
    return probe(ordinal).reason;
}

std::unique_ptr<Device> make_cuda_device(int ordinal) {
    if (const Unavailable u = probe(ordinal); !u.status.empty())
        throw Error("open CUDA device " + std::to_string(ordinal), u.status, u.reason, __FILE__, __LINE__);
    return std::make_unique<CudaDevice>(ordinal);
}

}  // namespace carbon::gpu
