// The checkpoint's tensors in device memory, as the CUDA backend reads them: every matrix and norm
// in the checkpoint's own dtype (no conversion: what was proven on the CPU is what the GPU reads),
// plus the 4,096 DNA rows of the output head gathered into one contiguous matrix, so generation and
// base-level scoring multiply by 4,096 rows instead of the whole vocabulary. With int8 weights
// (BackendOptions::weights "int8") the projections and the DNA head are int8 with one scale per
// row, quantised at load by the CPU backend's rule (cpu::quantize_weight_row), so both backends
// hold the same values; the embedding, norms and the full-vocabulary head stay as stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carbon/loader/checkpoint.h"
#include "gpu/device_memory.h"

namespace carbon::gpu {

struct DeviceTensor {
    const void* data = nullptr;  // device; null for an absent bias
    DType dtype = DType::BF16;   // I8: int8 weights, one fp32 scale per row in `scales`
    int rows = 0, cols = 0;      // a vector is rows = 1
    const float* scales = nullptr;  // device, rows values; I8 only
};

struct DeviceLayer {
    DeviceTensor attn_norm, wq, wk, wv, wo, bq, bk, bv, bo;
    DeviceTensor ffn_norm, w_gate, w_up, w_down, b_gate, b_up, b_down;
};

class DeviceWeights {
public:
    // Copies every tensor of `w` to the device on `stream` (synchronized before returning, so the
    // mapped checkpoint may be paged out afterwards). `dna_rows` are the head's rows in 6-mer order.
    DeviceWeights(Device& device, const ModelWeights& w, const std::vector<std::int32_t>& dna_rows, Stream stream,
                  bool int8 = false);

    const DeviceTensor& embed() const { return embed_; }
    const DeviceLayer& layer(std::size_t l) const { return layers_[l]; }
    const DeviceTensor& final_norm() const { return final_norm_; }
    // [vocab, H] (the embedding when tied) and its [4096, H] DNA rows; 0 rows without an lm_head.
    const DeviceTensor& lm_head() const { return lm_head_; }
    const DeviceTensor& dna_head() const { return dna_head_; }
    DType dtype() const { return dtype_; }  // the checkpoint's
    bool int8() const { return int8_; }
    std::size_t bytes() const { return bytes_; }

private:
    DeviceTensor upload(const TensorView* t, Stream stream);
    // Rows row_of[0..n) of `t` (all rows when null) as int8 with per-row scales.
    DeviceTensor upload_int8(const TensorView* t, const std::int32_t* row_of, std::size_t n, Stream stream);

    Device& device_;
    std::vector<DeviceMemory> blocks_;
    std::vector<DeviceLayer> layers_;
    DeviceTensor embed_, final_norm_, lm_head_, dna_head_;
    DType dtype_ = DType::BF16;
    bool int8_ = false;
    std::size_t bytes_ = 0;
};

}  // namespace carbon::gpu
