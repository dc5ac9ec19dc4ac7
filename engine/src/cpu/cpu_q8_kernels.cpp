// The vector kernels of the 8-bit weights (cpu_q8.h): AVX-512 VNNI and AVX2, and the AVX-512
// quantisation of activation rows.
//
// Both kernels broadcast four activation bytes against a panel's 64-byte word of 16 weight rows (no
// horizontal sums; each weight word loaded once per block of up to eight activation rows) and keep
// one fp32 accumulator lane per output. VNNI: vpdpbusd of the biased (unsigned) weights and the
// signed activations, started from the row's -128 x group sum, so the int32 lane ends exactly at
// the group's dot product. AVX2: the weights unbiased, the activation's sign moved onto them
// (vpsignb) and its magnitude multiplied in (vpmaddubsw: |pair sum| <= 2 x 127 x 127, never
// saturating). Then, per group, float(D) x (xs x ws) added with one fused multiply-add, as the
// reference does: the same bits as matmul_q8_reference on every size.
#include "cpu_q8.h"

#if defined(__x86_64__)
#include <cfloat>
#include <cmath>
#include <cstring>

#include "x86_intrinsics.h"

#define CARBON_Q8_AVX2 __attribute__((target("avx2,fma,f16c")))
#define CARBON_Q8_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
#define CARBON_Q8_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace carbon::cpu::detail {

namespace {

constexpr size_t kRowBlock = 8;  // activation rows per pass over a panel

inline int32_t load_quad(const int8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Rows i0 .. i0 + MR of panel p into y (the first `cols` of its 16 columns).
template <size_t MR>
CARBON_Q8_VNNI void rows_vnni(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, __mmask16 cols) {
    const size_t G = w.groups;
    __m512 acc[MR];
    for (size_t r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
    for (size_t g = 0; g < G; ++g) {
        const uint8_t* b = w.block(p, g);
        __m512i wv[8];
        for (size_t t = 0; t < 8; ++t) wv[t] = _mm512_load_si512(b + 64 * t);
        const __m512 ws = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.block_scales(p, g))));
        for (size_t r = 0; r < MR; ++r) {
            const size_t i = i0 + r;
            const int8_t* xq = x.group(i, g);
            __m512i d = _mm512_set1_epi32(x.bias[i * G + g]);
            for (size_t t = 0; t < 8; ++t) d = _mm512_dpbusd_epi32(d, wv[t], _mm512_set1_epi32(load_quad(xq + 4 * t)));
            const __m512 s = _mm512_mul_ps(_mm512_set1_ps(x.scales[i * G + g]), ws);
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), s, acc[r]);
        }
        if (g + 4 < G) _mm_prefetch(reinterpret_cast<const char*>(w.block(p, g + 4)), _MM_HINT_T0);
    }
    for (size_t r = 0; r < MR; ++r) _mm512_mask_storeu_ps(y + (i0 + r) * ldy + p * kQ8Panel, cols, acc[r]);
}

template <size_t MR>
CARBON_Q8_AVX2 void rows_avx2(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
    const size_t G = w.groups;
    const __m256i bias = _mm256_set1_epi8(char(0x80)), ones = _mm256_set1_epi16(1);
    __m256 acc[MR][2];
    for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (size_t g = 0; g < G; ++g) {
        const uint8_t* b = w.block(p, g);
        const __m128i ws16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.block_scales(p, g)));
        const __m128i ws16_hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.block_scales(p, g) + 8));
        const __m256 ws[2] = {_mm256_cvtph_ps(ws16), _mm256_cvtph_ps(ws16_hi)};
        for (size_t r = 0; r < MR; ++r) {
            const size_t i = i0 + r;
            const int8_t* xq = x.group(i, g);
            __m256i d[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
            for (size_t t = 0; t < 8; ++t) {
                const __m256i xv = _mm256_set1_epi32(load_quad(xq + 4 * t));
                const __m256i ax = _mm256_abs_epi8(xv);
                for (size_t h = 0; h < 2; ++h) {
                    const __m256i wv = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(b + 64 * t + 32 * h)), bias);
                    const __m256i pr = _mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv));
                    d[h] = _mm256_add_epi32(d[h], _mm256_madd_epi16(pr, ones));
                }
            }
            const __m256 xs = _mm256_set1_ps(x.scales[i * G + g]);
            for (size_t h = 0; h < 2; ++h) acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d[h]), _mm256_mul_ps(xs, ws[h]), acc[r][h]);
        }
    }
    for (size_t r = 0; r < MR; ++r) {
        float out[16];
        _mm256_storeu_ps(out, acc[r][0]);
        _mm256_storeu_ps(out + 8, acc[r][1]);
        std::memcpy(y + (i0 + r) * ldy + p * kQ8Panel, out, cols * sizeof(float));
    }
}

// Every panel of the pool's share, each over the rows in blocks of kRowBlock (a panel's blocks
// stay in the caches while the rows pass over them).
template <typename Rows>
void over_panels(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, Rows rows) {
    pool.parallel_for(w.panels, 1, [&](size_t begin, size_t end, int) {
        for (size_t p = begin; p < end; ++p) {
            const size_t cols = std::min(kQ8Panel, w.rows - p * kQ8Panel);
            for (size_t i0 = 0; i0 < x.m; i0 += kRowBlock) rows(i0, std::min(kRowBlock, x.m - i0), p, cols);
        }
    });
}

template <template <size_t> class Fn, typename... Args>
void dispatch_rows(size_t mr, Args&&... args) {
    switch (mr) {
        case 1: return Fn<1>::run(args...);
        case 2: return Fn<2>::run(args...);
        case 3: return Fn<3>::run(args...);
        case 4: return Fn<4>::run(args...);
        case 5: return Fn<5>::run(args...);
        case 6: return Fn<6>::run(args...);
        case 7: return Fn<7>::run(args...);
        default: return Fn<8>::run(args...);
    }
}

template <size_t MR>
struct VnniRows {
    static void run(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
        rows_vnni<MR>(x, i0, w, p, y, ldy, __mmask16((1u << cols) - 1));
    }
};
template <size_t MR>
struct Avx2Rows {
    static void run(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
        rows_avx2<MR>(x, i0, w, p, y, ldy, cols);
    }
};

}  // namespace

void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    over_panels(pool, x, w, [&](size_t i0, size_t mr, size_t p, size_t cols) { dispatch_rows<VnniRows>(mr, x, i0, w, p, y, ldy, cols); });
}

void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    over_panels(pool, x, w, [&](size_t i0, size_t mr, size_t p, size_t cols) { dispatch_rows<Avx2Rows>(mr, x, i0, w, p, y, ldy, cols); });
}

// As quantize_row in cpu_q8.cpp: the same maximum, the same scalar scale and inverse, the same
// products rounded to nearest even (vcvtps2dq under the default rounding) and clamped.
CARBON_Q8_AVX512 bool quantize_row_q8_avx512(const float* x, size_t k, size_t groups, int8_t* q, size_t group_stride, int32_t* bias,
                                             float* scales) {
    const __m512 big = _mm512_set1_ps(FLT_MAX);
    const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
    for (size_t g = 0; g < groups; ++g) {
        const size_t c0 = g * kQ8Group, n = std::min(kQ8Group, k - c0);
        const __mmask16 m0 = __mmask16(n >= 16 ? 0xFFFF : (1u << n) - 1), m1 = __mmask16(n >= 32 ? 0xFFFF : n > 16 ? (1u << (n - 16)) - 1 : 0);
        const __m512 v0 = _mm512_maskz_loadu_ps(m0, x + c0), v1 = _mm512_maskz_loadu_ps(m1, x + c0 + 16);
        const __m512 a0 = _mm512_abs_ps(v0), a1 = _mm512_abs_ps(v1);
        const bool finite = (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) | _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ)) == 0;
        const float amax = _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
        const float inv = 127.f / amax;
        int8_t* qg = q + g * group_stride;
        if (!finite || !(amax > 0.f) || !std::isfinite(inv)) {
            std::memset(qg, 0, kQ8Group);
            scales[g] = finite ? 0.f : std::nanf("");
            bias[g] = 0;
            continue;
        }
        scales[g] = amax / 127.f;
        const __m512 iv = _mm512_set1_ps(inv);
        const __m512i q0 = _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(_mm512_mul_ps(v0, iv))));
        const __m512i q1 = _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(_mm512_mul_ps(v1, iv))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(qg), _mm512_cvtepi32_epi8(q0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(qg + 16), _mm512_cvtepi32_epi8(q1));
        bias[g] = -128 * _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
    }
    return true;
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {

void matmul_q8_avx2(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) { throw Error("the avx2 int8 kernel is x86-64 only"); }
void matmul_q8_avx512_vnni(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) {
    throw Error("the avx512-vnni int8 kernel is x86-64 only");
}
bool quantize_row_q8_avx512(const float*, size_t, size_t, int8_t*, size_t, int32_t*, float*) { return false; }

}  // namespace carbon::cpu::detail

#endif
