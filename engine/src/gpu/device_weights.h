// The checkpoint's tensors in device memory, as the CUDA backend reads them: every matrix and norm
// in the checkpoint's own dtype (no conversion: what was proven on the CPU is what the GPU reads),
// plus the 4,096 DNA rows of the output head gathered into one contiguous matrix, so generation and
// base-level scoring multiply by 4,096 rows instead of the whole vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carbon/loader/checkpoint.h"
#include "gpu/device_memory.h"

namespace carbon::gpu {

struct DeviceTensor {
    const void* data = nullptr;  // device; null for an absent bias
    DType dtype = DType::BF16;
    int rows = 0, cols = 0;      // a vector is rows = 1
};

struct DeviceLayer {
    DeviceTensor attn_norm, wq, wk, wv, wo, bq, bk, bv, bo;
    DeviceTensor ffn_norm, w_gate, w_up, w_down, b_gate, b_up, b_down;
};

class DeviceWeights {
public:
    // Copies every tensor of `w` to the device on `stream` (synchronized before returning, so the
    // mapped checkpoint may be paged out afterwards). `dna_rows` are the head's rows in 6-mer order.
    DeviceWeights(Device& device, const ModelWeights& w, const std::vector<std::int32_t>& dna_rows, Stream stream);

    const DeviceTensor& embed() const { return embed_; }
    const DeviceLayer& layer(std::size_t l) const { return layers_[l]; }
    const DeviceTensor& final_norm() const { return final_norm_; }
    // [vocab, H] (the embedding when tied) and its [4096, H] DNA rows; 0 rows without an lm_head.
    const DeviceTensor& lm_head() const { return lm_head_; }
    const DeviceTensor& dna_head() const { return dna_head_; }
    DType dtype() const { return dtype_; }
    std::size_t bytes() const { return bytes_; }

private:
    DeviceTensor upload(const TensorView* t, Stream stream);

    Device& device_;
    std::vector<DeviceMemory> blocks_;
    std::vector<DeviceLayer> layers_;
    DeviceTensor embed_, final_norm_, lm_head_, dna_head_;
    DType dtype_ = DType::BF16;
    std::size_t bytes_ = 0;
};

}  // namespace carbon::gpu
