// Attention problems for the CPU attention tests (test_cpu_attention, test_amx_attention): KV
// caches in the CPU backend's block layout filled with random keys and values, awkward shapes,
// and ragged batches whose items have earlier positions already cached.
#pragma once

#include <random>
#include <vector>

#include "cpu/cpu_ops.h"

namespace attention_cases {

struct Case {
    size_t n_heads, n_kv_heads, head_dim, block_tokens;
    std::vector<size_t> rows, cached;  // per item: new rows, positions already in the cache
};

// Head dims that are and are not multiples of 16 and 32, KV groups of 1 to 8 heads (more than 16
// (row, head) pairs per block), ragged items of 1 to 19 rows, keys across cache blocks, a long cache.
inline std::vector<Case> cases() {
    return {
        {16, 8, 64, 16, {1, 9, 17}, {0, 40, 5}},  // the 500M shape: 16 pairs per 8 rows
        {4, 2, 16, 16, {19, 1}, {3, 130}},       // the tiny model's
        {32, 8, 128, 32, {8, 3}, {0, 200}},      // groups of 4: 32 pairs, two vectors
        {8, 1, 80, 7, {5, 1, 12}, {0, 61, 17}},  // a group of 8, 80 dims, blocks of 7 tokens
        {6, 6, 40, 16, {11, 1}, {29, 2}},        // no grouping, 40 dims (not a multiple of 16)
        {12, 4, 24, 5, {2, 7}, {1000, 0}},       // 24 dims, a long cache
    };
}

// One item's cache: positions 0 .. cached + rows - 1 in blocks of [k|v][kv_head][token][dim].
struct Cache {
    std::vector<std::vector<float>> storage;
    std::vector<const float*> blocks;
    carbon::cpu::KvBlocks kv;
};

inline Cache make_cache(const Case& c, size_t positions, std::mt19937& rng) {
    std::uniform_real_distribution<float> key(-2.f, 2.f), val(-1.f, 1.f);
    Cache cache;
    const size_t n_blocks = (positions + c.block_tokens - 1) / c.block_tokens;
    const size_t head_stride = c.block_tokens * c.head_dim, half = c.n_kv_heads * head_stride;
    for (size_t b = 0; b < n_blocks; ++b) {
        std::vector<float> block(2 * half);
        for (size_t i = 0; i < half; ++i) block[i] = key(rng);
        for (size_t i = half; i < 2 * half; ++i) block[i] = val(rng);
        cache.storage.push_back(std::move(block));
    }
    for (auto& b : cache.storage) cache.blocks.push_back(b.data());
    cache.kv.blocks = cache.blocks.data();
    cache.kv.block_tokens = c.block_tokens;
    cache.kv.k_offset = 0;
    cache.kv.v_offset = half;
    cache.kv.head_stride = head_stride;
    cache.kv.token_stride = c.head_dim;
    return cache;
}

// A case's whole batch: the caches, the item boundaries and positions, random queries in [-2, 2].
struct Batch {
    std::vector<Cache> caches;
    std::vector<carbon::cpu::KvBlocks> kv;
    std::vector<size_t> item_row{0}, start;
    std::vector<float> q;
    carbon::cpu::AttentionShape shape;
    size_t q_stride = 0;
};

inline Batch make_batch(const Case& c, std::mt19937& rng) {
    Batch b;
    for (size_t i = 0; i < c.rows.size(); ++i) {
        b.caches.push_back(make_cache(c, c.cached[i] + c.rows[i], rng));
        b.start.push_back(c.cached[i]);
        b.item_row.push_back(b.item_row.back() + c.rows[i]);
    }
    for (auto& cache : b.caches) b.kv.push_back(cache.kv);
    b.shape = {c.n_heads, c.n_kv_heads, c.head_dim};
    b.q_stride = c.n_heads * c.head_dim;
    b.q.resize(b.item_row.back() * b.q_stride);
    std::uniform_real_distribution<float> qd(-2.f, 2.f);
    for (float& v : b.q) v = qd(rng);
    return b;
}

}  // namespace attention_cases
