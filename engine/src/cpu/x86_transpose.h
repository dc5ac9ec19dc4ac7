// A 16 x 16 transpose of 32-bit elements held in 16 zmm registers (row i in r[i]), shared by the
// AVX-512 BF16 path (weight pairs into lanes) and the AMX path (tile results into rows of y).
#pragma once

#if defined(__x86_64__)
#include "x86_intrinsics.h"

namespace carbon::cpu::detail {

// Unpacks within 128-bit lanes, then moves lanes: 64 shuffles.
__attribute__((target("avx512f"))) inline void transpose16(__m512 (&r)[16]) {
    __m512 t[16], u[16];
    for (int k = 0; k < 8; ++k) {
        t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 4; ++k) {
        const __m512d a = _mm512_castps_pd(t[4 * k]), b = _mm512_castps_pd(t[4 * k + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * k + 2]), d = _mm512_castps_pd(t[4 * k + 3]);
        u[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));      // element 4L + 0 of rows 4k..4k+3
        u[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));  // 4L + 1
        u[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));  // 4L + 2
        u[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));  // 4L + 3
    }
    for (int c = 0; c < 4; ++c) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88), w0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);
        const __m512 v1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88), w1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
        r[c] = _mm512_shuffle_f32x4(v0, v1, 0x88);
        r[8 + c] = _mm512_shuffle_f32x4(v0, v1, 0xdd);
        r[4 + c] = _mm512_shuffle_f32x4(w0, w1, 0x88);
        r[12 + c] = _mm512_shuffle_f32x4(w0, w1, 0xdd);
    }
}

}  // namespace carbon::cpu::detail
#endif
