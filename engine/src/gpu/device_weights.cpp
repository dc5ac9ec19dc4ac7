// Weights to the device (see device_weights.h).
#include "gpu/device_weights.h"

#include <cmath>
#include <cstring>
#include <thread>

#include "carbon/support/thread_pool.h"
#include "cpu/cpu_q8.h"

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

DeviceTensor DeviceWeights::upload_int8(const TensorView* t, const std::int32_t* row_of, std::size_t n, Stream stream) {
    const std::size_t cols = std::size_t(t->shape.back()), all = t->shape.size() == 2 ? std::size_t(t->shape[0]) : 1;
    if (!row_of) n = all;
    std::vector<std::int8_t> q(n * cols);
    std::vector<float> scales(n);
    std::vector<std::size_t> bad;  // a row with a value that is not finite, per worker
    {
        ThreadPool pool(int(std::max(1u, std::thread::hardware_concurrency())));
        bad.assign(std::size_t(pool.size()), SIZE_MAX);
        pool.parallel_for(n, 64, [&](std::size_t begin, std::size_t end, int worker) {
            std::vector<float> row(cols);
            for (std::size_t r = begin; r < end; ++r) {
                const std::size_t src = row_of ? std::size_t(row_of[r]) : r;
                for (std::size_t c = 0; c < cols; ++c) row[c] = load_as_f32(t->data, t->dtype, src * cols + c);
                scales[r] = cpu::quantize_weight_row(row.data(), cols, q.data() + r * cols);
                if (std::isnan(scales[r])) bad[std::size_t(worker)] = std::min(bad[std::size_t(worker)], src);
            }
        });
    }
    if (const std::size_t row = *std::min_element(bad.begin(), bad.end()); row != SIZE_MAX)
        throw carbon::Error("tensor " + t->name + ": row " + std::to_string(row) +
                            " holds a value that is not finite, which int8 weights cannot hold; load it with native weights");
    void* values = blocks_.emplace_back(device_, q.size()).get();
    device_.copy_to_device(values, q.data(), q.size(), stream);
    void* s = blocks_.emplace_back(device_, scales.size() * sizeof(float)).get();
    device_.copy_to_device(s, scales.data(), scales.size() * sizeof(float), stream);
    device_.stream_synchronize(stream);  // the host vectors go when this returns
    bytes_ += q.size() + scales.size() * sizeof(float);
    DeviceTensor d;
    d.data = values;
    d.dtype = DType::I8;
    d.rows = int(n);
    d.cols = int(cols);
    d.scales = static_cast<const float*>(s);
    return d;
}

DeviceWeights::DeviceWeights(Device& device, const ModelWeights& w, const std::vector<std::int32_t>& dna_rows, Stream stream,
                             bool int8)
    : device_(device), dtype_(w.dtype), int8_(int8) {
    blocks_.reserve(8 + w.layers.size() * 30);  // DeviceMemory pointers stay put
    embed_ = upload(w.embed, stream);
    for (const LayerWeights& L : w.layers) {
        DeviceLayer d;
        // The projections: as stored, or int8 with per-row scales.
        const auto matrix = [&](const TensorView* t) { return int8 ? upload_int8(t, nullptr, 0, stream) : upload(t, stream); };
        d.attn_norm = upload(L.attn_norm, stream);
        d.wq = matrix(L.wq);
        d.wk = matrix(L.wk);
        d.wv = matrix(L.wv);
        d.wo = matrix(L.wo);
        d.bq = upload(L.bq, stream);
        d.bk = upload(L.bk, stream);
        d.bv = upload(L.bv, stream);
        d.bo = upload(L.bo, stream);
        d.ffn_norm = upload(L.ffn_norm, stream);
        d.w_gate = matrix(L.w_gate);
        d.w_up = matrix(L.w_up);
        d.w_down = matrix(L.w_down);
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
    if (int8) {  // the DNA rows quantised as they are gathered
        dna_head_ = upload_int8(w.lm_head, dna_rows.data(), dna_rows.size(), stream);
        return;
    }

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
