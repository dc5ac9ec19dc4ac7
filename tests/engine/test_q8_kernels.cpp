// The 8-bit weights' kernels (issue 34, engine/src/cpu/cpu_q8.h): quantisation within half a step
// of every value (weights of f32, f16 and bf16 storage; zero groups; a ragged last group; fp16
// scales never below max|w| / 127), the activations' AVX-512 and AVX2 quantisation equal to the
// portable one, every kernel this CPU runs equal bit for bit to the portable reference at awkward
// sizes (k = 1, 31, 32, 33, 63, 64, 65, 100, 257, 1000; n = 1, 15, 17, 40; m = 1..9, 16, 17, 33), the
// AMX-INT8 kernel's indexing on the tile emulation at awkward sizes on any CPU, each row's result
// the same alone as in a batch of any size (batch invariance: alone it takes the vector kernel,
// in a batch of 40 the tiles where present), a NaN activation showing in its own row only, and the
// product within the bound the quantisation gives of the fp32 product. Kernels this CPU cannot run
// are said, not hidden.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "amx_emulation.h"
#include "carbon/support/thread_pool.h"
#include "check.h"
#include "cpu/cpu_isa.h"
#include "cpu/cpu_q8.h"

using namespace carbon;
using namespace carbon::cpu;

namespace carbon::cpu::detail {
// The fp32 step of the AMX kernel, as cpu_q8_amx.cpp does it lane by lane.
struct Q8AmxAcc {
    float v[16][16];
    void zero() { std::memset(v, 0, sizeof v); }
    void add(const int32_t (*c)[16], const int32_t* bias, const float* xs, size_t stride, const uint16_t* ws16) {
        for (size_t r = 0; r < 16; ++r)
            for (size_t l = 0; l < 16; ++l) v[r][l] = std::fma(float(c[r][l] + bias[r * stride]), xs[r * stride] * f16_to_f32(ws16[l]), v[r][l]);
    }
    void store(float* y, size_t ldy, size_t rows, size_t cols) const {
        for (size_t r = 0; r < rows; ++r) std::memcpy(y + r * ldy, v[r], cols * sizeof(float));
    }
};
#include "cpu/cpu_q8_amx_kernel.inc"
inline void q8_rows_finish(const int32_t (*c)[16], const int32_t* bias, const float* xs, const float* ws, float* y, size_t ldy, size_t rows,
                           size_t cols) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t l = 0; l < cols; ++l) y[r * ldy + l] = float(c[r][l] + bias[r]) * (xs[r] * ws[l]);
}
#include "cpu/cpu_q8_amx_rows_kernel.inc"
void matmul_q8_amx_emulated(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    if (w.scheme == Q8Scheme::Rows) run_q8_amx_rows(pool, x, w, y, ldy);
    else run_q8_amx(pool, x, w, y, ldy);
}
}  // namespace carbon::cpu::detail

namespace {

std::vector<float> random_values(size_t n, uint32_t seed, float spread = 1.f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.f, spread);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

WeightMatrix f32_matrix(const std::vector<float>& v, size_t rows, size_t cols) {
    WeightMatrix w;
    w.data = v.data();
    w.dtype = DType::F32;
    w.rows = rows;
    w.cols = cols;
    return w;
}

std::vector<Q8Kernel> kernels_here() {
    std::vector<Q8Kernel> out;
    for (Q8Kernel k : {Q8Kernel::Portable, Q8Kernel::Avx2, Q8Kernel::Avx512Vnni, Q8Kernel::Amx}) {
        if (q8_kernel_supported(k)) out.push_back(k);
        else std::printf("note: the %s int8 kernel is not run here (this CPU lacks it)\n", q8_kernel_name(k));
    }
    return out;
}

constexpr Q8Scheme kSchemes[] = {Q8Scheme::Rows, Q8Scheme::Groups};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(quantisation_is_within_half_a_step) {
    ThreadPool pool(2);
    for (size_t cols : {1, 31, 32, 33, 100}) {
        std::vector<float> v = random_values(7 * cols, uint32_t(cols));
        for (size_t c = 0; c < std::min<size_t>(cols, 32); ++c) v[2 * cols + c] = 0.f;  // a zero group (row 2)
        for (DType dt : {DType::F32, DType::BF16, DType::F16}) {
            std::vector<uint16_t> half(v.size());
            for (size_t e = 0; e < v.size(); ++e) half[e] = dt == DType::BF16 ? f32_to_bf16(v[e]) : f32_to_f16(v[e]);
            WeightMatrix w = f32_matrix(v, 7, cols);
            if (dt != DType::F32) {
                w.data = half.data();
                w.dtype = dt;
            }
          for (Q8Scheme sc : kSchemes) {
            const Q8Matrix q = quantize_q8(pool, w, sc, "test.weight");
            CHECK_EQ(q.groups, q8_groups(cols, sc));
            CHECK_EQ(q.groups, sc == Q8Scheme::Rows ? ((cols + 31) / 32 + 1) / 2 * 2 : (cols + 31) / 32);
            CHECK_EQ(q.panels, size_t(1));
            for (size_t r = 0; r < 16; ++r)
                for (size_t c = 0; c < q.groups * kQ8Group; ++c) {
                    const float scale = q.scale(r, c / kQ8Group);
                    if (c >= cols || r >= 7) {
                        CHECK_EQ(q.value(r, c), 0);  // padding
                        continue;
                    }
                    const float orig = load_as_f32(w.data, w.dtype, r * cols + c);
                    CHECK(std::fabs(orig - float(q.value(r, c)) * scale) <= scale * 0.5f * (1 + 1e-5f) + 1e-30f);
                    CHECK(std::abs(q.value(r, c)) <= 127);
                }
            for (size_t r = 0; r < 7; ++r)
                for (size_t g = 0; g * 32 < cols; ++g) {
                    float amax = 0;
                    const size_t c0 = sc == Q8Scheme::Rows ? 0 : g * 32, c1 = sc == Q8Scheme::Rows ? cols : std::min(cols, g * 32 + 32);
                    for (size_t c = c0; c < c1; ++c) amax = std::max(amax, std::fabs(load_as_f32(w.data, w.dtype, r * cols + c)));
                    CHECK(q.scale(r, g) >= amax / 127.f * (1 - 1e-7f));  // no value quantises past 127
                    CHECK(q.scale(r, g) <= amax / 127.f * 1.001f);  // (fp16 groups: the fp16 just above)
                }
            if (sc == Q8Scheme::Groups) {
                for (size_t c = 0; c < std::min<size_t>(cols, 32); ++c) CHECK_EQ(q.value(2, c), 0);
                CHECK_EQ(q.scale(2, 0), 0.f);
            }
          }
        }
    }
}

TEST(every_kernel_gives_the_reference_bits) {
    ThreadPool pool(2);
    const std::vector<Q8Kernel> kernels = kernels_here();
    size_t compared = 0;
    for (size_t k : {1, 31, 32, 33, 63, 64, 65, 100, 257, 1000})
        for (size_t n : {1, 15, 17, 40}) {
          for (Q8Scheme sc : kSchemes) {
            const std::vector<float> wv = random_values(n * k, uint32_t(k * 131 + n), 0.05f);
            const Q8Matrix w = quantize_q8(pool, f32_matrix(wv, n, k), sc, "test.weight");
            for (size_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 33}) {
                std::vector<float> xv = random_values(m * (k + 3), uint32_t(k + 7 * m), 2.f);
                for (size_t c = 0; c < k; c += 7) xv[c] = 0.f;  // zeros in the first row
                Q8Rows x;
                quantize_rows_q8(pool, xv.data(), m, k + 3, k, sc, x);
                std::vector<float> ref(m * (n + 2), -1.f);
                matmul_q8(pool, Q8Kernel::Portable, x, w, ref.data(), n + 2);  // (y wider than n: columns past n untouched)
                for (size_t i = 0; i < m; ++i) CHECK(ref[i * (n + 2) + n] == -1.f && ref[i * (n + 2) + n + 1] == -1.f);
                for (Q8Kernel kernel : kernels) {
                    std::vector<float> y(m * (n + 2), -1.f);
                    matmul_q8(pool, kernel, x, w, y.data(), n + 2);
                    if (!same_bits(y, ref)) std::printf("FAIL %s %s k=%zu n=%zu m=%zu\n", q8_scheme_name(sc), q8_kernel_name(kernel), k, n, m);
                    CHECK(same_bits(y, ref));
                    ++compared;
                }
            }
          }
        }
    CHECK(compared >= 960);
}

// m seeded random activation rows against w: the portable reference, and whether the AMX-INT8
// kernel on the tile emulation gives its bits (the rows kept for the other kernels).
struct EmulatedCase {
    Q8Rows x;
    std::vector<float> ref;
    bool same = false;
};
EmulatedCase emulated_against_reference(ThreadPool& pool, const Q8Matrix& w, size_t m, size_t k, uint32_t seed) {
    EmulatedCase c;
    const std::vector<float> xv = random_values(m * k, seed, 1.5f);
    quantize_rows_q8(pool, xv.data(), m, k, k, w.scheme, c.x);
    c.ref.assign(m * w.rows, -1.f);
    std::vector<float> y(m * w.rows, -2.f);
    matmul_q8(pool, Q8Kernel::Portable, c.x, w, c.ref.data(), w.rows);
    detail::matmul_q8_amx_emulated(pool, c.x, w, y.data(), w.rows);
    c.same = same_bits(y, c.ref);
    return c;
}

TEST(the_amx_int8_kernel_on_the_tile_emulation_gives_the_reference_bits) {
    // Any CPU: the tiles' indexing (row blocks and panel pairs, odd counts of each, ragged rows and
    // columns, the group stride of A, the biases and scales of the right rows) against the reference.
    ThreadPool pool(2);
    const size_t misuse0 = detail::amx_emulation::misuse();
    size_t compared = 0;
    for (size_t k : {1, 33, 64, 100, 130})
        for (size_t n : {1, 17, 40, 50})
            for (size_t m : {1, 15, 16, 17, 33, 40})
              for (Q8Scheme sc : kSchemes) {
                const std::vector<float> wv = random_values(n * k, uint32_t(k * 17 + n), 0.05f);
                const Q8Matrix w = quantize_q8(pool, f32_matrix(wv, n, k), sc, "test.weight");
                const EmulatedCase c = emulated_against_reference(pool, w, m, k, uint32_t(k + 3 * m + n));
                if (!c.same) std::printf("FAIL amx emulation %s k=%zu n=%zu m=%zu\n", q8_scheme_name(sc), k, n, m);
                CHECK(c.same);
                ++compared;
            }
    CHECK_EQ(compared, size_t(240));
    CHECK_EQ(size_t(detail::amx_emulation::misuse()), misuse0);
}

TEST(batches_past_a_row_chunk_give_the_reference_bits_on_any_thread_count) {
    // The AMX-INT8 kernels take rows in chunks of kQ8RowChunk blocks (128 rows) and each thread one
    // range of panel pairs: batches across one and several chunk boundaries (a last chunk of one
    // block, of an odd number, a ragged last block) and 1-3 threads, on the emulation and on every
    // kernel this CPU has, against the portable reference.
    const std::vector<Q8Kernel> kernels = kernels_here();
    size_t compared = 0;
    for (int threads : {1, 2, 3}) {
        ThreadPool pool(threads);
        for (size_t k : {64, 100})
            for (size_t n : {17, 100, 130})
                for (Q8Scheme sc : kSchemes) {
                    const std::vector<float> wv = random_values(n * k, uint32_t(k * 29 + n), 0.05f);
                    const Q8Matrix w = quantize_q8(pool, f32_matrix(wv, n, k), sc, "test.weight");
                    for (size_t m : {127, 128, 129, 144, 275}) {
                        const EmulatedCase c = emulated_against_reference(pool, w, m, k, uint32_t(k + 5 * m + n));
                        if (!c.same)
                            std::printf("FAIL amx emulation %s k=%zu n=%zu m=%zu threads=%d\n", q8_scheme_name(sc), k, n, m, threads);
                        CHECK(c.same);
                        ++compared;
                        for (Q8Kernel kernel : kernels) {
                            std::vector<float> y(m * n, -2.f);
                            matmul_q8(pool, kernel, c.x, w, y.data(), n);
                            if (!same_bits(y, c.ref))
                                std::printf("FAIL %s %s k=%zu n=%zu m=%zu threads=%d\n", q8_scheme_name(sc), q8_kernel_name(kernel), k, n, m,
                                            threads);
                            CHECK(same_bits(y, c.ref));
                        }
                    }
                }
    }
    CHECK_EQ(compared, size_t(180));
}

TEST(the_simd_quantisation_of_activations_is_the_portable_one) {
    const bool avx512 = isa_supported(Isa::Avx512), avx2 = isa_supported(Isa::Avx2);
    if (!avx512) std::printf("note: the AVX-512 quantisation is not run here (this CPU lacks AVX-512)\n");
    if (!avx2) std::printf("note: the AVX2 quantisation is not run here (this CPU lacks AVX2)\n");
    // Each k plain, then (k > 40) with a group of subnormals and one huge value, then with a NaN and
    // with an infinity (the row's scale NaN, its bytes zero).
    for (size_t k : {1, 15, 16, 17, 31, 32, 33, 100, 1000})
      for (int variant = 0; variant < (k > 40 ? 4 : 1); ++variant) {
        std::vector<float> v = random_values(k, uint32_t(k), 3.f);
        v[k / 2] = 0.f;
        if (variant == 1) {
            for (size_t c = 32; c < 64; ++c) v[c] = 1e-39f * float(c % 3);  // subnormal: 127 / max is infinite, a zero group
            v[70] = 1e30f;
        }
        if (variant == 2) v[k - 1] = std::nanf("");
        if (variant == 3) v[40] = -INFINITY;
      for (Q8Scheme sc : kSchemes) {
        const size_t groups = q8_groups(k, sc);
        std::vector<int8_t> q1(groups * 32), q2(groups * 32);
        std::vector<int32_t> b1(groups), b2(groups);
        std::vector<float> s1(groups), s2(groups);
        detail::quantize_row_q8_portable(v.data(), k, groups, sc, {q1.data(), 1, 32, b1.data(), s1.data()});
        if (avx512) {
            CHECK(detail::quantize_row_q8_avx512(v.data(), k, groups, sc, {q2.data(), 1, 32, b2.data(), s2.data()}));
            CHECK(q1 == q2);
            CHECK(b1 == b2);
            CHECK(std::memcmp(s1.data(), s2.data(), groups * sizeof(float)) == 0);
        }
        if (avx2) {
            std::fill(q2.begin(), q2.end(), int8_t(99));
            CHECK(detail::quantize_row_q8_avx2(v.data(), k, groups, sc, {q2.data(), 1, 32, b2.data(), s2.data()}));
            CHECK(q1 == q2);
            CHECK(b1 == b2);
            CHECK(std::memcmp(s1.data(), s2.data(), groups * sizeof(float)) == 0);
        }
        if (variant == 1 && sc == Q8Scheme::Groups) CHECK_EQ(s1[1], 0.f);
        if (variant >= 2 && sc == Q8Scheme::Rows) CHECK(std::isnan(s1[0]) && std::all_of(q1.begin(), q1.end(), [](int8_t q) { return q == 0; }));
        if (sc == Q8Scheme::Rows) {
            int32_t sum = 0;
            for (int8_t q : q1) sum += q;
            CHECK_EQ(b1[0], -128 * sum);
        }
      }
      }
}

TEST(a_nan_activation_shows_in_its_own_row_only) {
    ThreadPool pool(2);
    const size_t k = 96, n = 20, m = 18;
    std::vector<float> xv = random_values(m * k, 13);
    xv[5 * k + 40] = std::nanf("");
    for (Q8Scheme sc : kSchemes)
    for (Q8Kernel kernel : kernels_here()) {
        const Q8Matrix w = quantize_q8(pool, f32_matrix(random_values(n * k, 12, 0.05f), n, k), sc, "test.weight");
        Q8Rows x;
        quantize_rows_q8(pool, xv.data(), m, k, k, sc, x);
        std::vector<float> y(m * n);
        matmul_q8(pool, kernel, x, w, y.data(), n);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) CHECK(std::isnan(y[i * n + j]) == (i == 5));
    }
}

TEST(weights_beyond_fp16_scales_are_refused_by_name) {
    ThreadPool pool(1);
    std::vector<float> v(64, 0.5f);
    v[40] = 1e8f;
    try {
        (void)quantize_q8(pool, f32_matrix(v, 2, 32), Q8Scheme::Groups, "model.layers.3.mlp.down_proj.weight");
        CHECK(false);
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("model.layers.3.mlp.down_proj.weight") != std::string::npos);
    }
    v[40] = INFINITY;  // not finite: refused under either scheme
    for (Q8Scheme sc : kSchemes) {
        try {
            (void)quantize_q8(pool, f32_matrix(v, 2, 32), sc, "model.layers.0.self_attn.q_proj.weight");
            CHECK(false);
        } catch (const Error& e) {
            CHECK(std::string(e.what()).find("model.layers.0.self_attn.q_proj.weight") != std::string::npos);
        }
    }
}

TEST(a_row_gives_the_same_bits_alone_and_in_any_batch) {
    ThreadPool pool(2), one(1);
    const size_t k = 200, n = 33, m = 40;
    const std::vector<float> xv = random_values(m * k, 9);
    for (Q8Scheme sc : kSchemes)
    for (Q8Kernel kernel : kernels_here()) {
        const Q8Matrix w = quantize_q8(pool, f32_matrix(random_values(n * k, 8, 0.05f), n, k), sc, "test.weight");
        Q8Rows batch;
        quantize_rows_q8(pool, xv.data(), m, k, k, sc, batch);
        std::vector<float> yb(m * n);
        matmul_q8(pool, kernel, batch, w, yb.data(), n);
        for (size_t i = 0; i < m; ++i) {
            Q8Rows alone;
            quantize_rows_q8(one, xv.data() + i * k, 1, k, k, sc, alone);
            std::vector<float> ya(n);
            matmul_q8(one, kernel, alone, w, ya.data(), n);  // one thread: another split of the work
            CHECK(std::memcmp(ya.data(), yb.data() + i * n, n * sizeof(float)) == 0);
        }
    }
}

TEST(the_product_is_within_the_quantisation_bound) {
    // |q8 - fp32| <= sum over k of (|x| |dw| + |dx| |w| + |dx| |dw|) with |dw| <= w_scale / 2 and
    // |dx| <= x_scale / 2 (per group or row), plus fp32 rounding; and in practice far inside it.
    ThreadPool pool(2);
    const size_t k = 1024, n = 64, m = 4;
    const std::vector<float> wv = random_values(n * k, 10, 0.03f);
    const std::vector<float> xv = random_values(m * k, 11, 1.5f);
    for (Q8Scheme sc : kSchemes) {
        const Q8Matrix w = quantize_q8(pool, f32_matrix(wv, n, k), sc, "test.weight");
        Q8Rows x;
        quantize_rows_q8(pool, xv.data(), m, k, k, sc, x);
        std::vector<float> y(m * n);
        matmul_q8(pool, best_q8_kernel(), x, w, y.data(), n);
        double worst_ratio = 0;
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) {
                double exact = 0, bound = 0, scale_of_sum = 0;
                for (size_t c = 0; c < k; ++c) {
                    const double xw = xv[i * k + c], ww = wv[j * k + c];
                    const double dw = w.scale(j, c / kQ8Group) / 2, dx = x.scales[x.scale_index(i, c / kQ8Group)] / 2;
                    exact += xw * ww;
                    bound += std::fabs(xw) * dw + dx * std::fabs(ww) + dx * dw;
                    scale_of_sum += std::fabs(xw * ww);
                }
                const double err = std::fabs(double(y[i * n + j]) - exact);
                CHECK(err <= bound + 1e-5 * scale_of_sum);
                worst_ratio = std::max(worst_ratio, err / scale_of_sum);
            }
        std::printf("int8 x int8 (%s) against the fp64 product: worst |error| / sum|x w| = %.3g (k = %zu)\n", q8_scheme_name(sc), worst_ratio, k);
        CHECK(worst_ratio < 0.02);
    }
}

// GGUF Q8_0 blocks written as llama.cpp's quantize_row_q8_0_ref writes them: d = max|x| / 127 rounded to
// fp16, q = round(x / d).
std::vector<uint8_t> gguf_q8_0_blocks(const std::vector<float>& v, size_t rows, size_t cols) {
    std::vector<uint8_t> out(rows * cols / 32 * 34);
    for (size_t b = 0; b < rows * cols / 32; ++b) {
        float amax = 0;
        for (size_t t = 0; t < 32; ++t) amax = std::max(amax, std::fabs(v[b * 32 + t]));
        const float d = amax / 127.f, id = d ? 1.f / d : 0.f;
        const uint16_t h = f32_to_f16(d);
        std::memcpy(out.data() + b * 34, &h, 2);
        for (size_t t = 0; t < 32; ++t) out[b * 34 + 2 + t] = uint8_t(int8_t(std::lround(v[b * 32 + t] * id)));
    }
    return out;
}

TEST(gguf_q8_0_blocks_are_taken_as_they_are) {
    // Every value and scale of the imported matrix is the file's, in any row order asked for; the
    // product equals that of the same matrix quantised from its dequantised values (the blocks hold
    // +-127 at each maximum, so requantising gives them back); -128 and a scale that is not finite
    // are refused naming the tensor, row and block.
    ThreadPool pool(2);
    const size_t rows = 37, cols = 96;
    std::vector<float> v = random_values(rows * cols, 21, 0.05f);
    for (size_t c = 0; c < 32; ++c) v[5 * cols + 32 + c] = 0.f;  // an all-zero block
    const std::vector<uint8_t> blocks = gguf_q8_0_blocks(v, rows, cols);
    const std::vector<int32_t> order = {36, 0, 5, 5, 17, 1, 30, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13};
    for (bool picked : {false, true}) {
        const size_t n = picked ? order.size() : rows;
        const Q8Matrix w = import_q8_0(pool, blocks.data(), n, cols, picked ? order.data() : nullptr, "blk.0.attn_q.weight");
        CHECK(w.scheme == Q8Scheme::Groups && w.rows == n && w.cols == cols);
        bool same = true;
        for (size_t r = 0; r < n; ++r) {
            const size_t src = picked ? size_t(order[r]) : r;
            for (size_t g = 0; g < cols / 32; ++g) {
                const uint8_t* b = blocks.data() + (src * cols / 32 + g) * 34;
                uint16_t d;
                std::memcpy(&d, b, 2);
                same = same && w.scale(r, g) == f16_to_f32(d);
                for (size_t t = 0; t < 32; ++t) same = same && w.value(r, g * 32 + t) == int(int8_t(b[2 + t]));
            }
        }
        CHECK(same);
    }
    // The product against the matrix quantised again from the blocks' values.
    std::vector<float> deq(rows * cols);
    for (size_t i = 0; i < deq.size(); ++i) deq[i] = load_as_f32(blocks.data(), DType::Q8_0, i);
    const Q8Matrix imported = import_q8_0(pool, blocks.data(), rows, cols, nullptr, "w");
    const Q8Matrix again = quantize_q8(pool, f32_matrix(deq, rows, cols), Q8Scheme::Groups, "w");
    const std::vector<float> xv = random_values(3 * cols, 22, 1.f);
    Q8Rows x;
    quantize_rows_q8(pool, xv.data(), 3, cols, cols, Q8Scheme::Groups, x);
    std::vector<float> ya(3 * rows), yb(3 * rows);
    matmul_q8(pool, best_q8_kernel(), x, imported, ya.data(), rows);
    matmul_q8(pool, best_q8_kernel(), x, again, yb.data(), rows);
    CHECK(std::memcmp(ya.data(), yb.data(), ya.size() * sizeof(float)) == 0);
    // Refusals.
    std::vector<uint8_t> bad = blocks;
    bad[(4 * cols / 32 + 2) * 34 + 2 + 7] = 0x80;  // row 4, block 2
    CHECK_THROWS_WITH(import_q8_0(pool, bad.data(), rows, cols, nullptr, "blk.3.ffn_up.weight"), "blk.3.ffn_up.weight", "-128",
                      "block 2 of row 4");
    bad = blocks;
    bad[(9 * cols / 32 + 1) * 34 + 1] = 0x7C;  // row 9, block 1: an infinite scale
    CHECK_THROWS_WITH(import_q8_0(pool, bad.data(), rows, cols, nullptr, "blk.3.ffn_up.weight"), "block 1 of row 9", "not finite");
    CHECK_THROWS_WITH(import_q8_0(pool, blocks.data(), 1, 40, nullptr, "odd"), "odd", "blocks of 32");
}

int main() { return check::run_all(); }
