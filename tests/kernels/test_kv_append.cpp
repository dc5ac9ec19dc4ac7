// kv_append against the page layout paged_kv.h documents, computed here element by element: ragged
// batches whose rows cross page boundaries, scattered physical pages, page sizes 1, 5 and 16,
// head_dim 16 to 128 and an odd 24 x 3 heads, fp32 (exact copies) and bf16 (one rounding to nearest
// even, compared bit for bit with the engine's f32_to_bf16); untouched cache slots keep their junk;
// argument checks; the injected bug that skips the last KV head.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "carbon/kernels/kv_append.h"
#include "check.h"
#include "device_buffer.h"
#include "kv_append.cuh"
#include "row_test_data.h"

using carbon::test::DeviceBuffer;
using namespace carbon::test;

namespace {

struct Case {
    std::vector<int> new_rows;  // per sequence
    std::vector<int> start;     // per sequence: first new position
    int kv_heads, head_dim, page_tokens;
};

template <class T>
bool same(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Runs one case (or the injected bug) and returns the number of cache elements that differ from the
// expectation: written slots hold To(src), every other slot its junk.
template <class T, bool kBug = false>
long long run_case(const Case& c, unsigned seed) {
    const int seqs = static_cast<int>(c.new_rows.size());
    const int kv_dim = c.kv_heads * c.head_dim;
    std::vector<int> positions, row_seq;
    int stride = 1;
    for (int b = 0; b < seqs; ++b) {
        for (int i = 0; i < c.new_rows[b]; ++i) {
            positions.push_back(c.start[b] + i);
            row_seq.push_back(b);
        }
        stride = std::max(stride, (c.start[b] + c.new_rows[b] + c.page_tokens - 1) / c.page_tokens);
    }
    const int rows = static_cast<int>(positions.size());
    // Physical pages: a shuffled pool with one spare page between sequences' pages.
    const int pages = seqs * stride * 2 + 1;
    std::vector<int> ids(static_cast<std::size_t>(pages));
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), std::mt19937(seed));
    std::vector<int> table(static_cast<std::size_t>(seqs * stride));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = ids[2 * i];
    const long long page_stride = 2LL * kv_dim * c.page_tokens + 8;  // k then v, as one layer of the pool, padded
    const long long src_stride = kv_dim + 3;
    std::vector<float> ks = random_floats(static_cast<std::size_t>(rows * src_stride), seed + 1, -5.0f, 5.0f);
    std::vector<float> vs = random_floats(ks.size(), seed + 2, -5.0f, 5.0f);
    DeviceBuffer<float> dk(ks), dv(vs);
    DeviceBuffer<int> dpos(positions), dseq(row_seq), dtable(table);
    DeviceBuffer<T> pool(static_cast<std::size_t>(pages * page_stride));
    carbon::kern::KvDestination<T> dst{pool.get(), pool.get() + static_cast<long long>(kv_dim) * c.page_tokens, page_stride,
                                       c.page_tokens, dtable.get(), stride};
    if constexpr (kBug) {
        const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((kv_dim + 255) / 256));
        CHECK_EQ(carbon::kern::launch(carbon::kern::kv_append_kernel<T, true>, grid, dim3(256), 0, nullptr,
                                      static_cast<const float*>(dk.get()), static_cast<const float*>(dv.get()), src_stride,
                                      static_cast<const int*>(dpos.get()), static_cast<const int*>(dseq.get()), dst.k, dst.v,
                                      page_stride, c.page_tokens, static_cast<const int*>(dtable.get()), stride, c.kv_heads,
                                      c.head_dim),
                 cudaSuccess);
    } else {
        CHECK_EQ(carbon::kern::kv_append<T>(dk.get(), dv.get(), src_stride, rows, dpos.get(), dseq.get(), dst, c.kv_heads,
                                            c.head_dim, nullptr),
                 cudaSuccess);
    }
    const std::vector<T> got = pool.download();
    std::vector<T> want(got.size());
    T junk;
    std::memset(static_cast<void*>(&junk), 0xFF, sizeof junk);
    std::fill(want.begin(), want.end(), junk);
    for (int r = 0; r < rows; ++r)
        for (int e = 0; e < kv_dim; ++e) {
            const int pos = positions[static_cast<std::size_t>(r)], g = e / c.head_dim, d = e % c.head_dim;
            const long long page = table[static_cast<std::size_t>(row_seq[static_cast<std::size_t>(r)] * stride + pos / c.page_tokens)];
            const long long at = page * page_stride + (static_cast<long long>(g) * c.page_tokens + pos % c.page_tokens) * c.head_dim + d;
            want[static_cast<std::size_t>(at)] = to_type<T>(ks[static_cast<std::size_t>(r * src_stride + e)]);
            want[static_cast<std::size_t>(at + static_cast<long long>(kv_dim) * c.page_tokens)] =
                to_type<T>(vs[static_cast<std::size_t>(r * src_stride + e)]);
        }
    long long wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += same(got[i], want[i]) ? 0 : 1;
    return wrong;
}

std::vector<Case> cases() {
    std::vector<Case> all = {
        {{1}, {0}, 1, 16, 16},                    // one decode row at position 0
        {{1, 1, 1}, {15, 16, 40}, 2, 64, 16},     // decode rows at a page's last slot, first slot, middle
        {{37, 1, 5}, {0, 100, 11}, 4, 128, 16},   // a prefill across three pages beside decode rows
        {{9, 4}, {3, 0}, 3, 24, 5},               // odd heads and page size
        {{6}, {2}, 2, 16, 1},                     // one token per page
    };
    if (kSanitizerBuild) all.resize(3);
    return all;
}

}  // namespace

TEST(fp32_rows_land_at_their_pages_exactly) {
    unsigned seed = 1;
    for (const Case& c : cases()) CHECK_EQ(run_case<float>(c, seed++), 0LL);
}

TEST(bf16_rows_are_rounded_once_to_nearest_even) {
    unsigned seed = 100;
    for (const Case& c : cases()) CHECK_EQ(run_case<__nv_bfloat16>(c, seed++), 0LL);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<float> k(64), v(64), pool(4096);
    DeviceBuffer<int> pos(4), seq(4), table(4);
    using carbon::kern::kv_append;
    carbon::kern::KvDestination<float> d{pool.get(), pool.get() + 256, 512, 16, table.get(), 1};
    CHECK_EQ(kv_append<float>(k.get(), v.get(), 16, -1, pos.get(), seq.get(), d, 1, 16, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(kv_append<float>(k.get(), v.get(), 15, 1, pos.get(), seq.get(), d, 1, 16, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(kv_append<float>(k.get(), v.get(), 16, 1, pos.get(), seq.get(), d, 0, 16, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(kv_append<float>(nullptr, v.get(), 16, 1, pos.get(), seq.get(), d, 1, 16, nullptr), cudaErrorInvalidValue);
    auto small = d;
    small.page_stride = 255;  // less than one head's page
    CHECK_EQ(kv_append<float>(k.get(), v.get(), 16, 1, pos.get(), seq.get(), small, 1, 16, nullptr), cudaErrorInvalidValue);
    auto no_table = d;
    no_table.page_table = nullptr;
    CHECK_EQ(kv_append<float>(k.get(), v.get(), 16, 1, pos.get(), seq.get(), no_table, 1, 16, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(kv_append<float>(nullptr, nullptr, 16, 0, nullptr, nullptr, d, 1, 16, nullptr), cudaSuccess);
}

// The injected bug: the last KV head of every row is never written; every such element is flagged.
TEST(the_test_catches_a_skipped_head) {
    const Case c{{3}, {14}, 2, 16, 16};
    CHECK_EQ((run_case<float, true>(c, 7)), 2LL * 3 * 16);
}

CARBON_KERNEL_TEST_MAIN()
