// gemv against the CPU backend's cpu::matmul_wt: k from 8 to 8,448 (split and unsplit), n not a
// multiple of the 4-row tile, batch 1 to 17, every weight x activation dtype pair, the DNA-head row
// list, strides; batch invariance bit for bit; refusals; on the host, the injected bugs. Built by g++
// through the host layer and, with CUDA, by nvcc for the GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "carbon/kernels/gemv.h"
#include "check.h"
#include "cpu/cpu_ops.h"
#include "device_buffer.h"
#include "gemv.cuh"

using carbon::kern::GemvSizes;
using carbon::test::DeviceBuffer;

namespace {

float to_float(float v) {
    return v;
}
float to_float(__nv_bfloat16 v) {
    return __bfloat162float(v);
}
float to_float(__half v) {
    return __half2float(v);
}
template <class T>
T from_float(float v) {
    if constexpr (std::is_same_v<T, float>)
        return v;
    else if constexpr (std::is_same_v<T, __half>)
        return __float2half(v);
    else
        return __float2bfloat16(v);
}
template <class T>
carbon::DType dtype_of() {
    if constexpr (std::is_same_v<T, float>)
        return carbon::DType::F32;
    else if constexpr (std::is_same_v<T, __half>)
        return carbon::DType::F16;
    else
        return carbon::DType::BF16;
}

// The CPU test machine's threads stay out of it: matmul_wt's sums do not depend on the pool.
carbon::ThreadPool& pool() {
    static carbon::ThreadPool p(1);
    return p;
}

struct Shape {
    int batch = 1, k = 0, n = 0;
    int w_rows = 0;       // 0: n (no row list)
    bool select = false;  // a row list (w_rows rows, n picks with repeats, in any order)
    int ldx_pad = 0, ldy_pad = 0;
};

template <class Tw, class Tx, class Ty>
struct Problem {
    GemvSizes s;
    std::vector<Tw> w;
    std::vector<Tx> x;
    std::vector<int32_t> rows;
    std::vector<float> want;    // cpu::matmul_wt
    std::vector<double> scale;  // sum over c of |x * w|, the size of the sum's rounding errors
};

template <class Tw, class Tx, class Ty>
Problem<Tw, Tx, Ty> make_problem(const Shape& shape, unsigned seed) {
    Problem<Tw, Tx, Ty> p;
    p.s = GemvSizes{shape.batch,
                    shape.k,
                    shape.n,
                    shape.w_rows ? shape.w_rows : shape.n,
                    shape.k + shape.ldx_pad,
                    shape.n + shape.ldy_pad};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> wd(-1.0f, 1.0f), xd(-2.0f, 2.0f);
    p.w.resize(static_cast<std::size_t>(p.s.w_rows) * p.s.k);
    for (auto& v : p.w) v = from_float<Tw>(wd(rng));
    p.x.resize(static_cast<std::size_t>(p.s.batch) * p.s.ldx);
    for (auto& v : p.x) v = from_float<Tx>(xd(rng));
    if (shape.select) {
        std::uniform_int_distribution<int32_t> pick(0, p.s.w_rows - 1);
        p.rows.resize(static_cast<std::size_t>(p.s.n));
        for (auto& r : p.rows) r = pick(rng);
    }
    std::vector<float> xf(p.x.size());
    for (std::size_t i = 0; i < xf.size(); ++i) xf[i] = to_float(p.x[i]);
    const carbon::cpu::WeightMatrix wm{p.w.data(), dtype_of<Tw>(), static_cast<std::size_t>(p.s.w_rows),
                                       static_cast<std::size_t>(p.s.k)};
    p.want.assign(static_cast<std::size_t>(p.s.batch) * p.s.ldy, 0.0f);
    carbon::cpu::matmul_wt(pool(), xf.data(), p.s.batch, p.s.ldx, wm, p.rows.empty() ? nullptr : p.rows.data(), p.s.n,
                           p.want.data(), p.s.ldy);
    p.scale.assign(p.want.size(), 0.0);
    for (int b = 0; b < p.s.batch; ++b)
        for (int j = 0; j < p.s.n; ++j) {
            const std::size_t row = p.rows.empty() ? j : p.rows[j];
            double a = 0.0;
            for (int c = 0; c < p.s.k; ++c)
                a += std::fabs(double(xf[static_cast<std::size_t>(b) * p.s.ldx + c]) *
                               double(to_float(p.w[row * p.s.k + c])));
            p.scale[static_cast<std::size_t>(b) * p.s.ldy + j] = a;
        }
    return p;
}

// |gemv - matmul_wt| <= (L_gpu + L_cpu + 2) * 2^-24 * sum|x * w| (+ bf16 output rounding). A sum whose
// longest chain of fp32 roundings is L is off by at most L * 2^-24 * sum|terms| (Higham, to first
// order; products are exact inside fmaf). gemv's chain: 8 per step of one thread (at most
// ceil(k / 8 / 128) steps) + 31 lane adds + 3 warp adds + up to 15 slice adds. matmul_wt's: k / 8
// per AVX2 lane + 3 + a tail below 8, or k / 4 + 2 on the portable path, plus a rounding per product
// there. A bf16 y adds its own rounding, at most 2^-8 relative. These are worst-case bounds, not
// fitted: typical errors are about sqrt(L) times smaller, an injected bug far larger.
double tolerance(int k, double scale, double want, bool bf16_out) {
    const double gpu = 8.0 * ((k / 8 + 127) / 128) + 50.0, cpu = k / 4.0 + 12.0;
    const double fp32 = (gpu + cpu + 2.0) * 0x1p-24 * scale;
    return bf16_out ? fp32 + 0x1p-8 * (std::fabs(want) + fp32) : fp32;
}

// Runs gemv on the problem (fresh y and workspace, y pre-filled with 0xFF junk); y as downloaded.
template <class Tw, class Tx, class Ty>
std::vector<Ty> run(const Problem<Tw, Tx, Ty>& p) {
    DeviceBuffer<Tw> dw(p.w);
    DeviceBuffer<Tx> dx(p.x);
    DeviceBuffer<int32_t> drows(p.rows);
    DeviceBuffer<Ty> dy(static_cast<std::size_t>(p.s.batch) * p.s.ldy);
    const std::size_t ws = carbon::kern::gemv_workspace_bytes(p.s.n, p.s.k, p.s.batch);
    DeviceBuffer<unsigned char> dws(std::vector<unsigned char>(ws, 0));
    CHECK_EQ(carbon::kern::gemv(dx.get(), dw.get(), p.rows.empty() ? nullptr : drows.get(), dy.get(), p.s, dws.get(),
                                ws, nullptr),
             cudaSuccess);
    return dy.download();
}

// The largest |gemv - matmul_wt| / tolerance seen by the passing comparisons (printed at the end:
// how much room the worst-case bound leaves), per output dtype.
double g_worst[2] = {0.0, 0.0};

// Outputs outside the tolerance (NaN counts); the gaps of a strided y must still hold the junk.
template <class Tw, class Tx, class Ty>
int mismatches(const Problem<Tw, Tx, Ty>& p, const std::vector<Ty>& got, bool report = true) {
    int bad = 0;
    for (int b = 0; b < p.s.batch; ++b)
        for (int j = 0; j < p.s.ldy; ++j) {
            const std::size_t i = static_cast<std::size_t>(b) * p.s.ldy + j;
            if (j >= p.s.n) {
                const auto* bytes = reinterpret_cast<const unsigned char*>(&got[i]);
                for (std::size_t q = 0; q < sizeof(Ty); ++q) bad += bytes[q] != 0xFF;
                continue;
            }
            const double g = to_float(got[i]), tol = tolerance(p.s.k, p.scale[i], p.want[i], sizeof(Ty) == 2);
            if (report && tol > 0)
                g_worst[sizeof(Ty) == 2] = std::max(g_worst[sizeof(Ty) == 2], std::fabs(g - p.want[i]) / tol);
            if (!(std::fabs(g - p.want[i]) <= tol)) {
                if (report && bad < 5)
                    std::fprintf(stderr, "    b %d j %d (batch %d k %d n %d): %.9g vs %.9g, tolerance %.3g\n", b, j,
                                 p.s.batch, p.s.k, p.s.n, g, double(p.want[i]), tol);
                ++bad;
            }
        }
    return bad;
}

template <class Tw, class Tx, class Ty>
void check_shapes(const std::vector<Shape>& shapes, unsigned seed) {
    for (const Shape& shape : shapes) {
        const auto p = make_problem<Tw, Tx, Ty>(shape, seed++);
        CHECK_EQ(mismatches(p, run(p)), 0);
    }
}

// The sanitizer builds switch threads far more slowly (ucontext fibers: a system call per switch;
// the thread build: one OS thread per CUDA thread), so they get the smaller lists; both cover the
// split path, every register tile (batch 1, 2, 3-4, 5-8), a row list and batch invariance.
#if defined(CARBON_HOST_EXECUTOR_BOOST)
constexpr bool kQuick = false;
#else
constexpr bool kQuick = true;
#endif
constexpr int kN = kQuick ? 9 : 37;  // outputs in the sweeps: not a multiple of the 4-row tile

std::vector<Shape> k_sweep() {
    std::vector<Shape> shapes;
    const std::vector<int> ks =
        kQuick ? std::vector<int>{24, 3072} : std::vector<int>{8, 24, 72, 1000, 1024, 3072, 8448};
    for (int k : ks)
        for (int batch : {1, 3, 8}) shapes.push_back(Shape{batch, k, kN});
    return shapes;
}

std::vector<Shape> n_sweep() {
    std::vector<Shape> shapes;
    for (int n : {1, 2, 3, 4, 5, kQuick ? 13 : 130})
        for (int batch : {1, 2, 5}) shapes.push_back(Shape{batch, 72, n});
    return shapes;
}

std::vector<Shape> other_dtypes() {
    if (kQuick) return {Shape{3, 1000, 9}};
    return {Shape{3, 24, kN}, Shape{3, 1000, kN}, Shape{8, 3072, kN}};
}

}  // namespace

TEST(plan_splits_small_tile_counts_only) {
    using carbon::kern::gemv_k_splits;
    // The Carbon shapes in gemv.cuh's header (n x k): 500M, 3B, 8B projections and the heads.
    CHECK_EQ(gemv_k_splits(1024, 1024), 1);
    CHECK_EQ(gemv_k_splits(512, 1024), 1);
    CHECK_EQ(gemv_k_splits(3072, 1024), 1);
    CHECK_EQ(gemv_k_splits(1024, 3072), 3);
    CHECK_EQ(gemv_k_splits(3072, 3072), 2);
    CHECK_EQ(gemv_k_splits(384, 3072), 3);
    CHECK_EQ(gemv_k_splits(8448, 3072), 1);
    CHECK_EQ(gemv_k_splits(3072, 8448), 2);
    CHECK_EQ(gemv_k_splits(4096, 4096), 1);
    CHECK_EQ(gemv_k_splits(1024, 4096), 4);
    CHECK_EQ(gemv_k_splits(14336, 4096), 1);
    CHECK_EQ(gemv_k_splits(4096, 14336), 1);
    CHECK_EQ(gemv_k_splits(4096, 3072), 1);
    CHECK_EQ(gemv_k_splits(155776, 4096), 1);
    // Never a slice shorter than 1,024 elements, never more than 16, never an empty one.
    CHECK_EQ(gemv_k_splits(1, 2047), 1);
    CHECK_EQ(gemv_k_splits(1, 2048), 2);
    CHECK_EQ(gemv_k_splits(1, 1 << 20), 16);
    for (int k = 0; k <= 40000; k += 8)
        for (int n : {1, 37, 384, 1024}) {
            const auto plan = carbon::kern::gemv_plan(n, k);
            CHECK(plan.splits >= 1 && plan.splits <= 16);
            if (plan.splits > 1) CHECK((plan.splits - 1) * plan.chunks_per_split < k / 8);
            if (plan.splits > 1) CHECK(plan.splits * plan.chunks_per_split >= k / 8);
        }
    CHECK_EQ(carbon::kern::gemv_workspace_bytes(1024, 1024, 8), std::size_t{0});
    CHECK_EQ(carbon::kern::gemv_workspace_bytes(384, 3072, 3), std::size_t{1024 * 4 + 3 * 3 * 384 * 4});
    CHECK_EQ(carbon::kern::gemv_workspace_bytes(384, 3072, 17), carbon::kern::gemv_workspace_bytes(384, 3072, 8));
}

TEST(bf16_weights_bf16_x_fp32_y_match_matmul_wt) {
    check_shapes<__nv_bfloat16, __nv_bfloat16, float>(k_sweep(), 100);
    check_shapes<__nv_bfloat16, __nv_bfloat16, float>(n_sweep(), 200);
}

TEST(bf16_weights_bf16_x_bf16_y_match_matmul_wt) {
    check_shapes<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(k_sweep(), 300);
    if (!kQuick) check_shapes<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(n_sweep(), 400);
}

TEST(bf16_weights_fp32_x_match_matmul_wt) {
    check_shapes<__nv_bfloat16, float, float>(k_sweep(), 500);
    if (!kQuick) check_shapes<__nv_bfloat16, float, float>(n_sweep(), 600);
}

TEST(f16_and_f32_weights_match_matmul_wt) {
    check_shapes<__half, __nv_bfloat16, float>(other_dtypes(), 700);
    check_shapes<__half, __nv_bfloat16, __nv_bfloat16>(other_dtypes(), 710);
    check_shapes<__half, float, float>(other_dtypes(), 720);
    check_shapes<float, __nv_bfloat16, float>(other_dtypes(), 730);
    check_shapes<float, __nv_bfloat16, __nv_bfloat16>(other_dtypes(), 740);
    check_shapes<float, float, float>(other_dtypes(), 750);
}

TEST(row_list_selects_weight_rows_like_the_dna_head) {
    // 45 (13) picks, with repeats, in any order, among 300 rows; unsplit and split k.
    for (int k : {1024, 3072})
        for (int batch : {1, 8}) {
            check_shapes<__nv_bfloat16, __nv_bfloat16, float>({Shape{batch, k, kQuick ? 13 : 45, 300, true}},
                                                              800 + k + batch);
            check_shapes<__nv_bfloat16, float, float>({Shape{batch, k, kQuick ? 13 : 45, 300, true}}, 900 + k + batch);
        }
}

TEST(strided_x_and_y_leave_the_gaps_alone) {
    // ldx = k + 24 (48 bytes more in bf16, 96 in fp32), ldy = n + 3: mismatches() checks the gaps.
    check_shapes<__nv_bfloat16, __nv_bfloat16, float>(
        {Shape{3, 72, kN, 0, false, 24, 3}, Shape{3, 3072, 10, 0, false, 24, 3}}, 1000);
    check_shapes<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>({Shape{3, 1000, kN, 0, false, 24, 3}}, 1010);
    check_shapes<__nv_bfloat16, float, float>({Shape{3, 1000, kN, 0, false, 24, 3}}, 1020);
}

TEST(batch_above_eight_runs_in_groups_of_eight) {
    check_shapes<__nv_bfloat16, __nv_bfloat16, float>({Shape{17, kQuick ? 72 : 3072, 13}}, 1100);
}

// y[b] depends on x[b] alone, bit for bit: the same activation row alone, among 3 or among 17 gives
// the same bits (the property identity-verified speculative decoding needs), split k or not.
template <class Tx, class Ty>
void check_batch_invariance(int k, int n, bool select, unsigned seed) {
    const int batch = kQuick ? 9 : 17;
    const auto all = make_problem<__nv_bfloat16, Tx, Ty>(Shape{batch, k, n, select ? 300 : 0, select}, seed);
    const auto y_all = run(all);
    CHECK_EQ(mismatches(all, y_all), 0);
    for (const std::vector<int>& subset :
         {std::vector<int>{5}, std::vector<int>{8}, std::vector<int>{2, 0, 7}, std::vector<int>{1, 3}}) {
        auto part = all;
        part.s.batch = static_cast<int>(subset.size());
        part.x.assign(static_cast<std::size_t>(part.s.batch) * part.s.ldx, Tx{});
        for (std::size_t i = 0; i < subset.size(); ++i)
            std::memcpy(&part.x[i * part.s.ldx], &all.x[static_cast<std::size_t>(subset[i]) * all.s.ldx],
                        sizeof(Tx) * all.s.ldx);
        const auto y_part = run(part);
        for (std::size_t i = 0; i < subset.size(); ++i)
            CHECK(std::memcmp(&y_part[i * part.s.ldy], &y_all[static_cast<std::size_t>(subset[i]) * all.s.ldy],
                              sizeof(Ty) * n) == 0);
    }
}

TEST(results_are_batch_invariant_bit_for_bit) {
    CHECK(carbon::kern::gemv_k_splits(kN, 3072) > 1);
    check_batch_invariance<__nv_bfloat16, float>(3072, kN, false, 1200);
    check_batch_invariance<float, float>(kQuick ? 1024 : 3072, kN, true, 1210);
    if (!kQuick) check_batch_invariance<__nv_bfloat16, __nv_bfloat16>(1000, 21, false, 1220);
}

TEST(the_workspace_is_left_ready_for_the_next_launch) {
    // Two launches on one workspace: the second finds every tile's counter back at zero (else no
    // block would draw the last ticket and y would keep its junk).
    const auto p = make_problem<__nv_bfloat16, __nv_bfloat16, float>(Shape{3, 3072, kN}, 1300);
    DeviceBuffer<__nv_bfloat16> dw(p.w), dx(p.x);
    const std::size_t ws = carbon::kern::gemv_workspace_bytes(p.s.n, p.s.k, p.s.batch);
    CHECK(ws > 0);
    DeviceBuffer<unsigned char> dws(std::vector<unsigned char>(ws, 0));
    std::vector<float> first;
    for (int launch = 0; launch < 3; ++launch) {
        DeviceBuffer<float> dy(static_cast<std::size_t>(p.s.batch) * p.s.ldy);
        CHECK_EQ(carbon::kern::gemv(dx.get(), dw.get(), nullptr, dy.get(), p.s, dws.get(), ws, nullptr), cudaSuccess);
        const auto y = dy.download();
        CHECK_EQ(mismatches(p, y), 0);
        if (launch == 0)
            first = y;
        else
            CHECK(std::memcmp(first.data(), y.data(), sizeof(float) * y.size()) == 0);
    }
}

TEST(one_workspace_serves_shapes_of_different_splits_in_any_order) {
    // The carbon-3b decode: q (3072 x 3072, k in 2 slices), k and v (768 x 3072, 3 slices), then
    // the next layer's q, all on one workspace sized for the largest. Before the tickets had a
    // region of their own, k's partials overwrote q's counters and the second q kept its junk.
    using carbon::kern::gemv_workspace_bytes;
    const int n_q = kQuick ? 72 : 3072, n_kv = kQuick ? 20 : 768;  // quick: fewer tiles, the same overlap
    const auto q = make_problem<__nv_bfloat16, float, float>(Shape{1, 3072, n_q}, 1500);
    const auto kv = make_problem<__nv_bfloat16, float, float>(Shape{1, 3072, n_kv}, 1501);
    CHECK(carbon::kern::gemv_k_splits(n_q, 3072) > 1 && carbon::kern::gemv_k_splits(n_kv, 3072) > 1);
    const std::size_t ws = std::max(gemv_workspace_bytes(n_q, 3072, 1), gemv_workspace_bytes(n_kv, 3072, 1));
    DeviceBuffer<unsigned char> dws(std::vector<unsigned char>(ws, 0));
    DeviceBuffer<__nv_bfloat16> wq(q.w), wkv(kv.w);
    DeviceBuffer<float> xq(q.x), xkv(kv.x);
    for (int layer = 0; layer < 3; ++layer) {
        for (const auto* p : {&q, &kv, &kv}) {
            DeviceBuffer<float> dy(static_cast<std::size_t>(p->s.batch) * p->s.ldy);
            const bool is_q = p == &q;
            CHECK_EQ(carbon::kern::gemv((is_q ? xq : xkv).get(), (is_q ? wq : wkv).get(), nullptr, dy.get(), p->s, dws.get(), ws,
                                        nullptr),
                     cudaSuccess);
            CHECK_EQ(mismatches(*p, dy.download()), 0);
        }
    }
}

TEST(out_of_range_row_indices_give_nan_columns) {
    const int k = 72, w_rows = 6;
    auto p = make_problem<__nv_bfloat16, __nv_bfloat16, float>(Shape{2, k, 5, w_rows, true}, 1400);
    p.rows = {0, -1, 5, w_rows, 3};
    const auto y = run(p);
    for (int b = 0; b < 2; ++b)
        for (int j = 0; j < 5; ++j) {
            const float v = y[static_cast<std::size_t>(b) * p.s.ldy + j];
            if (j == 1 || j == 3)
                CHECK(std::isnan(v));
            else
                CHECK(std::isfinite(v));
        }
}

TEST(empty_products) {
    // k = 0: every output is 0; batch 0 or n = 0: nothing is written.
    auto p = make_problem<__nv_bfloat16, __nv_bfloat16, float>(Shape{3, 0, 6}, 1500);
    for (float v : run(p)) CHECK_EQ(v, 0.0f);
    DeviceBuffer<__nv_bfloat16> dw(16), dx(16);
    DeviceBuffer<float> dy(4);
    CHECK_EQ(
        carbon::kern::gemv(dx.get(), dw.get(), nullptr, dy.get(), GemvSizes{0, 8, 2, 2, 8, 2}, nullptr, 0, nullptr),
        cudaSuccess);
    CHECK_EQ(
        carbon::kern::gemv(dx.get(), dw.get(), nullptr, dy.get(), GemvSizes{2, 8, 0, 2, 8, 2}, nullptr, 0, nullptr),
        cudaSuccess);
    for (float v : dy.download()) CHECK(std::isnan(v));  // still the 0xFF junk
}

TEST(unsupported_calls_are_refused_with_a_reason) {
    DeviceBuffer<__nv_bfloat16> dw(64 * 4096), dx(8 * 4104);
    DeviceBuffer<float> dy(8 * 64);
    DeviceBuffer<unsigned char> dws(1 << 16);
    auto refused = [&](const GemvSizes& s, const char* needle, const __nv_bfloat16* x, const __nv_bfloat16* w,
                       void* ws = nullptr, std::size_t ws_bytes = 0) {
        CHECK_EQ(carbon::kern::gemv(x, w, nullptr, dy.get(), s, ws, ws_bytes, nullptr), cudaErrorInvalidValue);
        const std::string why = carbon::kern::gemv_last_refusal();
        if (why.find(needle) == std::string::npos)
            ::check::fail(__FILE__, __LINE__, "refusal '" + why + "' lacks '" + needle + "'");
    };
    const __nv_bfloat16* x = dx.get();
    const __nv_bfloat16* w = dw.get();
    refused(GemvSizes{1, 1001, 4, 4, 1001, 4}, "not a multiple of 8", x, w);
    refused(GemvSizes{1, 1004, 4, 4, 1004, 4}, "not a multiple of 8", x, w);
    refused(GemvSizes{-1, 64, 4, 4, 64, 4}, "negative size", x, w);
    refused(GemvSizes{1, 64, 4, 4, 56, 4}, "ldx = 56 is less than k = 64", x, w);
    refused(GemvSizes{1, 64, 4, 4, 64, 3}, "ldy = 3 is less than n = 4", x, w);
    refused(GemvSizes{2, 64, 4, 4, 68, 4}, "x's rows must start on 16-byte boundaries", x, w);
    refused(GemvSizes{1, 64, 5, 4, 64, 5}, "W has only 4 rows", x, w);
    refused(GemvSizes{1, 64, 4, 4, 64, 4}, "16-byte aligned", x + 1, w);
    refused(GemvSizes{1, 64, 4, 4, 64, 4}, "16-byte aligned", x, w + 4);
    refused(GemvSizes{1, 64, 4, 4, 64, 4}, "null x, W or y", nullptr, w);
    // k = 4096 over 4 rows splits: the workspace must be there, large enough and aligned.
    const std::size_t need = carbon::kern::gemv_workspace_bytes(4, 4096, 2);
    CHECK(need > 0 && need + 16 <= (1u << 16));
    refused(GemvSizes{2, 4096, 4, 4, 4096, 4}, "needs a workspace", x, w);
    refused(GemvSizes{2, 4096, 4, 4, 4096, 4}, "needs a workspace", x, w, dws.get(), need - 4);
    refused(GemvSizes{2, 4096, 4, 4, 4096, 4}, "workspace must be 16-byte aligned", x, w, dws.get() + 4, need);
    // A call that is accepted clears the reason.
    CHECK_EQ(carbon::kern::gemv(x, w, nullptr, dy.get(), GemvSizes{1, 64, 4, 4, 64, 4}, nullptr, 0, nullptr),
             cudaSuccess);
    CHECK_EQ(std::string(carbon::kern::gemv_last_refusal()), std::string());
}

#if CARBON_KERNEL_ON_HOST
// The injected bugs, launched exactly as the launcher would; the comparison above must fail them.
template <carbon::kern::GemvBug kBug>
int buggy_mismatches(const Shape& shape, unsigned seed) {
    using namespace carbon::kern;
    const auto p = make_problem<__nv_bfloat16, __nv_bfloat16, float>(shape, seed);
    const GemvPlan plan = gemv_plan(p.s.n, p.s.k);
    DeviceBuffer<__nv_bfloat16> dw(p.w), dx(p.x);
    DeviceBuffer<float> dy(static_cast<std::size_t>(p.s.batch) * p.s.ldy);
    const std::size_t tiles = (static_cast<std::size_t>(p.s.n) + kGemvRows - 1) / kGemvRows;
    DeviceBuffer<unsigned int> tickets(std::vector<unsigned int>(tiles, 0u));
    DeviceBuffer<float> partials(static_cast<std::size_t>(plan.splits) * p.s.batch * p.s.n);
    launch(gemv_kernel<__nv_bfloat16, __nv_bfloat16, float, 4, kBug>,
           dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(plan.splits)), dim3(kGemvThreads), 0, nullptr,
           dx.get(), p.s.batch, p.s.ldx, dw.get(), p.s.w_rows, p.s.k, static_cast<const int32_t*>(nullptr), p.s.n,
           dy.get(), p.s.ldy, partials.get(), tickets.get(), plan.chunks_per_split);
    return mismatches(p, dy.download(), false);
}

TEST(the_test_catches_a_dropped_barrier) {
#if defined(CARBON_HOST_EXECUTOR_THREADS)
    SKIP(
        "the thread build leaves the race's outcome to the OS (TSan reports it: kernels.tsan_reports_missing_barrier)");
#endif
    // Threads add the block's accumulators before the other threads have stored them: in the layer's
    // default order each thread runs to the next barrier, so the adds read junk (NaN), every output.
    CHECK_EQ(buggy_mismatches<carbon::kern::GemvBug::skip_barrier>(Shape{3, 1024, 10}, 1600), 3 * 10);
    CHECK_EQ(buggy_mismatches<carbon::kern::GemvBug::skip_barrier>(Shape{3, 3072, 10}, 1601), 3 * 10);
}

TEST(the_test_catches_a_slice_that_ends_one_chunk_early) {
    // Unsplit (k = 72: one chunk of nine lost) and split in 3 (three chunks of 384 lost).
    CHECK(carbon::kern::gemv_plan(10, 3072).splits == 3);
    CHECK_EQ(buggy_mismatches<carbon::kern::GemvBug::drop_last_chunk>(Shape{3, 72, 10}, 1700), 3 * 10);
    CHECK(buggy_mismatches<carbon::kern::GemvBug::drop_last_chunk>(Shape{3, 3072, 10}, 1701) >= 3 * 10 * 9 / 10);
}
#endif

int main() {
    if (const std::string why = carbon::test::gpu_missing(); !why.empty()) {
        std::printf("SKIP %s\n", why.c_str());
        return 0;
    }
    const int status = check::run_all();
    std::printf("largest error / tolerance: fp32 y %.3g, bf16 y %.3g\n", g_worst[0], g_worst[1]);
    return status;
}
