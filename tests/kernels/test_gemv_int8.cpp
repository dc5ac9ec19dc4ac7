// gemv_int8 against the CPU backend's int8 product (cpu::matmul_q8, rows scheme, the portable
// kernel), bit for bit: the activations quantised by quantize_rows_int8 (itself the CPU's to the
// bit: test_quantize_rows_int8), the weights by cpu::quantize_q8; k from 16 to 8,448, n not a
// multiple of the 4-row tile, batch 1 to 17, the DNA head's row list with an out-of-range row (NaN
// column), NaN activation scales; batch invariance bit for bit; refusals; the injected bug.
#include <cmath>
#include <cstring>
#include <vector>

#include "carbon/kernels/gemv_int8.h"
#include "carbon/kernels/quantize_rows_int8.h"
#include "check.h"
#include "device_buffer.h"
#include "gemv_int8.cuh"
#include "int8_test_data.h"
#include "row_test_data.h"

using carbon::kern::GemvInt8Sizes;
using carbon::test::DeviceBuffer;

namespace {

struct Case {
    int batch, k, n;
    bool select = false;  // a row list over a larger W, one entry out of range
};

struct Result {
    std::vector<float> got, want;
};

template <bool kBug = false>
Result run(const Case& c, unsigned seed) {
    const int w_rows = c.select ? c.n + 9 : c.n;
    const std::vector<float> x = carbon::test::random_floats(std::size_t(c.batch) * std::size_t(c.k), seed, -2.0f, 2.0f);
    const std::vector<float> w = carbon::test::random_floats(std::size_t(w_rows) * std::size_t(c.k), seed + 1, -0.5f, 0.5f);
    std::vector<int32_t> rows;
    std::vector<float> picked;  // the selected rows, for the CPU's matrix
    for (int j = 0; j < c.n; ++j) {
        rows.push_back(int32_t((j * 7 + 3) % w_rows));
        picked.insert(picked.end(), w.begin() + std::ptrdiff_t(rows.back()) * c.k, w.begin() + std::ptrdiff_t(rows.back() + 1) * c.k);
    }
    if (c.select) rows[std::size_t(c.n / 2)] = w_rows + 4;  // out of range: NaN column

    // The CPU: its quantisers and its portable int8 kernel.
    carbon::cpu::Q8Rows xq;
    carbon::cpu::Q8Matrix wq;
    const carbon::test::Int8Rows xi = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, c.batch, c.k, c.k, &xq);
    carbon::test::cpu_quantized_weights(carbon::test::int8_test_pool(), c.select ? picked : w, c.n, c.k, &wq);
    const carbon::test::Int8Rows wi = carbon::test::cpu_quantized_weights(carbon::test::int8_test_pool(), w, w_rows, c.k);
    Result r;
    r.want.resize(std::size_t(c.batch) * std::size_t(c.n));
    carbon::cpu::matmul_q8(carbon::test::int8_test_pool(), carbon::cpu::Q8Kernel::Portable, xq, wq, r.want.data(), std::size_t(c.n));
    if (c.select)
        for (int b = 0; b < c.batch; ++b) r.want[std::size_t(b) * std::size_t(c.n) + std::size_t(c.n / 2)] = std::nanf("");

    DeviceBuffer<float> dx(x);
    DeviceBuffer<int8_t> dxq(std::size_t(c.batch) * std::size_t(c.k));
    DeviceBuffer<float> dxs(std::size_t(c.batch));
    DeviceBuffer<int8_t> dw(wi.q);
    DeviceBuffer<float> dws(wi.scales);
    DeviceBuffer<int32_t> drows(rows);
    DeviceBuffer<float> dy(std::size_t(c.batch) * std::size_t(c.n));
    CHECK_EQ(carbon::kern::quantize_rows_int8(dx.get(), c.k, c.batch, c.k, dxq.get(), c.k, dxs.get(), nullptr), cudaSuccess);
    GemvInt8Sizes s{c.batch, c.k, c.n, w_rows, c.k, c.n};
    const int32_t* row_list = c.select ? drows.get() : nullptr;
    if constexpr (kBug) {
        CHECK_EQ(carbon::kern::launch(carbon::kern::gemv_int8_kernel<4, true>,
                                      dim3(unsigned((c.n + carbon::kern::kGemvInt8Rows - 1) / carbon::kern::kGemvInt8Rows)),
                                      dim3(carbon::kern::kGemvInt8Threads), 0, nullptr, static_cast<const int8_t*>(dxq.get()),
                                      static_cast<const float*>(dxs.get()), c.batch, c.k, static_cast<const int8_t*>(dw.get()),
                                      static_cast<const float*>(dws.get()), w_rows, c.k, row_list, c.n, dy.get(), c.n, false),
                 cudaSuccess);
    } else {
        CHECK_EQ(carbon::kern::gemv_int8(dxq.get(), dxs.get(), dw.get(), dws.get(), row_list, dy.get(), s, false, nullptr), cudaSuccess);
    }
    r.got = dy.download();
    // The device's quantised activations are the CPU's (so the comparison is of the products).
    const std::vector<int8_t> q = dxq.download();
    CHECK(std::memcmp(q.data(), xi.q.data(), q.size()) == 0);
    return r;
}

long long mismatches(const Result& r) {
    long long wrong = 0;
    for (std::size_t i = 0; i < r.got.size(); ++i) wrong += !carbon::test::same_bits(r.got[i], r.want[i]) && !(std::isnan(r.got[i]) && std::isnan(r.want[i]));
    return wrong;
}

}  // namespace

TEST(products_match_the_cpu_int8_kernel_bit_for_bit) {
    unsigned seed = 10;
    for (Case c : {Case{1, 16, 1}, Case{1, 48, 5}, Case{2, 1024, 13}, Case{3, 1024, 64}, Case{8, 3072, 9}, Case{5, 8448, 6}})
        CHECK_EQ(mismatches(run(c, seed += 10)), 0);
}

TEST(batches_above_eight_run_in_groups_of_eight) {
    CHECK_EQ(mismatches(run(Case{17, 256, 11}, 500)), 0);
}

TEST(a_row_list_selects_weight_rows_and_an_out_of_range_entry_gives_nan) {
    const Result r = run(Case{3, 512, 10, true}, 600);
    CHECK_EQ(mismatches(r), 0);
    for (int b = 0; b < 3; ++b) CHECK(std::isnan(r.got[std::size_t(b) * 10 + 5]));
}

TEST(results_are_batch_invariant_bit_for_bit) {
    // Row 0 of a batch of 17 against the same activation row alone: the same bits.
    const std::vector<float> x = carbon::test::random_floats(17 * 1024, 700, -2.0f, 2.0f);
    const std::vector<float> w = carbon::test::random_floats(40 * 1024, 701, -0.5f, 0.5f);
    const carbon::test::Int8Rows xi = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, 17, 1024, 1024);
    const carbon::test::Int8Rows wi = carbon::test::cpu_quantized_weights(carbon::test::int8_test_pool(), w, 40, 1024);
    DeviceBuffer<int8_t> dx(xi.q), dw(wi.q);
    DeviceBuffer<float> dxs(xi.scales), dws(wi.scales), all(17 * 40), one(40);
    CHECK_EQ(carbon::kern::gemv_int8(dx.get(), dxs.get(), dw.get(), dws.get(), nullptr, all.get(), GemvInt8Sizes{17, 1024, 40, 40, 1024, 40}, false, nullptr),
             cudaSuccess);
    const std::vector<float> a = all.download();
    for (int b : {0, 8, 16}) {
        CHECK_EQ(carbon::kern::gemv_int8(dx.get() + b * 1024, dxs.get() + b, dw.get(), dws.get(), nullptr, one.get(),
                                         GemvInt8Sizes{1, 1024, 40, 40, 1024, 40}, false, nullptr),
                 cudaSuccess);
        const std::vector<float> o = one.download();
        CHECK(std::memcmp(o.data(), a.data() + b * 40, 40 * 4) == 0);
    }
}

TEST(accumulating_adds_to_what_y_holds_as_the_gemm_epilogue_does) {
    const std::vector<float> x = carbon::test::random_floats(3 * 64, 900, -2.0f, 2.0f);
    const std::vector<float> w = carbon::test::random_floats(6 * 64, 901, -0.5f, 0.5f);
    const carbon::test::Int8Rows xi = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, 3, 64, 64);
    const carbon::test::Int8Rows wi = carbon::test::cpu_quantized_weights(carbon::test::int8_test_pool(), w, 6, 64);
    const std::vector<float> y0 = carbon::test::random_floats(3 * 6, 902, -1.0f, 1.0f);
    DeviceBuffer<int8_t> dx(xi.q), dw(wi.q);
    DeviceBuffer<float> dxs(xi.scales), dws(wi.scales), plain(3 * 6), acc(y0);
    const GemvInt8Sizes s{3, 64, 6, 6, 64, 6};
    CHECK_EQ(carbon::kern::gemv_int8(dx.get(), dxs.get(), dw.get(), dws.get(), nullptr, plain.get(), s, false, nullptr), cudaSuccess);
    CHECK_EQ(carbon::kern::gemv_int8(dx.get(), dxs.get(), dw.get(), dws.get(), nullptr, acc.get(), s, true, nullptr), cudaSuccess);
    const std::vector<float> p = plain.download(), a = acc.download();
    for (std::size_t i = 0; i < p.size(); ++i) CHECK(carbon::test::same_bits(a[i], y0[i] + p[i]));
}

TEST(unsupported_calls_are_refused_with_a_reason) {
    DeviceBuffer<int8_t> x(64), w(64);
    DeviceBuffer<float> xs(4), ws(4), y(16);
    auto refused = [&](GemvInt8Sizes s, const char* why) {
        CHECK_EQ(carbon::kern::gemv_int8(x.get(), xs.get(), w.get(), ws.get(), nullptr, y.get(), s, false, nullptr), cudaErrorInvalidValue);
        CHECK(std::string(carbon::kern::gemv_int8_last_refusal()).find(why) != std::string::npos);
    };
    refused(GemvInt8Sizes{1, 24, 2, 2, 32, 2}, "multiple of 16");
    refused(GemvInt8Sizes{1, 16, 2, 2, 8, 2}, "ldx");
    refused(GemvInt8Sizes{1, 16, 4, 2, 16, 4}, "no row list");
    refused(GemvInt8Sizes{1, 16, 2, 2, 16, 1}, "ldy");
    CHECK_EQ(carbon::kern::gemv_int8(x.get(), xs.get(), w.get(), ws.get(), nullptr, y.get(), GemvInt8Sizes{0, 16, 2, 2, 16, 2}, false, nullptr),
             cudaSuccess);
}

#if CARBON_KERNEL_ON_HOST
TEST(the_test_catches_a_dropped_last_chunk) {
    CHECK_EQ(mismatches(run<true>(Case{3, 48, 6}, 800)), 3 * 6);
}
#endif

CARBON_KERNEL_TEST_MAIN()
