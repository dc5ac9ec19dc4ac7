// Backend selection around the CUDA backend, on the host seam (the policy is the engine's, so it is
// proven here with a provider over the host seam): `auto` takes the GPU when a device is usable, the
// model fits and the self-check passes, and otherwise runs on the CPU with one notice that says why;
// `cuda` turns each reason into an error, except a failed self-check (forced through its test hook),
// which falls back to the CPU; the self-check's verdict is cached per model files and device; a
// device error in the middle of a request fails that request with the call named, and the program
// goes on (the CPU backend and a new GPU backend work afterwards).
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "carbon/generation/fns_generate.h"
#include "carbon/gpu_provider.h"
#include "carbon/model.h"
#include "check.h"
#include "gpu/cuda_backend.h"
#include "host_device.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

struct ProviderSettings {
    std::string unavailable;
    std::size_t free_memory = std::size_t{8} << 30;
    int fail_sync_after = -1;  // the device throws from its n-th stream synchronize (-1: never)
};

// The host seam with a fault injected: the n-th stream synchronize fails as the CUDA runtime reports
// a kernel's fault (an illegal address met by any queued kernel, GEMM or copy surfaces there).
class FailingDevice final : public gpu::Device {
public:
    explicit FailingDevice(int fail_after) : fail_after_(fail_after) {}
    gpu::DeviceInfo info() const override { return d_.info(); }
    gpu::MemoryInfo memory_info() const override { return d_.memory_info(); }
    void* allocate(std::size_t b) override { return d_.allocate(b); }
    void free(void* p) override { d_.free(p); }
    void* allocate_pinned(std::size_t b) override { return d_.allocate_pinned(b); }
    void free_pinned(void* p) override { d_.free_pinned(p); }
    void copy_to_device(void* a, const void* b, std::size_t n, gpu::Stream s) override { d_.copy_to_device(a, b, n, s); }
    void copy_to_host(void* a, const void* b, std::size_t n, gpu::Stream s) override { d_.copy_to_host(a, b, n, s); }
    void copy_on_device(void* a, const void* b, std::size_t n, gpu::Stream s) override { d_.copy_on_device(a, b, n, s); }
    void memset(void* a, int v, std::size_t n, gpu::Stream s) override { d_.memset(a, v, n, s); }
    void gemm(const gpu::Gemm& g, gpu::Stream s) override { d_.gemm(g, s); }
    gpu::Stream create_stream() override { return d_.create_stream(); }
    void destroy_stream(gpu::Stream s) override { d_.destroy_stream(s); }
    void stream_synchronize(gpu::Stream s) override {
        if (fail_after_ >= 0 && syncs_++ >= fail_after_)
            throw gpu::Error("cudaStreamSynchronize", "cudaErrorIllegalAddress", "injected by the test", __FILE__, __LINE__);
        d_.stream_synchronize(s);
    }
    void device_synchronize() override { d_.device_synchronize(); }
    gpu::Event create_event() override { return d_.create_event(); }
    void destroy_event(gpu::Event e) override { d_.destroy_event(e); }
    void event_record(gpu::Event e, gpu::Stream s) override { d_.event_record(e, s); }
    void stream_wait_event(gpu::Stream s, gpu::Event e) override { d_.stream_wait_event(s, e); }
    void event_synchronize(gpu::Event e) override { d_.event_synchronize(e); }
    void begin_capture(gpu::Stream s) override { d_.begin_capture(s); }
    gpu::Graph end_capture(gpu::Stream s) override { return d_.end_capture(s); }
    void launch_graph(gpu::Graph g, gpu::Stream s) override { d_.launch_graph(g, s); }
    void destroy_graph(gpu::Graph g) override { d_.destroy_graph(g); }

private:
    gpu::host_seam::HostDevice d_;
    int fail_after_;
    int syncs_ = 0;
};

void use_provider(const ProviderSettings& s) {
    auto p = std::make_shared<GpuProvider>();
    p->name = "CUDA (host seam)";
    p->unavailable_reason = [s] { return s.unavailable; };
    p->device_identity = [] { return std::string("host seam test device"); };
    p->free_memory = [s] { return s.free_memory; };
    p->device_name = [] { return std::string("the host seam"); };
    p->make = [s](const Checkpoint& ck, std::vector<std::int32_t> dna, const BackendOptions& bo) {
        gpu::CudaBackendOptions o = gpu::cuda_backend_options(bo);  // as the plugins take the options
        o.kv_type = DType::F32;
        return gpu::make_cuda_backend(std::make_unique<FailingDevice>(s.fail_sync_after), ck, std::move(dna), o);
    };
    register_gpu_provider(std::move(p));
}

const std::filesystem::path& model_dir() {
    TestModelOptions o;
    o.dtype = DType::F32;
    o.seed = 4;
    return testing_support::tiny_model(o, "f32");
}

std::unique_ptr<Model> load(BackendKind kind, const std::string& weights = "") {
    ModelOptions o;
    o.backend = kind;
    o.threads = 1;
    o.weights = weights;
    return Model::load(model_dir(), o);
}

// Every case gets an empty self-check cache and no test hook unless it sets one.
struct Fresh {
    testing_support::TempDir cache{"selfcheck"};
    Fresh() {
        ::setenv("XDG_CACHE_HOME", cache.path.c_str(), 1);
        ::unsetenv("CARBON_GPU_SELF_CHECK");
    }
    ~Fresh() { register_gpu_provider(nullptr); }
};

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

TEST(auto_uses_the_gpu_after_a_passing_self_check_and_caches_the_verdict) {
    Fresh f;
    use_provider({});
    auto m = load(BackendKind::Auto);
    CHECK_EQ(m->backend().name(), std::string("cuda"));
    CHECK(contains(m->notice(), "GPU self-check passed"));
    CHECK(std::filesystem::exists(f.cache.path / "carbon-studio" / "gpu-self-check.tsv"));
    auto again = load(BackendKind::Cuda);
    CHECK_EQ(again->backend().name(), std::string("cuda"));
    CHECK(!contains(again->notice(), "self-check"));  // the cached verdict: nothing to say
}

TEST(int8_weights_run_on_the_gpu_after_a_self_check_against_the_cpu_s_int8_and_q8_0_stays_on_the_cpu) {
    Fresh f;
    use_provider({});
    for (BackendKind kind : {BackendKind::Auto, BackendKind::Cuda}) {
        auto m = load(kind, "int8");
        CHECK_EQ(m->backend().name(), std::string("cuda"));
        CHECK_EQ(m->weights(), std::string("int8"));
        CHECK(contains(m->backend().describe(), "int8 weights (one scale per output row"));
    }
    auto q = load(BackendKind::Auto, "q8_0");
    CHECK_EQ(q->backend().name(), std::string("cpu"));
    CHECK_EQ(q->weights(), std::string("q8_0"));
    CHECK(contains(q->notice(), "q8_0 weights (groups of 32) run on the CPU"));
    CHECK_THROWS_WITH(load(BackendKind::Cuda, "q8_0"), "q8_0 weights (groups of 32) run on the CPU backend", "--backend cpu");
    // The self-check's verdict is kept per weights too: native weights check (and pass) on their own.
    auto native = load(BackendKind::Cuda);
    CHECK_EQ(native->weights(), std::string("native"));
}

TEST(a_failed_self_check_falls_back_to_the_cpu_and_says_why) {
    Fresh f;
    use_provider({});
    ::setenv("CARBON_GPU_SELF_CHECK", "mismatch", 1);
    for (BackendKind kind : {BackendKind::Auto, BackendKind::Cuda}) {
        auto m = load(kind);
        CHECK_EQ(m->backend().name(), std::string("cpu"));
        CHECK(contains(m->notice(), "GPU self-check FAILED"));
        CHECK(contains(m->notice(), "runs on the CPU"));
    }
    // The forced failure is not cached: without the hook the GPU is used again.
    ::unsetenv("CARBON_GPU_SELF_CHECK");
    CHECK_EQ(load(BackendKind::Auto)->backend().name(), std::string("cuda"));
}

TEST(no_device_auto_notices_and_cuda_is_refused_with_the_reason) {
    Fresh f;
    use_provider({"CUDA driver version is insufficient for CUDA runtime version (cudaErrorInsufficientDriver)"});
    auto m = load(BackendKind::Auto);
    CHECK_EQ(m->backend().name(), std::string("cpu"));
    CHECK(contains(m->notice(), "no usable GPU (CUDA driver version is insufficient"));
    CHECK(contains(m->notice(), "running on the CPU"));
    CHECK_THROWS_WITH(load(BackendKind::Cuda), "cannot run on the GPU as asked (backend cuda): no usable GPU", "cudaErrorInsufficientDriver");
}

TEST(a_model_that_does_not_fit_is_refused_with_both_numbers) {
    Fresh f;
    use_provider({"", std::size_t{3} << 20});
    auto m = load(BackendKind::Auto);
    CHECK_EQ(m->backend().name(), std::string("cpu"));
    CHECK(contains(m->notice(), "the host seam has 3 MiB free, but this model needs"));
    CHECK_THROWS_WITH(load(BackendKind::Cuda), "3 MiB free", "MiB on it (weights");
}

TEST(without_a_provider_auto_runs_on_the_cpu_and_cuda_is_refused) {
    Fresh f;
    register_gpu_provider(nullptr);
    auto m = load(BackendKind::Auto);
    CHECK_EQ(m->backend().name(), std::string("cpu"));
    CHECK_EQ(m->notice(), std::string("no CUDA backend in this build: running on the CPU"));
    CHECK_THROWS_WITH(load(BackendKind::Cuda), "cannot run on the GPU as asked (backend cuda): no CUDA backend in this build");
}

TEST(a_device_error_mid_request_fails_that_request_and_the_program_goes_on) {
    Fresh f;
    // Loading synchronizes a few times; the fault comes at the 13th synchronize, a few steps into the
    // design request.
    ModelOptions o;
    o.backend = BackendKind::Cuda;
    o.threads = 1;
    o.self_check = false;
    use_provider({"", std::size_t{8} << 30, 12});
    auto m = Model::load(model_dir(), o);
    CHECK_EQ(m->backend().name(), std::string("cuda"));
    DesignRequest r;
    r.left_context = "ACGTTGCAGGCTAGCTAGGATCCATGCAAGT";
    r.length = 120;
    r.count = 2;
    CHECK_THROWS_WITH(generate_designs(m->backend(), m->tokenizer(), r), "cudaStreamSynchronize failed",
                      "cudaErrorIllegalAddress");
    // The program goes on: the CPU backend, and a fresh GPU backend, serve the same request.
    use_provider({});
    auto gpu = Model::load(model_dir(), o);
    ModelOptions c = o;
    c.backend = BackendKind::Cpu;
    auto cpu = Model::load(model_dir(), c);
    const auto a = generate_designs(gpu->backend(), gpu->tokenizer(), r);
    const auto b = generate_designs(cpu->backend(), cpu->tokenizer(), r);
    CHECK_EQ(a.designs.at(0).bases, b.designs.at(0).bases);
}

int main() {
    return check::run_all();
}
