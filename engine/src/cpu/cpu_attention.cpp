// The CPU backend's attention (cpu::attention_rows in cpu_ops.h): causal grouped-query attention of
// a ragged batch over block-allocated fp32 KV caches. It is the reference of the GPU attention
// kernels (kernels/attention_*.cuh), so it keeps the plain formula for every (row, head); rows and
// the heads of a kv group are computed together so that each key and value is read once for them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_matmul_paths.h"
#include "cpu_ops.h"

namespace carbon::cpu {

void attention_rows(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                    std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out, Isa isa) {
    if (isa == Isa::Amx) return detail::attention_rows_amx(pool, shape, kv, item_row, start, q, out);
    if (isa_has_avx512(isa)) return detail::attention_rows_avx512(pool, shape, kv, item_row, start, q, out);
    const size_t n_heads = shape.n_heads, hd = shape.head_dim;
    const size_t group = n_heads / shape.n_kv_heads;
    const float scale = 1.0f / std::sqrt(float(hd));
    const size_t q_stride = n_heads * hd;
    // Tasks: (item, kv head, block of up to kRows consecutive rows of the item): the block's rows
    // times the group's query heads read the same keys and values, which stay in cache between
    // them. Every (row, head) adds its terms in key order with the same arithmetic as alone, so
    // the results do not depend on the block (batch invariance holds).
    const std::vector<detail::AttentionTask> tasks = detail::attention_tasks(shape, item_row, 8);
    pool.parallel_for(tasks.size(), 1, [&](size_t t0, size_t t1, int) {
        thread_local std::vector<float> scores;  // [rows * group][last + 1]
        for (size_t t = t0; t < t1; ++t) {
            const detail::AttentionTask& task = tasks[t];
            const KvBlocks& s = kv[task.item];
            const size_t first = start[task.item] + (task.row0 - item_row[task.item]);  // causal: row r sees keys 0..first+r
            const size_t last = first + task.rows - 1, n = task.rows * group, width = last + 1;
            scores.resize(n * width);
            // Scores of each (row, head) over its keys, four keys at a time (independent chains;
            // each dot the same bits as dot_f32 alone); the block's keys stay in cache between
            // the (row, head) pairs that read them.
            for (size_t v = 0; v < n; ++v) {
                const size_t r = v / group, k = v % group, lim = first + r;
                const float* qv = q + (task.row0 + r) * q_stride + (task.g * group + k) * hd;
                float* sc = scores.data() + v * width;
                size_t j = 0;
                for (; j + 3 <= lim; j += 4) {
                    const float* keys[4] = {s.key(task.g, j), s.key(task.g, j + 1), s.key(task.g, j + 2), s.key(task.g, j + 3)};
                    dot4_f32(qv, keys, hd, sc + j);
                }
                for (; j <= lim; ++j) sc[j] = dot_f32(qv, s.key(task.g, j), hd);
                float m = -std::numeric_limits<float>::infinity();
                for (j = 0; j <= lim; ++j) {
                    sc[j] *= scale;
                    m = std::max(m, sc[j]);
                }
                float denom = 0.f;
                for (j = 0; j <= lim; ++j) {
                    sc[j] = std::exp(sc[j] - m);
                    denom += sc[j];
                }
                const float inv_denom = 1.0f / denom;
                float* o = out + (task.row0 + r) * q_stride + (task.g * group + k) * hd;
                std::fill(o, o + hd, 0.f);
                for (j = 0; j + 3 <= lim; j += 4) {
                    const float w[4] = {sc[j] * inv_denom, sc[j + 1] * inv_denom, sc[j + 2] * inv_denom, sc[j + 3] * inv_denom};
                    const float* vals[4] = {s.value(task.g, j), s.value(task.g, j + 1), s.value(task.g, j + 2), s.value(task.g, j + 3)};
                    axpy4_f32(w, vals, o, hd);
                }
                for (; j <= lim; ++j) axpy_f32(sc[j] * inv_denom, s.value(task.g, j), o, hd);
            }
        }
    });
}

}  // namespace carbon::cpu
