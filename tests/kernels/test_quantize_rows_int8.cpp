// quantize_rows_int8 against the CPU backend's activation quantiser (cpu::quantize_rows_q8, the rows
// scheme), bit for bit: values and scales, k from 1 to 14,336 (not multiples of 32 among them),
// fp32 and bf16 inputs, strides, rows with an infinity or a NaN (NaN scale, zeros), all-zero rows
// and rows too small for 127 / max to be finite (zero scale); argument checks; the injected bug
// (truncation instead of rounding) is caught.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "carbon/kernels/quantize_rows_int8.h"
#include "check.h"
#include "device_buffer.h"
#include "int8_test_data.h"
#include "quantize_rows_int8.cuh"
#include "row_test_data.h"

using carbon::test::DeviceBuffer;

namespace {

std::vector<float> rows_of(int rows, int ldx, unsigned seed) {
    std::vector<float> x = carbon::test::random_floats(std::size_t(rows) * std::size_t(ldx), seed, -3.0f, 3.0f);
    if (rows > 1) x[std::size_t(ldx) + 0] = std::numeric_limits<float>::infinity();        // row 1: not finite
    if (rows > 2) x[2 * std::size_t(ldx) + 1] = std::numeric_limits<float>::quiet_NaN();   // row 2: NaN
    if (rows > 3) std::fill(x.begin() + 3 * ldx, x.begin() + 4 * ldx, 0.0f);               // row 3: zeros
    if (rows > 4)
        for (int c = 0; c < ldx; ++c) x[4 * std::size_t(ldx) + std::size_t(c)] = c % 3 ? 1e-45f : 0.0f;  // 127 / max overflows
    if (rows > 5)  // row 5: exact halves after scaling (ties to even) and the maximum at both signs
        for (int c = 0; c < ldx; ++c) x[5 * std::size_t(ldx) + std::size_t(c)] = float((c % 255) - 127) + (c % 2 ? 0.5f : 0.0f);
    return x;
}

// Mismatching values plus mismatching scales, fp32 or bf16 input (the CPU sees the bf16 values).
template <class Tx, bool kBug = false>
long long mismatches(int rows, int k, int pad, unsigned seed) {
    const int ldx = k + pad;
    std::vector<float> x = rows_of(rows, ldx, seed);
    std::vector<Tx> xt(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        if constexpr (std::is_same_v<Tx, float>) {
            xt[i] = x[i];
        } else {
            xt[i] = __float2bfloat16(x[i]);
            x[i] = __bfloat162float(xt[i]);
        }
    }
    const carbon::test::Int8Rows want = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, rows, ldx, k);
    DeviceBuffer<Tx> dx(xt);
    DeviceBuffer<int8_t> dq(std::size_t(rows) * std::size_t(k + 3));
    DeviceBuffer<float> ds{std::size_t(rows)};
    if constexpr (kBug)
        CHECK_EQ(carbon::kern::launch(carbon::kern::quantize_rows_int8_kernel<Tx, true>, dim3(unsigned(rows)),
                                      dim3(carbon::kern::kQuantizeThreads), 0, nullptr, dx.get(), (long long)ldx, k, dq.get(),
                                      (long long)(k + 3), ds.get()),
                 cudaSuccess);
    else
        CHECK_EQ(carbon::kern::quantize_rows_int8(dx.get(), ldx, rows, k, dq.get(), k + 3, ds.get(), nullptr), cudaSuccess);
    const std::vector<int8_t> q = dq.download();
    const std::vector<float> s = ds.download();
    long long wrong = 0;
    for (int r = 0; r < rows; ++r) {
        wrong += !carbon::test::same_bits(s[std::size_t(r)], want.scales[std::size_t(r)]);
        for (int c = 0; c < k; ++c)
            wrong += q[std::size_t(r) * std::size_t(k + 3) + std::size_t(c)] != want.q[std::size_t(r) * std::size_t(k) + std::size_t(c)];
    }
    return wrong;
}

}  // namespace

TEST(fp32_rows_match_the_cpu_quantiser_bit_for_bit) {
    for (int k : {1, 7, 16, 31, 32, 100, 1024, 3072, 14336}) CHECK_EQ((mismatches<float>(7, k, k % 5, 100u + unsigned(k))), 0);
}

TEST(bf16_rows_match_the_cpu_quantiser_bit_for_bit) {
    for (int k : {16, 96, 1024, 8448}) CHECK_EQ((mismatches<__nv_bfloat16>(7, k, 8, 200u + unsigned(k))), 0);
}

TEST(special_rows_get_the_cpu_scales) {
    std::vector<float> x = rows_of(6, 64, 300);
    const carbon::test::Int8Rows want = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, 6, 64, 64);
    CHECK(std::isnan(want.scales[1]) && std::isnan(want.scales[2]));
    CHECK(want.scales[3] == 0.0f && want.scales[4] == 0.0f);
    CHECK_EQ((mismatches<float>(6, 64, 0, 300)), 0);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<float> x(64);
    DeviceBuffer<int8_t> q(64);
    DeviceBuffer<float> s(4);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 16, -1, 16, q.get(), 16, s.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 16, 4, 0, q.get(), 16, s.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 8, 4, 16, q.get(), 16, s.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 16, 4, 16, q.get(), 8, s.get(), nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 16, 4, 16, q.get(), 16, static_cast<float*>(nullptr), nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::quantize_rows_int8(x.get(), 16, 0, 16, q.get(), 16, s.get(), nullptr), cudaSuccess);
}

#if CARBON_KERNEL_ON_HOST
TEST(the_test_catches_truncation) {
    CHECK((mismatches<float, true>(7, 1024, 0, 400)) > 1000);
}
#endif

CARBON_KERNEL_TEST_MAIN()
