// How a GPU backend reaches Model::load without the engine depending on CUDA: a program built with
// CUDA registers a provider at start-up (carbon::gpu::register_cuda_provider, engine/src/gpu/), tests
// register one over the host seam. The engine owns the policy around it: which backend `auto` picks,
// the memory plan before loading, and the self-check (the same prompt through the GPU and the CPU
// backend, compared; the verdict cached per model files, GPU, driver and build) with its fallback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/loader/checkpoint.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

struct GpuProvider {
    std::string name = "CUDA";
    // Empty when a device can be used, else why not, in words a user can act on.
    std::function<std::string()> unavailable_reason;
    // What the self-check's verdict is cached under: GPU name and UUID, driver and runtime versions.
    std::function<std::string()> device_identity;
    // Device memory free now (bytes) and the device's name, for the memory plan.
    std::function<std::size_t()> free_memory;
    std::function<std::string()> device_name;
    std::function<std::unique_ptr<Backend>(const Checkpoint&, std::vector<std::int32_t> dna_rows, const BackendOptions&)> make;
};

// What a GPU plugin and the program loading it must agree on (they pass C++ objects: GpuProvider,
// Backend, Checkpoint): the plugin exports it as carbon_gpu_plugin_abi().
inline constexpr const char* kGpuPluginAbi = "carbon " CARBON_VERSION " gpu-plugin 1";

// Loads the CUDA backend plugin, libcarbon-cuda.so, and registers its provider: $CARBON_CUDA_PLUGIN,
// else the file beside the executable (the build tree), else ../lib/carbon-studio/ from it (an
// installation). No file: nothing is registered (`auto` says "no CUDA backend in this build"). A
// file that does not load (its CUDA libraries are missing, it is from another build): a provider
// whose unavailable_reason says so, with the loader's message. Returns what happened, in one line.
std::string load_gpu_plugin();

// One line on the GPU for a user: "no CUDA backend in this build", "no usable GPU (REASON)" or
// "GPU: NAME (CUDA)". Asks the driver when a provider is registered.
std::string gpu_status();

// Registers (or, with null, removes) the process's GPU provider.
void register_gpu_provider(std::shared_ptr<const GpuProvider> provider);
std::shared_ptr<const GpuProvider> gpu_provider();

// Device bytes a backend needs before it serves a request: the weights, the KV cache of one
// sequence as long as the model's context, and a workspace for a 512-token step.
std::size_t gpu_memory_needed(const Checkpoint& checkpoint);

struct SelfCheck {
    bool passed = false;
    bool cached = false;      // the verdict came from the cache, nothing was run
    double max_kl = 0;        // largest KL(cpu || gpu) over the DNA 6-mers of any checked row, nats (a
                              // sequence-regression checkpoint: largest relative L2 difference of its final hidden states)
    double tolerance = 0;
    std::string detail;       // one line for the user
};

// Runs a fixed 48-token DNA prompt (every position's 4,096 DNA logits, then 8 decode steps at batch 2
// after a fork) through `gpu` and `cpu` and compares the distributions: KL(cpu || gpu) per row at
// most 1e-5 nats for fp32 weights, 0.02 for bf16/fp16 (their rounding of activations) and for
// int8 weights (`weights` "int8": both backends quantise the activations, and fp32 summation
// order can tip a rounding). The verdict is cached in $XDG_CACHE_HOME/carbon-studio/gpu-self-check.tsv
// (or ~/.cache/...), keyed by the model's files (paths, sizes, modification times), the weights,
// `device_identity` and this build. The
// environment variable CARBON_GPU_SELF_CHECK=mismatch perturbs the GPU's logits (a test hook:
// the check must fail), =rerun ignores the cache.
SelfCheck run_gpu_self_check(Backend& gpu, Backend& cpu, const Checkpoint& checkpoint, const Tokenizer& tokenizer,
                             const std::string& device_identity, const std::string& weights = "native");

}  // namespace carbon
