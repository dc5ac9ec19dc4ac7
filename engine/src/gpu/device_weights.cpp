// Weights to the device (see device_weights.h).
#include "gpu/device_weights.h"

#include <cstring>

namespace carbon::gpu {

DeviceTensor DeviceWeights::upload(const TensorView* t, Stream stream) {
    if (t == nullptr) return {};
    DeviceMemory& m = blocks_.emplace_back(device_, t->nbytes);
    device_.copy_to_device(m.get(), t->data, t->nbytes, stream);
    bytes_ += t->nbytes;
    DeviceTensor d;
    d.data = m.get();
    d.dtype = t->dtype;
    d.rows = t->shape.size() == 2 ? int(t->shape[0]) : 1;
    d.cols = int(t->shape.back());
    return d;
}

DeviceWeights::DeviceWeights(Device& device, const ModelWeights& w, const std::vector<std::int32_t>& dna_rows, Stream stream)
    : device_(device), dtype_(w.dtype) {
    blocks_.reserve(4 + w.layers.size() * 16);  // DeviceMemory pointers stay put
    embed_ = upload(w.embed, stream);
    for (const LayerWeights& L : w.layers) {
        DeviceLayer d;
        d.attn_norm = upload(L.attn_norm, stream);
        d.wq = upload(L.wq, stream);
        d.wk = upload(L.wk, stream);
        d.wv = upload(L.wv, stream);
        d.wo = upload(L.wo, stream);
        d.bq = upload(L.bq, stream);
        d.bk = upload(L.bk, stream);
        d.bv = upload(L.bv, stream);
        d.bo = upload(L.bo, stream);
        d.ffn_norm = upload(L.ffn_norm, stream);
        d.w_gate = upload(L.w_gate, stream);
        d.w_up = upload(L.w_up, stream);
        d.w_down = upload(L.w_down, stream);
        d.b_gate = upload(L.b_gate, stream);
        d.b_up = upload(L.b_up, stream);
        d.b_down = upload(L.b_down, stream);
        layers_.push_back(d);
    }
    final_norm_ = upload(w.final_norm, stream);
    if (!w.lm_head) {  // a sequence-regression checkpoint: its head is computed on the host
        device_.stream_synchronize(stream);
        return;
    }
    lm_head_ = w.lm_head == w.embed ? embed_ : upload(w.lm_head, stream);

    // The DNA rows, gathered on the host (pageable memory is fine outside a graph capture).
    const std::size_t row_bytes = std::size_t(lm_head_.cols) * dtype_size(lm_head_.dtype);
    std::vector<unsigned char> gathered(dna_rows.size() * row_bytes);
    const auto* head = static_cast<const unsigned char*>(w.lm_head->data);
    for (std::size_t i = 0; i < dna_rows.size(); ++i)
        std::memcpy(gathered.data() + i * row_bytes, head + std::size_t(dna_rows[i]) * row_bytes, row_bytes);
    DeviceMemory& m = blocks_.emplace_back(device_, gathered.size());
    device_.copy_to_device(m.get(), gathered.data(), gathered.size(), stream);
    bytes_ += gathered.size();
    dna_head_ = {m.get(), lm_head_.dtype, int(dna_rows.size()), lm_head_.cols};
    device_.stream_synchronize(stream);  // `gathered` and the mapping must outlive the copies
}

}  // namespace carbon::gpu
