// scale_int32_products (the int8 GEMM's epilogue) against the CPU backend's int8 product
// (cpu::matmul_q8, rows scheme), bit for bit, from exact int32 sums computed here (what cuBLASLt's
// int8 GEMM returns): n not a multiple of the block, strided C and y, NaN scales, accumulation into
// y (the residual add); argument checks; the injected bug (swapped scales) is caught.
#include <cmath>
#include <cstring>
#include <vector>

#include "carbon/kernels/scale_int32_products.h"
#include "check.h"
#include "device_buffer.h"
#include "int8_test_data.h"
#include "row_test_data.h"
#include "scale_int32_products.cuh"

using carbon::test::DeviceBuffer;

namespace {

bool same(float a, float b) {
    return std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b));
}

template <bool kBug = false>
long long mismatches(int m, int k, int n, bool accumulate, unsigned seed) {
    std::vector<float> x = carbon::test::random_floats(std::size_t(m) * std::size_t(k), seed, -2.0f, 2.0f);
    if (m > 2) x[2 * std::size_t(k)] = std::nanf("");  // row 2: NaN scale, NaN outputs
    const std::vector<float> w = carbon::test::random_floats(std::size_t(n) * std::size_t(k), seed + 1, -0.5f, 0.5f);
    carbon::cpu::Q8Rows xq;
    carbon::cpu::Q8Matrix wq;
    const carbon::test::Int8Rows xi = carbon::test::cpu_quantized_activations(carbon::test::int8_test_pool(), x, m, k, k, &xq);
    const carbon::test::Int8Rows wi = carbon::test::cpu_quantized_weights(carbon::test::int8_test_pool(), w, n, k, &wq);
    std::vector<float> want(std::size_t(m) * std::size_t(n));
    carbon::cpu::matmul_q8(carbon::test::int8_test_pool(), carbon::cpu::Q8Kernel::Portable, xq, wq, want.data(), std::size_t(n));
    const long long ldc = n + 3, ldy = n + 5;
    std::vector<int32_t> c(std::size_t(m) * std::size_t(ldc), 0);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            int32_t d = 0;
            for (int p = 0; p < k; ++p) d += int32_t(xi.q[std::size_t(i) * k + p]) * int32_t(wi.q[std::size_t(j) * k + p]);
            c[std::size_t(i) * std::size_t(ldc) + std::size_t(j)] = d;
        }
    const std::vector<float> y0 = carbon::test::random_floats(std::size_t(m) * std::size_t(ldy), seed + 2, -1.0f, 1.0f);
    DeviceBuffer<int32_t> dc(c);
    DeviceBuffer<float> dxs(xi.scales), dws(wi.scales), dy(y0);
    if constexpr (kBug)
        CHECK_EQ(carbon::kern::launch(carbon::kern::scale_int32_products_kernel<false, true>, dim3(unsigned(m), unsigned((n + 255) / 256)),
                                      dim3(carbon::kern::kScaleProductsThreads), 0, nullptr, static_cast<const int32_t*>(dc.get()), ldc,
                                      static_cast<const float*>(dxs.get()), static_cast<const float*>(dws.get()), n, dy.get(), ldy),
                 cudaSuccess);
    else
        CHECK_EQ(carbon::kern::scale_int32_products(dc.get(), ldc, dxs.get(), dws.get(), m, n, dy.get(), ldy, accumulate, nullptr),
                 cudaSuccess);
    const std::vector<float> y = dy.download();
    long long wrong = 0;
    for (int i = 0; i < m; ++i)
        for (long long j = 0; j < ldy; ++j) {
            const std::size_t at = std::size_t(i) * std::size_t(ldy) + std::size_t(j);
            if (j >= n) {
                wrong += !same(y[at], y0[at]);  // the gaps keep what they held
                continue;
            }
            const float v = want[std::size_t(i) * std::size_t(n) + std::size_t(j)];
            wrong += !same(y[at], accumulate ? y0[at] + v : v);
        }
    return wrong;
}

}  // namespace

TEST(scaled_sums_match_the_cpu_int8_kernel_bit_for_bit) {
    CHECK_EQ(mismatches(1, 64, 7, false, 10), 0);
    CHECK_EQ(mismatches(9, 256, 300, false, 20), 0);
    CHECK_EQ(mismatches(4, 1024, 513, false, 30), 0);
}

TEST(accumulating_adds_to_what_y_holds) {
    CHECK_EQ(mismatches(5, 128, 270, true, 40), 0);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<int32_t> c(16);
    DeviceBuffer<float> xs(4), ws(4), y(16);
    CHECK_EQ(carbon::kern::scale_int32_products(c.get(), 2, xs.get(), ws.get(), 2, 4, y.get(), 4, false, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::scale_int32_products(c.get(), 4, xs.get(), ws.get(), 2, 4, y.get(), 3, false, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::scale_int32_products(c.get(), 4, xs.get(), ws.get(), -1, 4, y.get(), 4, false, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::scale_int32_products(c.get(), 4, static_cast<const float*>(nullptr), ws.get(), 2, 4, y.get(), 4, false, nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(carbon::kern::scale_int32_products(c.get(), 4, xs.get(), ws.get(), 0, 4, y.get(), 4, false, nullptr), cudaSuccess);
}

#if CARBON_KERNEL_ON_HOST
TEST(the_test_catches_swapped_scales) {
    CHECK(mismatches<true>(6, 64, 40, false, 50) > 100);
}
#endif

CARBON_KERNEL_TEST_MAIN()
