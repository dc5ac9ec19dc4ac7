// The SIMD kernels of the 8-bit weights (cpu_q8.h): AVX2 (vpmaddubsw + vpmaddwd) and AVX-512 VNNI
// (vpdpbusd). Both take each activation as its magnitude (uint8) and move its sign onto the weight,
// so the unsigned-by-signed products are the signed ones, never saturating (|a| <= 127, |w| <= 127);
// the int32 lanes then hold exactly the reference's four-product sums, and the fp32 steps are the
// reference's (one rounding for the scale product, one fused multiply-add per lane and group, the
// same tree at the end): the same bits as matmul_q8_reference on every size.
#include "cpu_q8.h"

#if defined(__x86_64__)
#include "x86_intrinsics.h"

#define CARBON_Q8_AVX2 __attribute__((target("avx2,fma")))
#define CARBON_Q8_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma")))

namespace carbon::cpu::detail {

namespace {

// 32 sign bits as 32 bytes, 0xFF where set.
CARBON_Q8_AVX2 inline __m256i bytes_of_bits(uint32_t bits) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), spread);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
}

CARBON_Q8_AVX2 float dot_avx2(const Q8Rows& x, size_t i, const Q8Matrix& w, size_t r) {
    const auto [mag, neg, xs, wq, ws] = q8_operands(x, i, w, r);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t g = 0; g < x.groups; ++g) {
        const __m256i sel = bytes_of_bits(uint32_t(neg[g / 2] >> ((g % 2) * kQ8Group)));
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wq + g * kQ8Group));
        const __m256i wn = _mm256_sub_epi8(_mm256_xor_si256(wv, sel), sel);  // -w where the activation is negative
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mag + g * kQ8Group));
        const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(a, wn), ones);
        const float s = xs[g] * ws[g];
        acc[g % 2] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(s), acc[g % 2]);
    }
    float lanes[16];
    _mm256_storeu_ps(lanes, acc[0]);
    _mm256_storeu_ps(lanes + 8, acc[1]);
    return q8_reduce(lanes);
}

CARBON_Q8_VNNI float dot_vnni(const Q8Rows& x, size_t i, const Q8Matrix& w, size_t r) {
    const auto [mag, neg, xs, wq, ws] = q8_operands(x, i, w, r);
    const __m512i zero = _mm512_setzero_si512();
    __m512 acc = _mm512_setzero_ps();
    for (size_t p = 0; p < x.groups / 2; ++p) {
        const __m512i wv = _mm512_loadu_si512(wq + 2 * p * kQ8Group);
        const __m512i wn = _mm512_mask_sub_epi8(wv, __mmask64(neg[p]), zero, wv);
        const __m512i a = _mm512_loadu_si512(mag + 2 * p * kQ8Group);
        const __m512i d = _mm512_dpbusd_epi32(zero, a, wn);  // lanes 0-7: group 2p, 8-15: group 2p + 1
        const float s0 = xs[2 * p] * ws[2 * p], s1 = xs[2 * p + 1] * ws[2 * p + 1];
        const __m512 s = _mm512_mask_blend_ps(__mmask16(0xFF00), _mm512_set1_ps(s0), _mm512_set1_ps(s1));
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), s, acc);
    }
    float lanes[16];
    _mm512_storeu_ps(lanes, acc);
    return q8_reduce(lanes);
}

template <typename Dot>
void over_outputs(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y, size_t ldy, Dot dot) {
    pool.parallel_for(n, 16, [&](size_t begin, size_t end, int) {
        for (size_t j = begin; j < end; ++j) {
            const size_t r = rows ? size_t(rows[j]) : j;
            for (size_t i = 0; i < x.m; ++i) y[i * ldy + j] = dot(x, i, w, r);
        }
    });
}

}  // namespace

void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y, size_t ldy) {
    over_outputs(pool, x, w, rows, n, y, ldy, dot_avx2);
}

void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y,
                           size_t ldy) {
    over_outputs(pool, x, w, rows, n, y, ldy, dot_vnni);
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {

void matmul_q8_avx2(ThreadPool&, const Q8Rows&, const Q8Matrix&, const int32_t*, size_t, float*, size_t) {
    throw Error("the avx2 int8 kernel is x86-64 only");
}
void matmul_q8_avx512_vnni(ThreadPool&, const Q8Rows&, const Q8Matrix&, const int32_t*, size_t, float*, size_t) {
    throw Error("the avx512-vnni int8 kernel is x86-64 only");
}

}  // namespace carbon::cpu::detail

#endif
