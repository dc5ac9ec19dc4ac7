// CPU kernels: weight-stationary matmul over f32/f16/bf16 weights, RMSNorm, SwiGLU. The matmul
// converts a panel of weight rows to f32 once and reuses it for every activation row when there
// are several (prefill); with one or two rows (decode) it streams the weights and converts on the
// fly, since decode is bound by reading each weight once.
#include "cpu_ops.h"
#include "cpu_matmul_paths.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define CARBON_X86 1
#endif

namespace carbon::cpu {

namespace {

bool detect_simd() {
#if CARBON_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#else
    return false;
#endif
}
const bool g_simd = detect_simd();

// ---- portable paths -------------------------------------------------------------------------

void convert_row_scalar(const WeightMatrix& w, size_t row, float* out) {
    const size_t k = w.cols;
    switch (w.dtype) {
        case DType::F32: std::memcpy(out, static_cast<const uint8_t*>(w.data) + row * k * 4, k * 4); break;
        case DType::BF16: {
            const uint16_t* p = static_cast<const uint16_t*>(w.data) + row * k;
            for (size_t i = 0; i < k; ++i) out[i] = bf16_to_f32(p[i]);
            break;
        }
        case DType::F16: {
            const uint16_t* p = static_cast<const uint16_t*>(w.data) + row * k;
            for (size_t i = 0; i < k; ++i) out[i] = f16_to_f32(p[i]);
            break;
        }
        case DType::Q8_0: {  // a row is k / 32 whole blocks
            const uint8_t* p = static_cast<const uint8_t*>(w.data) + row * (k / 32) * 34;
            for (size_t i = 0; i < k; ++i) out[i] = load_as_f32(p, DType::Q8_0, i);
            break;
        }
        case DType::I8:
        case DType::I32:  // the CUDA backend's GEMM operands, never a CPU weight
            for (size_t i = 0; i < k; ++i) out[i] = load_as_f32(w.data, w.dtype, row * k + i);
            break;
    }
}

float dot_scalar(const float* a, const float* b, size_t k) {
    // Four partial sums, like the vector path, so both round similarly.
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= k; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < k; ++i) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

#if CARBON_X86
// ---- AVX2 paths -----------------------------------------------------------------------------
#define CARBON_AVX2 __attribute__((target("avx2,fma,f16c")))

CARBON_AVX2 inline float hsum(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v);
    __m128 hi = _mm256_extractf128_ps(v, 1);
    lo = _mm_add_ps(lo, hi);
    __m128 sh = _mm_movehdup_ps(lo);
    lo = _mm_add_ps(lo, sh);
    sh = _mm_movehl_ps(sh, lo);
    lo = _mm_add_ss(lo, sh);
    return _mm_cvtss_f32(lo);
}

template <DType T>
CARBON_AVX2 inline __m256 load8t(const void* base, size_t i) {
    if constexpr (T == DType::F32) {
        return _mm256_loadu_ps(static_cast<const float*>(base) + i);
    } else {
        __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(base) + i));
        if constexpr (T == DType::BF16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
        else return _mm256_cvtph_ps(h);
    }
}

template <DType T>
CARBON_AVX2 void convert_row_avx2_t(const uint16_t* p, size_t k, float* out) {
    size_t i = 0;
    for (; i + 8 <= k; i += 8) _mm256_storeu_ps(out + i, load8t<T>(p, i));
    for (; i < k; ++i) out[i] = load_as_f32(p, T, i);
}

CARBON_AVX2 void convert_row_avx2(const WeightMatrix& w, size_t row, float* out) {
    const size_t k = w.cols;
    if (w.dtype == DType::Q8_0) return convert_row_scalar(w, row, out);
    if (w.dtype == DType::F32) {
        std::memcpy(out, static_cast<const uint8_t*>(w.data) + row * k * 4, k * 4);
        return;
    }
    const uint16_t* p = static_cast<const uint16_t*>(w.data) + row * k;
    if (w.dtype == DType::BF16) convert_row_avx2_t<DType::BF16>(p, k, out);
    else convert_row_avx2_t<DType::F16>(p, k, out);
}

// Every dot product in this file, whatever the path (streaming decode, tiled prefill, any batch
// size or tile position), is summed in the same order: one 8-lane accumulator over the 8-wide
// chunks in order, then finish_dot (horizontal sum, then the scalar tail in order). So a row's
// result does not depend on what else is in the batch: a token decoded alone and the same token
// inside a prefill or a speculative verification pass get bit-identical logits, which is what
// makes speculative decoding exactly equal to the target alone.
// x_tail and w_tail point at element kv of their rows; n_tail = k - kv (< 8).
CARBON_AVX2 inline float finish_dot(__m256 acc, const float* x_tail, const float* w_tail, size_t n_tail) {
    float s = hsum(acc);
    for (size_t c = 0; c < n_tail; ++c) s += x_tail[c] * w_tail[c];
    return s;
}

// Streams weight rows against m <= 2 activation rows: the decode path. Four weight rows at a
// time give four independent FMA chains (latency hidden) while each dot keeps one accumulator.
template <DType T>
CARBON_AVX2 void matvec_stream_avx2(const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
                                    size_t j0, size_t j1, float* y, size_t ldy) {
    const size_t k = w.cols, kv = k & ~size_t(7);
    const size_t esz = dtype_size(T);
    const float* x1 = x + (m > 1 ? ldx : 0);
    float tail[4][8];  // converted weights of the tail (k % 8) of each row
    for (size_t j = j0; j < j1; j += 4) {
        const size_t nr = std::min<size_t>(4, j1 - j);
        const uint8_t* wr[4];
        for (size_t r = 0; r < 4; ++r) {
            const size_t jj = j + std::min(r, nr - 1);
            wr[r] = static_cast<const uint8_t*>(w.data) + (rows ? size_t(rows[jj]) : jj) * k * esz;
        }
        __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        __m256 b[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        // Rows in order are one contiguous run: while these four stream, the next four are fetched,
        // 4 x 8 elements' worth per step, so each group starts from the cache (rows of a few KB are too
        // short for the hardware prefetcher to ramp up on its own).
        const char* next = !rows && j + 8 <= j1 ? reinterpret_cast<const char*>(wr[0]) + 4 * k * esz : nullptr;
        for (size_t c = 0; c < kv; c += 8) {
            if (next)
                for (size_t line = 0; line < 32 * esz; line += 64) _mm_prefetch(next + c * 4 * esz + line, _MM_HINT_T0);
            const __m256 xa = _mm256_loadu_ps(x + c);
            const __m256 w0 = load8t<T>(wr[0], c), w1 = load8t<T>(wr[1], c), w2 = load8t<T>(wr[2], c), w3 = load8t<T>(wr[3], c);
            a[0] = _mm256_fmadd_ps(xa, w0, a[0]);
            a[1] = _mm256_fmadd_ps(xa, w1, a[1]);
            a[2] = _mm256_fmadd_ps(xa, w2, a[2]);
            a[3] = _mm256_fmadd_ps(xa, w3, a[3]);
            if (m > 1) {
                const __m256 xb = _mm256_loadu_ps(x1 + c);
                b[0] = _mm256_fmadd_ps(xb, w0, b[0]);
                b[1] = _mm256_fmadd_ps(xb, w1, b[1]);
                b[2] = _mm256_fmadd_ps(xb, w2, b[2]);
                b[3] = _mm256_fmadd_ps(xb, w3, b[3]);
            }
        }
        for (size_t r = 0; r < nr; ++r) {
            for (size_t c = kv; c < k; ++c) tail[r][c - kv] = load_as_f32(wr[r], T, c);
            y[j + r] = finish_dot(a[r], x + kv, tail[r], k - kv);
            if (m > 1) y[ldy + j + r] = finish_dot(b[r], x1 + kv, tail[r], k - kv);
        }
    }
}

// 3 activation rows x 4 weight rows register tile over f32 panels: 12 accumulators, 3 x loads and
// one weight load live at a time (16 ymm registers).
CARBON_AVX2 void tile_3x4(const float* x, size_t ldx, const float* wp, size_t k, size_t mt, size_t nt, float* out,
                          size_t ldo) {
    __m256 acc[3][4];
    for (auto& row : acc)
        for (auto& a : row) a = _mm256_setzero_ps();
    const size_t kv = k & ~size_t(7);
    const float* x0 = x;
    const float* x1 = x + (mt > 1 ? ldx : 0);
    const float* x2 = x + (mt > 2 ? 2 * ldx : 0);
    const float* w0 = wp;
    const float* w1 = wp + (nt > 1 ? k : 0);
    const float* w2 = wp + (nt > 2 ? 2 * k : 0);
    const float* w3 = wp + (nt > 3 ? 3 * k : 0);
    for (size_t c = 0; c < kv; c += 8) {
        __m256 a = _mm256_loadu_ps(x0 + c), b = _mm256_loadu_ps(x1 + c), d = _mm256_loadu_ps(x2 + c);
        __m256 wv = _mm256_loadu_ps(w0 + c);
        acc[0][0] = _mm256_fmadd_ps(a, wv, acc[0][0]);
        acc[1][0] = _mm256_fmadd_ps(b, wv, acc[1][0]);
        acc[2][0] = _mm256_fmadd_ps(d, wv, acc[2][0]);
        wv = _mm256_loadu_ps(w1 + c);
        acc[0][1] = _mm256_fmadd_ps(a, wv, acc[0][1]);
        acc[1][1] = _mm256_fmadd_ps(b, wv, acc[1][1]);
        acc[2][1] = _mm256_fmadd_ps(d, wv, acc[2][1]);
        wv = _mm256_loadu_ps(w2 + c);
        acc[0][2] = _mm256_fmadd_ps(a, wv, acc[0][2]);
        acc[1][2] = _mm256_fmadd_ps(b, wv, acc[1][2]);
        acc[2][2] = _mm256_fmadd_ps(d, wv, acc[2][2]);
        wv = _mm256_loadu_ps(w3 + c);
        acc[0][3] = _mm256_fmadd_ps(a, wv, acc[0][3]);
        acc[1][3] = _mm256_fmadd_ps(b, wv, acc[1][3]);
        acc[2][3] = _mm256_fmadd_ps(d, wv, acc[2][3]);
    }
    const float* xs[3] = {x0, x1, x2};
    const float* ws[4] = {w0, w1, w2, w3};
    for (size_t i = 0; i < mt; ++i)
        for (size_t j = 0; j < nt; ++j) out[i * ldo + j] = finish_dot(acc[i][j], xs[i] + kv, ws[j] + kv, k - kv);
}
CARBON_AVX2 float dot_f32_avx2(const float* a, const float* b, size_t n) {
    const size_t nv = n & ~size_t(7);
    __m256 acc = _mm256_setzero_ps();
    for (size_t i = 0; i < nv; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
    return finish_dot(acc, a + nv, b + nv, n - nv);
}

CARBON_AVX2 void axpy_f32_avx2(float a, const float* x, float* y, size_t n) {
    const size_t nv = n & ~size_t(7);
    const __m256 av = _mm256_set1_ps(a);
    for (size_t i = 0; i < nv; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    for (size_t i = nv; i < n; ++i) y[i] += a * x[i];
}
CARBON_AVX2 void dot4_f32_avx2(const float* a, const float* const b[4], size_t n, float out[4]) {
    const size_t nv = n & ~size_t(7);
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t i = 0; i < nv; i += 8) {
        const __m256 av = _mm256_loadu_ps(a + i);
        for (int c = 0; c < 4; ++c) acc[c] = _mm256_fmadd_ps(av, _mm256_loadu_ps(b[c] + i), acc[c]);
    }
    for (int c = 0; c < 4; ++c) out[c] = finish_dot(acc[c], a + nv, b[c] + nv, n - nv);
}

CARBON_AVX2 void axpy4_f32_avx2(const float s[4], const float* const x[4], float* y, size_t n) {
    const size_t nv = n & ~size_t(7);
    const __m256 s0 = _mm256_set1_ps(s[0]), s1 = _mm256_set1_ps(s[1]), s2 = _mm256_set1_ps(s[2]), s3 = _mm256_set1_ps(s[3]);
    for (size_t i = 0; i < nv; i += 8) {
        __m256 v = _mm256_loadu_ps(y + i);
        v = _mm256_fmadd_ps(s0, _mm256_loadu_ps(x[0] + i), v);
        v = _mm256_fmadd_ps(s1, _mm256_loadu_ps(x[1] + i), v);
        v = _mm256_fmadd_ps(s2, _mm256_loadu_ps(x[2] + i), v);
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(s3, _mm256_loadu_ps(x[3] + i), v));
    }
    for (size_t i = nv; i < n; ++i)
        for (int c = 0; c < 4; ++c) y[i] += s[c] * x[c][i];
}
#endif  // CARBON_X86

constexpr size_t kPanelRows = 16;  // weight rows converted to f32 at once per task

}  // namespace

float dot_f32(const float* a, const float* b, size_t n) {
#if CARBON_X86
    if (g_simd) return dot_f32_avx2(a, b, n);
#endif
    float s = 0.f;
    for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

void axpy_f32(float a, const float* x, float* y, size_t n) {
#if CARBON_X86
    if (g_simd) return axpy_f32_avx2(a, x, y, n);
#endif
    for (size_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void dot4_f32(const float* a, const float* const b[4], size_t n, float out[4]) {
#if CARBON_X86
    if (g_simd) return dot4_f32_avx2(a, b, n, out);
#endif
    for (int c = 0; c < 4; ++c) out[c] = dot_f32(a, b[c], n);
}

void axpy4_f32(const float s[4], const float* const x[4], float* y, size_t n) {
#if CARBON_X86
    if (g_simd) return axpy4_f32_avx2(s, x, y, n);
#endif
    for (int c = 0; c < 4; ++c) axpy_f32(s[c], x[c], y, n);
}

void load_row(const WeightMatrix& w, size_t row, float* out) {
#if CARBON_X86
    if (g_simd) return convert_row_avx2(w, row, out);
#endif
    convert_row_scalar(w, row, out);
}

namespace {

// The AVX2 and portable paths: streaming for one or two rows, else f32 panels of the weights.
void matmul_avx2_or_portable(ThreadPool& pool, bool avx2, const float* x, size_t m, size_t ldx, const WeightMatrix& w,
                             const int32_t* rows, size_t n, float* y, size_t ldy) {
    const size_t k = w.cols;
#if CARBON_X86
    if (avx2 && m <= 2) {
        pool.parallel_for(n, 64, [&](size_t j0, size_t j1, int) {
            switch (w.dtype) {
                case DType::F32: return matvec_stream_avx2<DType::F32>(x, m, ldx, w, rows, j0, j1, y, ldy);
                case DType::F16: return matvec_stream_avx2<DType::F16>(x, m, ldx, w, rows, j0, j1, y, ldy);
                case DType::BF16: return matvec_stream_avx2<DType::BF16>(x, m, ldx, w, rows, j0, j1, y, ldy);
                case DType::Q8_0:
                case DType::I8:
                case DType::I32: return;  // refused by matmul_wt
            }
        });
        return;
    }
#endif
    const size_t n_panels = (n + kPanelRows - 1) / kPanelRows;
    pool.parallel_for(n_panels, 1, [&](size_t p0, size_t p1, int) {
        thread_local std::vector<float> panel;
        panel.resize(kPanelRows * k);
        float tile_out[3 * 4];
        for (size_t p = p0; p < p1; ++p) {
            const size_t j0 = p * kPanelRows, nj = std::min(kPanelRows, n - j0);
            for (size_t j = 0; j < nj; ++j) load_row(w, rows ? size_t(rows[j0 + j]) : j0 + j, panel.data() + j * k);
#if CARBON_X86
            if (avx2) {
                for (size_t i = 0; i < m; i += 3) {
                    const size_t mt = std::min<size_t>(3, m - i);
                    for (size_t j = 0; j < nj; j += 4) {
                        const size_t nt = std::min<size_t>(4, nj - j);
                        tile_3x4(x + i * ldx, ldx, panel.data() + j * k, k, mt, nt, tile_out, 4);
                        for (size_t a = 0; a < mt; ++a)
                            for (size_t b = 0; b < nt; ++b) y[(i + a) * ldy + j0 + j + b] = tile_out[a * 4 + b];
                    }
                }
                continue;
            }
#endif
            for (size_t i = 0; i < m; ++i)
                for (size_t j = 0; j < nj; ++j) y[i * ldy + j0 + j] = dot_scalar(x + i * ldx, panel.data() + j * k, k);
        }
    });
}

}  // namespace

Isa fp32_isa() {
    static const Isa isa = best_fp32_isa();
    return isa;
}

void matmul_wt(ThreadPool& pool, Isa isa, const float* x, size_t m, size_t ldx, const WeightMatrix& w,
               const int32_t* rows, size_t n, float* y, size_t ldy) {
    if (m == 0 || n == 0) return;
    if (w.dtype == DType::Q8_0)
        throw Error("a Q8_0 weight matrix reached the float matmul (it runs through the q8_0 kernels); this is a bug");
    const Isa path = isa_for_dtype(isa, w.dtype);
    switch (path) {
        case Isa::Amx:
        case Isa::Avx512Bf16: {
            thread_local detail::Bf16Rows xb;
            detail::round_rows_to_bf16(pool, x, m, ldx, w.cols, xb);
            if (path == Isa::Amx) detail::matmul_amx(pool, xb, w, rows, n, y, ldy);
            else detail::matmul_avx512_bf16(pool, xb, w, rows, n, y, ldy);
            return;
        }
        case Isa::Avx512: return detail::matmul_avx512(pool, x, m, ldx, w, rows, n, y, ldy);
        case Isa::Avx2: return matmul_avx2_or_portable(pool, true, x, m, ldx, w, rows, n, y, ldy);
        case Isa::Portable: return matmul_avx2_or_portable(pool, false, x, m, ldx, w, rows, n, y, ldy);
    }
}

void matmul_wt(ThreadPool& pool, const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
               size_t n, float* y, size_t ldy) {
    matmul_wt(pool, fp32_isa(), x, m, ldx, w, rows, n, y, ldy);
}

void rmsnorm(const float* x, const void* weight, DType weight_dtype, size_t n, float eps, float* out, Isa isa) {
    if (isa_has_avx512(isa)) return detail::rmsnorm_avx512(x, weight, weight_dtype, n, eps, out);
    double ss = 0.0;  // transformers accumulates the mean in fp32; double here only tightens it
    for (size_t i = 0; i < n; ++i) ss += double(x[i]) * double(x[i]);
    const float inv = 1.0f / std::sqrt(float(ss / double(n)) + eps);
    for (size_t i = 0; i < n; ++i) out[i] = load_as_f32(weight, weight_dtype, i) * (x[i] * inv);
}

void silu_mul(float* gate, const float* up, size_t n, Isa isa) {
    if (isa_has_avx512(isa)) return detail::silu_mul_avx512(gate, up, n);
    for (size_t i = 0; i < n; ++i) {
        const float g = gate[i];
        gate[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

void add_bias(float* y, size_t m, size_t ldy, const void* bias, DType dtype, size_t n) {
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) y[i * ldy + j] += load_as_f32(bias, dtype, j);
}

}  // namespace carbon::cpu
