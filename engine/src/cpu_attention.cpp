// The CPU backend's attention (cpu::attention_rows in cpu_ops.h): causal grouped-query attention of
// a ragged batch over block-allocated fp32 KV caches. It is the reference of the GPU attention
// kernels (kernels/attention_*.cuh), so it keeps the plain formula for every (row, head); rows and
// the heads of a kv group are computed together so that each key and value is read once for them.
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
    // Tasks: (item, kv head, block of up to kRows consecutive rows of the item). The block's rows
    // times the group's query heads read each key and value once between them, instead of once
    // per (row, head): at 1,366-token windows that re-reading was most of a pass's memory
    // traffic. Every (row, head) still adds its terms in key order, so the results are the same
    // bits as computing it alone (batch invariance holds).
    constexpr size_t kRows = 8;
    struct Task {
        size_t item, g, row0, rows;
    };
    std::vector<Task> tasks;
    for (size_t i = 0; i + 1 < item_row.size(); ++i)
        for (size_t g = 0; g < shape.n_kv_heads; ++g)
            for (size_t r = item_row[i]; r < item_row[i + 1]; r += kRows)
                tasks.push_back({i, g, r, std::min(kRows, item_row[i + 1] - r)});
    pool.parallel_for(tasks.size(), 1, [&](size_t t0, size_t t1, int) {
        thread_local std::vector<float> scores;  // [rows * group][last + 1]
        thread_local std::vector<float> mx, inv;
        for (size_t t = t0; t < t1; ++t) {
            const Task& task = tasks[t];
            const KvBlocks& s = kv[task.item];
            const size_t first = start[task.item] + (task.row0 - item_row[task.item]);  // causal: row r sees keys 0..first+r
            const size_t last = first + task.rows - 1, n = task.rows * group, width = last + 1;
            scores.resize(n * width);
            mx.assign(n, -std::numeric_limits<float>::infinity());
            inv.assign(n, 0.f);
            auto qv = [&](size_t r, size_t k) { return q + (task.row0 + r) * q_stride + (task.g * group + k) * hd; };
            for (size_t j = 0; j <= last; ++j) {
                const float* key = s.key(task.g, j);
                for (size_t r = (j > first ? j - first : 0); r < task.rows; ++r)
                    for (size_t k = 0; k < group; ++k) {
                        const size_t v = r * group + k;
                        const float x = dot_f32(qv(r, k), key, hd) * scale;
                        scores[v * width + j] = x;
                        mx[v] = std::max(mx[v], x);
                    }
            }
            for (size_t r = 0; r < task.rows; ++r)
                for (size_t k = 0; k < group; ++k) {
                    const size_t v = r * group + k;
                    float* sc = scores.data() + v * width;
                    float denom = 0.f;
                    for (size_t j = 0; j <= first + r; ++j) {
                        sc[j] = std::exp(sc[j] - mx[v]);
                        denom += sc[j];
                    }
                    inv[v] = 1.0f / denom;
                    float* o = out + (task.row0 + r) * q_stride + (task.g * group + k) * hd;
                    std::fill(o, o + hd, 0.f);
                }
            for (size_t j = 0; j <= last; ++j) {
                const float* value = s.value(task.g, j);
                for (size_t r = (j > first ? j - first : 0); r < task.rows; ++r)
                    for (size_t k = 0; k < group; ++k) {
                        const size_t v = r * group + k;
                        axpy_f32(scores[v * width + j] * inv[v], value, out + (task.row0 + r) * q_stride + (task.g * group + k) * hd, hd);
                    }
            }
        }
    });
}

}  // namespace carbon::cpu
