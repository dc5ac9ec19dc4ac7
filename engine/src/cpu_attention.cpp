// The CPU backend's attention (cpu::attention_rows in cpu_ops.h): causal grouped-query attention of
// a ragged batch over block-allocated fp32 KV caches, one (row, head) task at a time. It is the
// reference of the GPU attention kernels (kernels/attention_*.cuh), so it keeps the plain formula.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_ops.h"

namespace carbon::cpu {

void attention_rows(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                    std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out) {
    const size_t n_heads = shape.n_heads, hd = shape.head_dim;
    const size_t group = n_heads / shape.n_kv_heads;
    const float scale = 1.0f / std::sqrt(float(hd));
    const size_t q_stride = n_heads * hd;
    // Tasks: (row, head) for every appended token of every item.
    const size_t total_rows = item_row.back();
    pool.parallel_for(total_rows * n_heads, 4, [&](size_t t0, size_t t1, int) {
        thread_local std::vector<float> scores;
        for (size_t t = t0; t < t1; ++t) {
            const size_t row = t / n_heads, h = t % n_heads;
            const size_t item = size_t(std::upper_bound(item_row.begin(), item_row.end(), row) - item_row.begin()) - 1;
            const KvBlocks& s = kv[item];
            const size_t pos = start[item] + (row - item_row[item]);  // causal: keys 0..pos
            const size_t g = h / group;
            const float* qv = q + row * q_stride + h * hd;
            scores.resize(pos + 1);
            float mx = -std::numeric_limits<float>::infinity();
            for (size_t j = 0; j <= pos; ++j) {
                scores[j] = dot_f32(qv, s.key(g, j), hd) * scale;
                mx = std::max(mx, scores[j]);
            }
            float denom = 0.f;
            for (size_t j = 0; j <= pos; ++j) {
                scores[j] = std::exp(scores[j] - mx);
                denom += scores[j];
            }
            const float inv = 1.0f / denom;
            float* o = out + row * q_stride + h * hd;
            std::fill(o, o + hd, 0.f);
            for (size_t j = 0; j <= pos; ++j) axpy_f32(scores[j] * inv, s.value(g, j), o, hd);
        }
    });
}

}  // namespace carbon::cpu
