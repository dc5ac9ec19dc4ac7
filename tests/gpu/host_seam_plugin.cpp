// The CUDA backend plugin over the host seam, libcarbon-cuda-host-seam.so (test infrastructure, never
// shipped): the same exports as libcarbon-cuda.so (cuda_plugin.cpp), with the host implementation of
// the device seam and the kernels built by g++ through the host execution layer. Programs load it
// with CARBON_CUDA_PLUGIN=.../libcarbon-cuda-host-seam.so, so `carbon-cli bench --backend cuda`, the
// first-use self-check and its fallback run through the CUDA backend's own code on a machine without
// a GPU: the dry run of the GPU proof (tests/gpu/prove.sh with CARBON_PROVE_DRY_RUN=1) uses it.
#include <cstdlib>
#include <memory>
#include <string>

#include "carbon/gpu_provider.h"
#include "gpu/cuda_backend.h"
#include "host_device.h"

extern "C" __attribute__((visibility("default"))) const char* carbon_gpu_plugin_abi() {
    return carbon::kGpuPluginAbi;
}

// CARBON_HOST_SEAM_MEMORY_MB (default 8192) sets the emulated device's memory, so the memory plan's
// refusal can be exercised too.
extern "C" __attribute__((visibility("default"))) carbon::GpuProvider* carbon_gpu_plugin_provider() {
    using namespace carbon::gpu;
    auto options = [] {
        host_seam::HostDeviceOptions o;
        if (const char* mb = std::getenv("CARBON_HOST_SEAM_MEMORY_MB")) o.memory_bytes = std::size_t(std::atoll(mb)) << 20;
        return o;
    };
    auto* p = new carbon::GpuProvider;
    p->name = "CUDA on the host seam";
    p->unavailable_reason = [] { return std::string(); };
    p->device_identity = [options] { return host_seam::HostDevice(options()).info().name + " (host seam plugin)"; };
    p->free_memory = [options] { return host_seam::HostDevice(options()).memory_info().free; };
    p->device_name = [options] { return host_seam::HostDevice(options()).info().name; };
    p->make = [options](const carbon::Checkpoint& ck, std::vector<std::int32_t> dna_rows, const carbon::BackendOptions& bo) {
        return make_cuda_backend(std::make_unique<host_seam::HostDevice>(options()), ck, std::move(dna_rows),
                                 cuda_backend_options(bo));
    };
    return p;
}
