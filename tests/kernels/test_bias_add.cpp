// bias_add against the CPU backend's cpu::add_bias, bit for bit (one fp32 add of the exactly
// converted bias): widths 1, 7, 160, 1000, 14,336, rows 1, 3, 17, a padded stride, biases in fp32,
// fp16 and bf16; argument checks; the injected bug that skips row 0.
#include <cstdio>
#include <cstring>
#include <vector>

#include "bias_add.cuh"
#include "carbon/kernels/bias_add.h"
#include "check.h"
#include "cpu/cpu_ops.h"
#include "device_buffer.h"
#include "row_test_data.h"

using carbon::test::DeviceBuffer;
using namespace carbon::test;

namespace {

template <class W, bool kBug = false>
long long run(int rows, int cols, long long pad, unsigned seed) {
    const long long ldy = cols + pad;
    const std::vector<float> y = random_floats(static_cast<std::size_t>(rows * ldy), seed, -4.0f, 4.0f);
    const Typed<W> bias = typed<W>(random_floats(static_cast<std::size_t>(cols), seed + 1, -1.0f, 1.0f));
    DeviceBuffer<float> dy(y);
    DeviceBuffer<W> db(bias.dev);
    if constexpr (kBug) {
        const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((cols + 255) / 256));
        CHECK_EQ(carbon::kern::launch(carbon::kern::bias_add_kernel<W, true>, grid, dim3(256), 0, nullptr, dy.get(), ldy,
                                      static_cast<const W*>(db.get()), cols),
                 cudaSuccess);
    } else {
        CHECK_EQ(carbon::kern::bias_add<W>(dy.get(), ldy, rows, cols, db.get(), nullptr), cudaSuccess);
    }
    std::vector<float> want = y;
    carbon::cpu::add_bias(want.data(), static_cast<std::size_t>(rows), static_cast<std::size_t>(ldy), bias.raw(), bias.dtype,
                          static_cast<std::size_t>(cols));
    const std::vector<float> got = dy.download();
    long long wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += same_bits(got[i], want[i]) ? 0 : 1;
    return wrong;
}

template <class W>
void check_all(unsigned seed) {
    std::vector<int> widths = {1, 7, 160, 1000, 14336};
    std::vector<int> row_counts = {1, 3, 17};
    if (kSanitizerBuild) widths = {7, 1000}, row_counts = {3};
    long long wrong = 0;
    for (int rows : row_counts)
        for (int cols : widths)
            for (long long pad : {0LL, 5LL}) wrong += run<W>(rows, cols, pad, seed++);
    CHECK_EQ(wrong, 0LL);
}

}  // namespace

TEST(fp32_bias_matches_cpu_add_bias) {
    check_all<float>(1);
}

TEST(fp16_bias_matches_cpu_add_bias) {
    check_all<__half>(100);
}

TEST(bf16_bias_matches_cpu_add_bias) {
    check_all<__nv_bfloat16>(200);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<float> y(64), b(8);
    using carbon::kern::bias_add;
    CHECK_EQ(bias_add<float>(y.get(), 8, -1, 8, b.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(bias_add<float>(y.get(), 8, 1, 0, b.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(bias_add<float>(y.get(), 7, 1, 8, b.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(bias_add<float>(nullptr, 8, 1, 8, b.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(bias_add<float>(y.get(), 8, 1, 8, nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(bias_add<float>(nullptr, 8, 0, 8, nullptr, nullptr), cudaSuccess);
}

// The injected bug: row 0 keeps its value; every element of it is flagged.
TEST(the_test_catches_a_skipped_row) {
    CHECK_EQ((run<float, true>(3, 160, 0, 9)), 160LL);
}

CARBON_KERNEL_TEST_MAIN()
