// The vector kernels of the 8-bit weights (cpu_q8.h): AVX-512 VNNI and AVX2, and the AVX-512
// quantisation of activation rows.
//
// The groups scheme. Both kernels broadcast four activation bytes against a panel's 64-byte word
// of 16 weight rows (no horizontal sums; each weight word loaded once per block of up to eight
// activation rows, cpu_q8_panels.h) and keep
// one fp32 accumulator lane per output. VNNI: vpdpbusd of the biased (unsigned) weights and the
// signed activations, started from the row's -128 x group sum, so the int32 lane ends exactly at
// the group's dot product. AVX2: the weights unbiased, the activation's sign moved onto them
// (vpsignb) and its magnitude multiplied in (vpmaddubsw: |pair sum| <= 2 x 127 x 127, never
// saturating). Then, per group, float(D) x (xs x ws) added with one fused multiply-add, as the
// reference does: the same bits as matmul_q8_reference on every size.
#include "cpu_q8.h"
#include "cpu_q8_panels.h"

#if defined(__x86_64__)
#include <cfloat>
#include <cmath>
#include <cstring>

#include "x86_intrinsics.h"

#define CARBON_Q8_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))

namespace carbon::cpu::detail {

namespace {

// Rows i0 .. i0 + MR of panel p into y (the first `cols` of its 16 columns); A int32 accumulators
// per row and group (more when there are fewer rows, so that decode is not bound by vpdpbusd's
// latency; their sum is exact).
template <size_t MR, size_t A>
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
            __m512i d[A];
            d[0] = _mm512_set1_epi32(x.bias[x.scale_index(i, g)]);
            for (size_t a = 1; a < A; ++a) d[a] = _mm512_setzero_si512();
            for (size_t t = 0; t < 8; ++t) d[t % A] = _mm512_dpbusd_epi32(d[t % A], wv[t], _mm512_set1_epi32(q8_quad(xq + 4 * t)));
            for (size_t a = 1; a < A; ++a) d[0] = _mm512_add_epi32(d[0], d[a]);
            const __m512 s = _mm512_mul_ps(_mm512_set1_ps(x.scales[x.scale_index(i, g)]), ws);
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d[0]), s, acc[r]);
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
                const __m256i xv = _mm256_set1_epi32(q8_quad(xq + 4 * t));
                const __m256i ax = _mm256_abs_epi8(xv);
                for (size_t h = 0; h < 2; ++h) {
                    const __m256i wv = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(b + 64 * t + 32 * h)), bias);
                    const __m256i pr = _mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv));
                    d[h] = _mm256_add_epi32(d[h], _mm256_madd_epi16(pr, ones));
                }
            }
            const __m256 xs = _mm256_set1_ps(x.scales[x.scale_index(i, g)]);
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

template <size_t MR>
void vnni(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols) {
    rows_vnni<MR, MR <= 2 ? 2 : 1>(x, i0, w, p, y, ldy, __mmask16((1u << cols) - 1));
}

}  // namespace

void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    static constexpr Q8PanelRows by_rows[] = {vnni<1>, vnni<2>, vnni<3>, vnni<4>, vnni<5>, vnni<6>, vnni<7>, vnni<8>};
    q8_over_panels(pool, x, w, by_rows, y, ldy);
}

void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    static constexpr Q8PanelRows by_rows[] = {rows_avx2<1>, rows_avx2<2>, rows_avx2<3>, rows_avx2<4>,
                                              rows_avx2<5>, rows_avx2<6>, rows_avx2<7>, rows_avx2<8>};
    q8_over_panels(pool, x, w, by_rows, y, ldy);
}

// The quantisers' instruction-set parts (q8_quantize_row, cpu_q8.h), the portable bits: the maxima
// exact, the products rounded to nearest even by vcvtps2dq under the default rounding, the clamp.
namespace {

struct Avx512Ops {
    const float* x;
    size_t k;
    // Group g's two halves' lanes that lie before k.
    void masks(size_t g, __mmask16& m0, __mmask16& m1) const {
        const size_t c0 = g * kQ8Group, n = c0 < k ? std::min(kQ8Group, k - c0) : 0;
        m0 = __mmask16(n >= 16 ? 0xFFFF : (1u << n) - 1);
        m1 = __mmask16(n >= 32 ? 0xFFFF : n > 16 ? (1u << (n - 16)) - 1 : 0);
    }
    CARBON_Q8_AVX512 bool max(size_t g, float& amax) const {
        __mmask16 m0, m1;
        masks(g, m0, m1);
        const __m512 big = _mm512_set1_ps(FLT_MAX);
        const __m512 a0 = _mm512_abs_ps(_mm512_maskz_loadu_ps(m0, x + g * kQ8Group));
        const __m512 a1 = _mm512_abs_ps(_mm512_maskz_loadu_ps(m1, x + g * kQ8Group + 16));
        amax = _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
        return (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) | _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ)) == 0;
    }
    // Group g's values at inv, rounded and clamped, stored as bytes at q; their sums per lane.
    CARBON_Q8_AVX512 __m512i quantize_lanes(size_t g, __m512 iv, int8_t* q) const {
        __mmask16 m0, m1;
        masks(g, m0, m1);
        const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
        const __m512 v0 = _mm512_maskz_loadu_ps(m0, x + g * kQ8Group), v1 = _mm512_maskz_loadu_ps(m1, x + g * kQ8Group + 16);
        const __m512i q0 = _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(_mm512_mul_ps(v0, iv))));
        const __m512i q1 = _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(_mm512_mul_ps(v1, iv))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm512_cvtepi32_epi8(q0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 16), _mm512_cvtepi32_epi8(q1));
        return _mm512_add_epi32(q0, q1);
    }
    CARBON_Q8_AVX512 int32_t quantize(size_t g, float inv, int8_t* q) const {
        return _mm512_reduce_add_epi32(quantize_lanes(g, _mm512_set1_ps(inv), q));
    }
    // The rows scheme's two passes over the whole row with one reduction each (q8_quantize_row's
    // fast path): the maximum is exact in any order and the int32 sum exact, so the same bits as
    // group by group.
    CARBON_Q8_AVX512 bool row_max(size_t groups, float& amax) const {
        const __m512 big = _mm512_set1_ps(FLT_MAX);
        __m512 m = _mm512_setzero_ps();
        __mmask16 bad = 0;
        for (size_t g = 0; g < groups; ++g) {
            __mmask16 m0, m1;
            masks(g, m0, m1);
            const __m512 a0 = _mm512_abs_ps(_mm512_maskz_loadu_ps(m0, x + g * kQ8Group));
            const __m512 a1 = _mm512_abs_ps(_mm512_maskz_loadu_ps(m1, x + g * kQ8Group + 16));
            bad |= _mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) | _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ);
            m = _mm512_max_ps(m, _mm512_max_ps(a0, a1));
        }
        amax = _mm512_reduce_max_ps(m);
        return bad == 0;
    }
    CARBON_Q8_AVX512 int32_t quantize_row(size_t groups, float inv, const Q8RowOut& out) const {
        const __m512 iv = _mm512_set1_ps(inv);
        __m512i sum = _mm512_setzero_si512();
        for (size_t g = 0; g < groups; ++g) sum = _mm512_add_epi32(sum, quantize_lanes(g, iv, out.at(g)));
        return _mm512_reduce_add_epi32(sum);
    }
};

struct Avx2Ops {
    const float* x;
    size_t k;
    // Group g's 32 values, zero past k (a ragged group copied out first).
    CARBON_Q8_AVX2 void load(size_t g, __m256 (&v)[4]) const {
        const size_t c0 = g * kQ8Group, n = c0 < k ? std::min(kQ8Group, k - c0) : 0;
        alignas(32) float pad[kQ8Group] = {};
        const float* p = x + c0;
        if (n < kQ8Group) {
            std::memcpy(pad, p, n * sizeof(float));
            p = pad;
        }
        for (size_t h = 0; h < 4; ++h) v[h] = _mm256_loadu_ps(p + 8 * h);
    }
    CARBON_Q8_AVX2 bool max(size_t g, float& amax) const {
        __m256 v[4];
        load(g, v);
        const __m256 sign = _mm256_set1_ps(-0.f), big = _mm256_set1_ps(FLT_MAX);
        __m256 m = _mm256_setzero_ps();
        int bad = 0;
        for (const __m256& e : v) {
            const __m256 a = _mm256_andnot_ps(sign, e);
            bad |= _mm256_movemask_ps(_mm256_cmp_ps(a, big, _CMP_NLE_UQ));
            m = _mm256_max_ps(m, a);
        }
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        amax = _mm_cvtss_f32(_mm_max_ss(h, _mm_shuffle_ps(h, h, 1)));
        return bad == 0;
    }
    CARBON_Q8_AVX2 int32_t quantize(size_t g, float inv, int8_t* q) const {
        __m256 v[4];
        load(g, v);
        const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127);
        const __m256 iv = _mm256_set1_ps(inv);
        __m256i r[4];
        for (size_t h = 0; h < 4; ++h) r[h] = _mm256_min_epi32(hi, _mm256_max_epi32(lo, _mm256_cvtps_epi32(_mm256_mul_ps(v[h], iv))));
        // packs interleave the 128-bit lanes; the permutation puts the 32 bytes back in order.
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3])),
                                                          _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), bytes);
        alignas(32) int32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_add_epi32(_mm256_add_epi32(r[0], r[1]), _mm256_add_epi32(r[2], r[3])));
        int32_t sum = 0;
        for (int32_t l : lanes) sum += l;
        return sum;
    }
};

}  // namespace

bool quantize_row_q8_avx512(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out) {
    q8_quantize_row(Avx512Ops{x, k}, groups, scheme, out);
    return true;
}

bool quantize_row_q8_avx2(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out) {
    q8_quantize_row(Avx2Ops{x, k}, groups, scheme, out);
    return true;
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {

void matmul_q8_avx2(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) { throw Error("the avx2 int8 kernel is x86-64 only"); }
void matmul_q8_avx512_vnni(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) {
    throw Error("the avx512-vnni int8 kernel is x86-64 only");
}
bool quantize_row_q8_avx512(const float*, size_t, size_t, Q8Scheme, const Q8RowOut&) { return false; }
bool quantize_row_q8_avx2(const float*, size_t, size_t, Q8Scheme, const Q8RowOut&) { return false; }

}  // namespace carbon::cpu::detail

#endif
