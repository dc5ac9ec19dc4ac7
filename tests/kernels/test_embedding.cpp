// embedding_gather against the CPU backend's cpu::load_row (the row of a bf16/f16/f32 table as fp32):
// fp32 output must equal it bit for bit (the conversions are exact) and bf16 output must equal its
// round-to-nearest-even bf16; awkward hidden sizes (vector and scalar paths), tokens 1, 3, 17,
// out-of-range ids, argument checks, and the injected off-by-one that drops a row's last chunk.
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "carbon/kernels/embedding.h"
#include "check.h"
#include "cpu/cpu_ops.h"
#include "device_buffer.h"
#include "embedding.cuh"
#include "row_test_data.h"

using carbon::test::DeviceBuffer;
using namespace carbon::test;

namespace {

constexpr int kVocab = 97;  // small: the table is random data, its rows are what matters

std::vector<int> random_ids(int tokens, int vocab, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<int> ids(static_cast<std::size_t>(tokens));
    for (auto& id : ids) id = static_cast<int>(rng() % static_cast<unsigned>(vocab));
    if (tokens >= 3) ids[0] = 0, ids[1] = vocab - 1;  // both ends of the table
    return ids;
}

// Rows of `out` that differ from the reference: cpu::load_row of each id, rounded to A. An id outside
// the table wants a row of NaN. The comparison is exact (tolerance 0): converting bf16/f16 to fp32
// is exact on both sides and rounding fp32 to bf16 is round-to-nearest-even on both sides.
template <class A, class W>
int wrong_rows(const std::vector<A>& out, const Typed<W>& table, int vocab, int hidden, const std::vector<int>& ids) {
    const carbon::cpu::WeightMatrix w{table.raw(), table.dtype, static_cast<std::size_t>(vocab),
                                      static_cast<std::size_t>(hidden)};
    std::vector<float> row(static_cast<std::size_t>(hidden));
    int wrong = 0;
    for (std::size_t t = 0; t < ids.size(); ++t) {
        const bool valid = ids[t] >= 0 && ids[t] < vocab;
        if (valid) carbon::cpu::load_row(w, static_cast<std::size_t>(ids[t]), row.data());
        bool ok = true;
        for (int c = 0; c < hidden; ++c) {
            const float got = as_float(out[t * hidden + static_cast<std::size_t>(c)]);
            ok = ok && (valid ? same_bits(got, as_float(to_type<A>(row[static_cast<std::size_t>(c)]))) : std::isnan(got));
        }
        wrong += ok ? 0 : 1;
    }
    return wrong;
}

// The table starts `offset` elements into its buffer: offset 1 breaks 16-byte alignment and forces
// the scalar path even when hidden % 8 == 0.
template <class W, class A>
void check_gather(int tokens, int hidden, int offset, unsigned seed) {
    const auto values = random_floats(static_cast<std::size_t>(kVocab) * hidden + offset, seed, -3.0f, 3.0f);
    const Typed<W> all = typed<W>(values);
    const Typed<W> table{std::vector<W>(all.dev.begin() + offset, all.dev.end()), all.dtype};
    const auto ids = random_ids(tokens, kVocab, seed + 1);
    DeviceBuffer<W> dtable(all.dev);
    DeviceBuffer<int> dids(ids);
    DeviceBuffer<A> dout(static_cast<std::size_t>(tokens) * hidden);
    CHECK_EQ(carbon::kern::embedding_gather(dids.get(), tokens, dtable.get() + offset, kVocab, hidden, dout.get(),
                                            nullptr, nullptr),
             cudaSuccess);
    const int wrong = wrong_rows(dout.download(), table, kVocab, hidden, ids);
    if (wrong != 0) std::fprintf(stderr, "  tokens %d hidden %d offset %d: %d wrong rows\n", tokens, hidden, offset, wrong);
    CHECK_EQ(wrong, 0);
}

template <class W, class A>
void check_sizes(unsigned seed) {
    // Shorter than a chunk, not a multiple of 8, of the block's 128 chunks, or of 1,024; model widths.
    std::vector<int> hiddens = {1, 7, 24, 100, 1000, 1032, 3072, 4096};
    std::vector<int> token_counts = {1, 3, 17};
    if (kSanitizerBuild) hiddens = {7, 1032}, token_counts = {1, 3};
    for (int tokens : token_counts)
        for (int hidden : hiddens)
            for (int offset : {0, 1}) check_gather<W, A>(tokens, hidden, offset, seed++);
}

}  // namespace

TEST(bf16_table_to_fp32_equals_load_row) {
    check_sizes<__nv_bfloat16, float>(10);
}
TEST(bf16_table_to_bf16_is_a_copy) {
    check_sizes<__nv_bfloat16, __nv_bfloat16>(20);
}
TEST(f16_table_to_fp32_and_bf16) {
    check_sizes<__half, float>(30);
    check_sizes<__half, __nv_bfloat16>(40);
}
TEST(f32_table_to_fp32_and_bf16) {
    check_sizes<float, float>(50);
    check_sizes<float, __nv_bfloat16>(60);
}

TEST(out_of_range_ids_read_nothing_give_nan_rows_and_are_counted) {
    const int hidden = 24, tokens = 6;
    const Typed<__nv_bfloat16> table = typed<__nv_bfloat16>(random_floats(static_cast<std::size_t>(kVocab) * hidden, 7));
    const std::vector<int> ids = {5, -1, kVocab, kVocab - 1, INT_MIN, INT_MAX};
    DeviceBuffer<__nv_bfloat16> dtable(table.dev);
    DeviceBuffer<int> dids(ids), dbad(std::vector<int>{0});
    DeviceBuffer<float> dout(static_cast<std::size_t>(tokens) * hidden);
    CHECK_EQ(carbon::kern::embedding_gather(dids.get(), tokens, dtable.get(), kVocab, hidden, dout.get(), dbad.get(),
                                            nullptr),
             cudaSuccess);
    CHECK_EQ(wrong_rows(dout.download(), table, kVocab, hidden, ids), 0);  // rows 1, 2, 4, 5 are NaN
    CHECK_EQ(dbad.download()[0], 4);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<__nv_bfloat16> table(8);
    DeviceBuffer<int> ids(std::vector<int>{0});
    DeviceBuffer<float> out(8);
    using carbon::kern::embedding_gather;
    CHECK_EQ(embedding_gather(ids.get(), -1, table.get(), 1, 8, out.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(ids.get(), 1, table.get(), 0, 8, out.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(ids.get(), 1, table.get(), 1, 0, out.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(ids.get(), 1, table.get(), 1, 65535 * 128 + 1, out.get(), nullptr, nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(nullptr, 1, table.get(), 1, 8, out.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(ids.get(), 1, static_cast<const __nv_bfloat16*>(nullptr), 1, 8, out.get(), nullptr, nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(ids.get(), 1, table.get(), 1, 8, static_cast<float*>(nullptr), nullptr, nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(embedding_gather(nullptr, 0, table.get(), 1, 8, out.get(), nullptr, nullptr), cudaSuccess);
}

// The injected bug: the edge test of the last chunk is off by one, so each row's last 8 elements
// (vector path) keep the buffer's junk. The comparison above must flag every row. Deterministic, so
// it runs on the GPU build too.
TEST(the_test_catches_an_off_by_one_at_the_row_edge) {
    const int tokens = 3, hidden = 1032;
    const Typed<__nv_bfloat16> table = typed<__nv_bfloat16>(random_floats(static_cast<std::size_t>(kVocab) * hidden, 8));
    const auto ids = random_ids(tokens, kVocab, 9);
    DeviceBuffer<__nv_bfloat16> dtable(table.dev);
    DeviceBuffer<int> dids(ids);
    DeviceBuffer<float> dout(static_cast<std::size_t>(tokens) * hidden);
    const dim3 grid(tokens, (hidden / 8 + carbon::kern::kEmbeddingThreads - 1) / carbon::kern::kEmbeddingThreads);
    CHECK_EQ(carbon::kern::launch(carbon::kern::embedding_gather_kernel<__nv_bfloat16, float, true, true>, grid,
                                  dim3(carbon::kern::kEmbeddingThreads), 0, nullptr, dids.get(), dtable.get(), kVocab,
                                  hidden, dout.get(), nullptr),
             cudaSuccess);
    CHECK_EQ(wrong_rows(dout.download(), table, kVocab, hidden, ids), tokens);
}

CARBON_KERNEL_TEST_MAIN()
