// The CUDA backend as a plugin, libcarbon-cuda.so (target carbon_cuda_plugin): the real seam (cudart
// + cuBLASLt) under the CUDA backend, with the nvcc-built kernels. Programs never link CUDA: they
// load this file at start-up (load_gpu_plugin, gpu_provider.h), so carbon-cli and carbon-studio run
// on machines without the CUDA libraries and say why there is no GPU. It exports two C functions;
// everything else, the engine it was linked with included, stays hidden inside it.
#include <memory>
#include <sstream>

#include "carbon/gpu_provider.h"
#include "gpu/cuda_backend.h"
#include "gpu/cuda_device.h"

extern "C" __attribute__((visibility("default"))) const char* carbon_gpu_plugin_abi() {
    return carbon::kGpuPluginAbi;
}

// A new provider for device 0; the caller owns it. Nothing touches the driver until it is asked.
extern "C" __attribute__((visibility("default"))) carbon::GpuProvider* carbon_gpu_plugin_provider() {
    using namespace carbon::gpu;
    auto* p = new carbon::GpuProvider;
    p->name = "CUDA";
    p->unavailable_reason = [] { return cuda_unavailable_reason(0); };
    p->device_identity = [] {
        const DeviceInfo i = make_cuda_device(0)->info();
        std::ostringstream os;
        os << i.name << " " << i.uuid << " sm_" << i.compute_major << i.compute_minor << " driver " << i.driver_version
           << " runtime " << i.runtime_version;
        return os.str();
    };
    p->free_memory = [] { return make_cuda_device(0)->memory_info().free; };
    p->device_name = [] { return make_cuda_device(0)->info().name; };
    p->make = [](const carbon::Checkpoint& ck, std::vector<std::int32_t> dna_rows, const carbon::BackendOptions& options) {
        return make_cuda_backend(make_cuda_device(0), ck, std::move(dna_rows), cuda_backend_options(options));
    };
    return p;
}
