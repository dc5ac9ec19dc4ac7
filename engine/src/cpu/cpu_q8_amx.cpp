// The AMX-INT8 kernels of the 8-bit weights (cpu_q8_amx_kernel.inc for the groups scheme,
// cpu_q8_amx_rows_kernel.inc for the rows scheme) on the tile registers, their fp32 steps in
// AVX-512.
#include <algorithm>
#include <cstring>

#include "cpu_q8.h"

#if defined(__x86_64__)
#include "amx_tiles.h"

namespace carbon::cpu::detail {

namespace {

// The 16 x 16 sums of a row block and panel, in sixteen registers.
struct Q8AmxAcc {
    __m512 v[16];
    CARBON_TILE8_FN __attribute__((always_inline)) void zero() {
        for (auto& r : v) r = _mm512_setzero_ps();
    }
    CARBON_TILE8_FN __attribute__((always_inline)) void add(const int32_t (*c)[16], const int32_t* bias, const float* xs, size_t stride,
                                                          const uint16_t* ws16) {
        const __m512 ws = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ws16)));
        for (size_t r = 0; r < 16; ++r) {
            const __m512i d = _mm512_add_epi32(_mm512_load_si512(c[r]), _mm512_set1_epi32(bias[r * stride]));
            v[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(_mm512_set1_ps(xs[r * stride]), ws), v[r]);
        }
    }
    CARBON_TILE8_FN __attribute__((always_inline)) void store(float* y, size_t ldy, size_t rows, size_t cols) const {
        const __mmask16 mask = __mmask16((1u << cols) - 1);
        for (size_t r = 0; r < rows; ++r) _mm512_mask_storeu_ps(y + r * ldy, mask, v[r]);
    }
};

CARBON_TILE8_FN inline void q8_rows_finish(const int32_t (*c)[16], const int32_t* bias, const float* xs, const float* ws16, float* y, size_t ldy,
                                           size_t rows, size_t cols) {
    const __m512 ws = _mm512_loadu_ps(ws16);
    const __mmask16 mask = __mmask16((1u << cols) - 1);
    for (size_t r = 0; r < rows; ++r) {
        const __m512i d = _mm512_add_epi32(_mm512_load_si512(c[r]), _mm512_set1_epi32(bias[r]));
        _mm512_mask_storeu_ps(y + r * ldy, mask, _mm512_mul_ps(_mm512_cvtepi32_ps(d), _mm512_mul_ps(_mm512_set1_ps(xs[r]), ws)));
    }
}

}  // namespace

#include "cpu_q8_amx_kernel.inc"
#include "cpu_q8_amx_rows_kernel.inc"

void matmul_q8_amx(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) { run_q8_amx(pool, x, w, y, ldy); }
void matmul_q8_rows_amx(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) { run_q8_amx_rows(pool, x, w, y, ldy); }

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void matmul_q8_amx(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) { throw Error("the amx-int8 kernel is x86-64 only"); }
void matmul_q8_rows_amx(ThreadPool&, const Q8Rows&, const Q8Matrix&, float*, size_t) { throw Error("the amx-int8 kernel is x86-64 only"); }
}  // namespace carbon::cpu::detail

#endif
