// The CPU attention's AVX-512 path (cpu_attention_avx512.cpp) against the portable one at awkward
// shapes: head dims that are and are not multiples of 16 (the keys-in-lanes decode path needs one),
// KV groups of 1 to 8 heads (more than 16 (row, head) pairs in a block: two vectors), ragged items
// of 1 to 19 rows with earlier positions already cached, keys across cache blocks; and its batch
// invariance: every row computed alone, as a decode step computes it, gives the block's bits.
#include <cmath>
#include <random>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "check.h"
#include "cpu/cpu_ops.h"

using namespace carbon;
using cpu::Isa;

namespace {

struct Case {
    size_t n_heads, n_kv_heads, head_dim, block_tokens;
    std::vector<size_t> rows, cached;  // per item: new rows, positions already in the cache
};

// One item's cache: positions 0 .. cached + rows - 1 in blocks of [k|v][kv_head][token][dim].
struct Cache {
    std::vector<std::vector<float>> storage;
    std::vector<const float*> blocks;
    cpu::KvBlocks kv;
};

Cache make_cache(const Case& c, size_t positions, std::mt19937& rng) {
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

}  // namespace

TEST(avx512_attention_matches_portable_and_is_batch_invariant) {
    if (!cpu::isa_supported(Isa::Avx512))
        SKIP(std::string("avx512 needs ") + cpu::isa_required_flags(Isa::Avx512) + "; this CPU has: " + cpu::cpu_flags_summary());
    ThreadPool pool(2);
    std::mt19937 rng(11);
    const std::vector<Case> cases = {
        {16, 8, 64, 16, {1, 9, 17}, {0, 40, 5}},       // the 500M shape: 16 pairs per 8 rows
        {4, 2, 16, 16, {19, 1}, {3, 130}},            // the tiny model's
        {32, 8, 128, 32, {8, 3}, {0, 200}},           // groups of 4: 32 pairs, two vectors
        {8, 1, 80, 7, {5, 1, 12}, {0, 61, 17}},       // a group of 8, 80 dims, blocks of 7 tokens
        {6, 6, 40, 16, {11, 1}, {29, 2}},             // no grouping, 40 dims (not a multiple of 16)
        {12, 4, 24, 5, {2, 7}, {1000, 0}},            // 24 dims, a long cache
    };
    double worst = 0;
    for (const Case& c : cases) {
        const size_t items = c.rows.size(), q_stride = c.n_heads * c.head_dim;
        std::vector<Cache> caches;
        std::vector<cpu::KvBlocks> kv;
        std::vector<size_t> item_row{0}, start;
        for (size_t i = 0; i < items; ++i) {
            caches.push_back(make_cache(c, c.cached[i] + c.rows[i], rng));
            start.push_back(c.cached[i]);
            item_row.push_back(item_row.back() + c.rows[i]);
        }
        for (auto& cache : caches) kv.push_back(cache.kv);
        const size_t rows = item_row.back();
        std::vector<float> q(rows * q_stride);
        std::uniform_real_distribution<float> qd(-2.f, 2.f);
        for (float& v : q) v = qd(rng);
        const cpu::AttentionShape shape{c.n_heads, c.n_kv_heads, c.head_dim};
        std::vector<float> want(q.size()), got(q.size(), NAN);
        cpu::attention_rows(pool, shape, kv, item_row, start, q.data(), want.data());
        cpu::attention_rows(pool, shape, kv, item_row, start, q.data(), got.data(), Isa::Avx512);
        for (size_t i = 0; i < q.size(); ++i) {
            const double d = std::fabs(double(got[i]) - want[i]);
            worst = std::max(worst, std::isnan(d) ? 1e9 : d);
        }
        // Each row alone (one item of one row at its own position): the block's bits.
        size_t differ = 0;
        for (size_t i = 0; i < items; ++i)
            for (size_t r = 0; r < c.rows[i]; ++r) {
                const size_t row = item_row[i] + r;
                const std::vector<size_t> one_row{0, 1}, at{c.cached[i] + r};
                std::vector<float> alone(q_stride);
                cpu::attention_rows(pool, shape, std::span(&kv[i], 1), one_row, at, q.data() + row * q_stride, alone.data(), Isa::Avx512);
                for (size_t e = 0; e < q_stride; ++e) differ += alone[e] != got[row * q_stride + e];
            }
        if (differ)
            std::fprintf(stderr, "  heads %zu/%zu, dim %zu: %zu outputs differ computed alone\n", c.n_heads, c.n_kv_heads, c.head_dim, differ);
        CHECK_EQ(differ, size_t(0));
    }
    // Outputs are weighted means of values in [-1, 1]: the two summation orders and exp16 (3 ulp)
    // move them by about 1e-7; 2e-5 fails any real mistake (a wrong key, mask or weight moves
    // them by 1e-2 or more).
    std::fprintf(stderr, "  attention: max |avx512 - portable| %.3g over %zu shapes\n", worst, cases.size());
    CHECK(worst <= 2e-5);
}

CHECK_MAIN()
