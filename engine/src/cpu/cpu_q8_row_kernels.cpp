// The vector kernels of the 8-bit weights' rows scheme (cpu_q8.h): AVX-512 VNNI and AVX2. As the
// groups scheme's (cpu_q8_kernels.cpp), four activation bytes are broadcast against a panel's
// 64-byte word of 16 weight rows, but each output's int32 lane runs over the whole of k (exact, so
// a row may split it over several accumulators and add them in any order) and is taken into fp32
// once: float(D) x (xs x ws). The same bits as matmul_q8_reference on every size.
#include "cpu_q8.h"
#include "cpu_q8_panels.h"

#if defined(__x86_64__)
#include <cstring>

#include "x86_intrinsics.h"


namespace carbon::cpu::detail {

namespace {

// Rows i0 .. i0 + MR of panel p; A int32 accumulators per row (more when there are fewer rows, so
// that decode is not bound by vpdpbusd's latency).
template <size_t MR, size_t A>
CARBON_Q8_VNNI void rows_vnni(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, __mmask16 cols) {
    __m512i acc[MR][A];
    for (size_t r = 0; r < MR; ++r) {
        acc[r][0] = _mm512_set1_epi32(x.bias[i0 + r]);
        for (size_t a = 1; a < A; ++a) acc[r][a] = _mm512_setzero_si512();
    }
    for (size_t g = 0; g < w.groups; ++g) {
        const uint8_t* b = w.block(p, g);
        __m512i wv[8];
        for (size_t t = 0; t < 8; ++t) wv[t] = _mm512_load_si512(b + 64 * t);
        for (size_t r = 0; r < MR; ++r) {
            const int8_t* xq = x.group(i0 + r, g);
            for (size_t t = 0; t < 8; ++t) acc[r][t % A] = _mm512_dpbusd_epi32(acc[r][t % A], wv[t], _mm512_set1_epi32(q8_quad(xq + 4 * t)));
        }
        if (g + 4 < w.groups) _mm_prefetch(reinterpret_cast<const char*>(w.block(p, g + 4)), _MM_HINT_T0);
    }
    const __m512 ws = _mm512_loadu_ps(w.panel_scales(p));
    for (size_t r = 0; r < MR; ++r) {
        __m512i d = acc[r][0];
        for (size_t a = 1; a < A; ++a) d = _mm512_add_epi32(d, acc[r][a]);
        const __m512 s = _mm512_mul_ps(_mm512_set1_ps(x.scales[i0 + r]), ws);
        _mm512_mask_storeu_ps(y + (i0 + r) * ldy + p * kQ8Panel, cols, _mm512_mul_ps(_mm512_cvtepi32_ps(d), s));
    }
}

template <size_t MR>
CARBON_Q8_AVX2 void rows_avx2(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
    const __m256i bias = _mm256_set1_epi8(char(0x80)), ones = _mm256_set1_epi16(1);
    __m256i acc[MR][2];
    for (size_t r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    for (size_t g = 0; g < w.groups; ++g) {
        const uint8_t* b = w.block(p, g);
        for (size_t r = 0; r < MR; ++r) {
            const int8_t* xq = x.group(i0 + r, g);
            for (size_t t = 0; t < 8; ++t) {
                const __m256i xv = _mm256_set1_epi32(q8_quad(xq + 4 * t));
                const __m256i ax = _mm256_abs_epi8(xv);
                for (size_t h = 0; h < 2; ++h) {
                    const __m256i wv = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(b + 64 * t + 32 * h)), bias);
                    acc[r][h] = _mm256_add_epi32(acc[r][h], _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv)), ones));
                }
            }
        }
    }
    for (size_t r = 0; r < MR; ++r) {
        const __m256 xs = _mm256_set1_ps(x.scales[i0 + r]);
        float out[16];
        for (size_t h = 0; h < 2; ++h)
            _mm256_storeu_ps(out + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][h]), _mm256_mul_ps(xs, _mm256_loadu_ps(w.panel_scales(p) + 8 * h))));
        std::memcpy(y + (i0 + r) * ldy + p * kQ8Panel, out, cols * sizeof(float));
    }
}

template <size_t MR>
void vnni(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
    rows_vnni<MR, MR <= 2 ? 4 : MR <= 4 ? 2 : 1>(x, i0, w, p, y, ldy, __mmask16((1u << cols) - 1));
}

}  // namespace

void matmul_q8_rows_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    static constexpr Q8PanelRows by_rows[] = {vnni<1>, vnni<2>, vnni<3>, vnni<4>, vnni<5>, vnni<6>, vnni<7>, vnni<8>};
    q8_over_panels(pool, x, w, by_rows, y, ldy);
}

void matmul_q8_rows_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    static constexpr Q8PanelRows by_rows[] = {rows_avx2<1>, rows_avx2<2>, rows_avx2<3>, rows_avx2<4>,
                                              rows_avx2<5>, rows_avx2<6>, rows_avx2<7>, rows_avx2<8>};
    q8_over_panels(pool, x, w, by_rows, y, ldy);
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void matmul_q8_rows_avx2(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) { throw Error("the avx2 int8 kernel is x86-64 only"); }
void matmul_q8_rows_avx512_vnni(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) {
    throw Error("the avx512-vnni int8 kernel is x86-64 only");
}
}  // namespace carbon::cpu::detail

#endif
