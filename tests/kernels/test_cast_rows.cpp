// cast_rows against the engine's own rounding (f32_to_bf16, f32_to_f16: round to nearest even),
// compared bit for bit: widths 1, 7, 8, 160, 1000, 4096, 14,336, rows 1, 3, 17, padded strides and
// an offset that forces the scalar path, values that round up, ties, subnormals, overflow, NaN and
// infinities; fp32 to fp32 is a copy; argument checks; the injected bug (truncation) is caught.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "carbon/kernels/cast_rows.h"
#include "cast_rows.cuh"
#include "check.h"
#include "device_buffer.h"
#include "row_test_data.h"

using carbon::test::DeviceBuffer;
using namespace carbon::test;

namespace {

template <class T>
bool same(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

std::vector<float> values(std::size_t n, unsigned seed) {
    std::vector<float> v = random_floats(n, seed, -70000.0f, 70000.0f);
    const float special[] = {1.0f + 0x1p-8f, 1.0f + 0x1p-9f, 1.0f + 3 * 0x1p-9f, 0x1p-130f, -0.0f, 3.4e38f, 65520.0f,
                             std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(), 1e-3f, -2.5f};
    for (std::size_t i = 0; i < n; i += 5) v[i] = special[(i / 5) % std::size(special)];
    return v;
}

// Elements of y (at ldy, offset) that are not To(x) bit for bit; padding must keep its junk.
template <class To, bool kBug = false>
long long run(int rows, int cols, long long pad, int offset, unsigned seed) {
    const long long ldx = cols + pad, ldy = cols + pad;
    const std::vector<float> x = values(static_cast<std::size_t>(offset + rows * ldx), seed);
    DeviceBuffer<float> dx(x);
    DeviceBuffer<To> dy(static_cast<std::size_t>(offset + rows * ldy));
    const float* xs = dx.get() + offset;
    To* ys = dy.get() + offset;
    if constexpr (kBug) {
        const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((cols + 255) / 256));
        CHECK_EQ(carbon::kern::launch(carbon::kern::cast_rows_kernel<To, false, true>, grid, dim3(256), 0, nullptr, xs, ldx,
                                      ys, ldy, cols),
                 cudaSuccess);
    } else {
        CHECK_EQ(carbon::kern::cast_rows<To>(xs, ldx, ys, ldy, rows, cols, nullptr), cudaSuccess);
    }
    const std::vector<To> got = dy.download();
    To junk;
    std::memset(static_cast<void*>(&junk), 0xFF, sizeof junk);
    long long wrong = 0;
    for (int r = 0; r < rows; ++r)
        for (long long c = 0; c < ldy; ++c) {
            const std::size_t at = static_cast<std::size_t>(offset + r * ldy + c);
            const To want = c < cols ? to_type<To>(x[static_cast<std::size_t>(offset + r * ldx + c)]) : junk;
            // NaN: any NaN is right (the payload is not specified).
            if (c < cols && std::isnan(as_float(want))) wrong += std::isnan(as_float(got[at])) ? 0 : 1;
            else wrong += same(got[at], want) ? 0 : 1;
        }
    return wrong;
}

template <class To>
void check_all(unsigned seed) {
    std::vector<int> widths = {1, 7, 8, 160, 1000, 4096, 14336};
    std::vector<int> row_counts = {1, 3, 17};
    if (kSanitizerBuild) widths = {7, 1000}, row_counts = {3};
    long long wrong = 0;
    for (int rows : row_counts)
        for (int cols : widths)
            for (long long pad : {0LL, 8LL})
                for (int offset : {0, 1}) wrong += run<To>(rows, cols, pad, offset, seed++);
    CHECK_EQ(wrong, 0LL);
}

}  // namespace

TEST(bf16_is_rounded_to_nearest_even) {
    check_all<__nv_bfloat16>(1);
}

TEST(fp16_is_rounded_to_nearest_even) {
    check_all<__half>(500);
}

TEST(fp32_is_copied) {
    check_all<float>(900);
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<float> x(64);
    DeviceBuffer<__nv_bfloat16> y(64);
    using carbon::kern::cast_rows;
    CHECK_EQ(cast_rows<__nv_bfloat16>(x.get(), 8, y.get(), 8, -1, 8, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(x.get(), 8, y.get(), 8, 1, 0, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(x.get(), 7, y.get(), 8, 1, 8, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(x.get(), 8, y.get(), 7, 1, 8, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(nullptr, 8, y.get(), 8, 1, 8, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(x.get(), 8, nullptr, 8, 1, 8, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(cast_rows<__nv_bfloat16>(nullptr, 8, nullptr, 8, 0, 8, nullptr), cudaSuccess);
}

// The injected bug: truncating instead of rounding; about half of the random values round up.
TEST(the_test_catches_truncation) {
    CHECK((run<__nv_bfloat16, true>(3, 1000, 0, 0, 7)) > 1000);
}

CARBON_KERNEL_TEST_MAIN()
