// The CUDA backend (the engine's second Backend): the Llama forward pass over the device seam
// (gpu/device.h), so the same code runs on a user's GPU (cudart + cuBLASLt, cuda_device.h) and, in CI,
// on the host seam with the kernels built by g++ through the host execution layer. GEMMs go through
// the seam's cuBLASLt call (the checkpoint's dtype in, fp32 accumulate and out); everything else is
// kernels/ (embedding, RMSNorm, RoPE, KV append, attention, SwiGLU, casts). The residual stream,
// norms, RoPE and the logits are fp32; the KV cache is bf16 (default) or fp32, paged (kv_pages.h).
// Plain C++: needs the CUDA headers for the kernels' declarations, never nvcc.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "carbon/backend.h"
#include "gpu/device.h"

namespace carbon::gpu {

struct CudaBackendOptions {
    // The KV cache's type: BF16 (half the memory) or F32. Checkpoints whose weights are not bf16 get
    // an fp32 cache (the attention output then feeds their GEMMs through one cast), and describe() says so.
    DType kv_type = DType::BF16;
    // Decode steps (up to 16 new tokens per sequence, GEMV or GEMM projections) recorded once per
    // shape as a CUDA graph and replayed: one launch per step instead of a few hundred. The same
    // work either way.
    bool graphs = true;
    // int8 weights (BackendOptions::weights "int8"): the projections and the DNA head quantised at
    // load with one scale per row and the activations per row, the CPU backend's rows scheme, so
    // every product is the CPU's exact int32 dot product with the same scales (the same bits).
    // Decode through gemv_int8, prefill through cuBLASLt's int8 GEMM (exact int32 sums) and the
    // scale_int32_products epilogue.
    bool int8_weights = false;
    // With int8 weights: false sends prefill through gemv_int8 as well (what a GPU gets whose
    // cuBLASLt has no int8 GEMM; the same bits, slower). For the tests.
    bool int8_gemm = true;
};

// The engine's BackendOptions as the CUDA backend takes them: weights "" or "native" as stored,
// "int8" int8_weights; "q8_0" (the groups scheme, CPU only) and anything else an Error naming them.
CudaBackendOptions cuda_backend_options(const BackendOptions& options);

// Uploads the checkpoint's weights to `device` and returns the backend that owns the device. Throws
// carbon::Error naming what the backend cannot run (a head_dim the attention kernels are not built
// for, partial rotary embeddings) or what the device cannot hold.
std::unique_ptr<Backend> make_cuda_backend(std::unique_ptr<Device> device, const Checkpoint& checkpoint,
                                           std::vector<std::int32_t> dna_rows, const CudaBackendOptions& options = {});

// FNS rows (Backend::forward_fns) a CUDA backend computed on the device, and rows it handed to the
// host functions because the device could not certify the choice (near ties). Zero for other backends.
struct FnsRowCounts {
    std::size_t device = 0, host = 0;
};
FnsRowCounts fns_row_counts(const Backend& backend);

// Decode steps a CUDA backend recorded as graphs, and graph launches. Zero for other backends.
struct GraphCounts {
    std::size_t captures = 0, replays = 0;
};
GraphCounts graph_counts(const Backend& backend);

}  // namespace carbon::gpu
