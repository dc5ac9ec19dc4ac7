// The AVX-512 fp32-activation matmul path (cpu_matmul_paths.h), with 16-lane FMA accumulators, and
// the AVX-512 RMSNorm and SiLU. (The bf16 path is cpu_matmul_avx512_bf16.cpp.)
//
// One micro-kernel shape serves every batch: MT activation rows against NT weight rows,
// one accumulator per output, read straight from the weights in their stored dtype (no packing,
// no copy). Each output is summed in the same order whatever MT, NT, the thread or the block it
// falls in (the chunks of k in order, the last chunk masked, then one horizontal sum), so a row's
// result never depends on the other rows: decode, prefill and speculative verification agree bit
// for bit. Rows are taken in blocks of kRowBlock so a block's activations stay in L2 while the
// weights stream past.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_matmul_paths.h"

#if defined(__x86_64__)
#include "avx512_math.h"

namespace carbon::cpu::detail {

namespace {

constexpr size_t kRowBlock = 64;  // activation rows per block (64 x 3,072 fp32 = 768 KB: L2)

template <DType T>
CARBON_AVX512 inline __m512 load16(const void* base, size_t i, __mmask16 mask) {
    if constexpr (T == DType::F32) {
        return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(base) + i);
    } else {
        const __m256i h = _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(base) + i);
        if constexpr (T == DType::BF16) return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
        else return _mm512_cvtph_ps(h);
    }
}

// MT activation rows x NT weight rows, fp32 activations: acc[i][j] += x_i[c..c+16) * w_j[c..c+16)
// over the 16-wide chunks in order, the tail chunk masked, then one horizontal sum each.
template <DType T, int MT, int NT>
CARBON_AVX512 inline __attribute__((always_inline)) void step_f32(__m512 (&acc)[MT][NT], const float* const* x,
                                                                  const uint8_t* const* w, size_t c, __mmask16 mask) {
    __m512 xv[MT];
    for (int i = 0; i < MT; ++i) xv[i] = _mm512_maskz_loadu_ps(mask, x[i] + c);
    for (int j = 0; j < NT; ++j) {
        const __m512 wv = load16<T>(w[j], c, mask);
        for (int i = 0; i < MT; ++i) acc[i][j] = _mm512_fmadd_ps(xv[i], wv, acc[i][j]);
    }
}

template <DType T, int MT, int NT>
CARBON_AVX512 void tile_f32(const float* const* x, const uint8_t* const* w, size_t k, float* const* y, int mt, int nt) {
    __m512 acc[MT][NT];
    for (auto& r : acc)
        for (auto& a : r) a = _mm512_setzero_ps();
    const size_t kv = k & ~size_t(15);
    for (size_t c = 0; c < kv; c += 16) step_f32<T, MT, NT>(acc, x, w, c, __mmask16(0xffff));
    if (kv < k) step_f32<T, MT, NT>(acc, x, w, kv, __mmask16((1u << (k - kv)) - 1));
    for (int i = 0; i < mt; ++i)
        for (int j = 0; j < nt; ++j) y[i][j] = _mm512_reduce_add_ps(acc[i][j]);
}

// Walks the output in blocks: a thread takes a range of weight-row panels (NT rows each) and, for
// each block of kRowBlock activation rows, runs every panel of its range against the block, MT
// rows at a time. `kernel(i, mt, j, nt)` computes the micro-tile of activation rows i .. i + mt - 1
// against weight rows j .. j + nt - 1.
template <typename Kernel>
void walk(ThreadPool& pool, size_t m, size_t n, size_t nt_max, size_t mt_max, const Kernel& kernel) {
    const size_t panels = (n + nt_max - 1) / nt_max;
    pool.parallel_for(panels, panel_grain(pool, panels), [&](size_t p0, size_t p1, int) {
        for (size_t i0 = 0; i0 < m; i0 += kRowBlock) {
            const size_t i1 = std::min(m, i0 + kRowBlock);
            for (size_t p = p0; p < p1; ++p) {
                const size_t j = p * nt_max, nt = std::min(nt_max, n - j);
                for (size_t i = i0; i < i1; i += mt_max) kernel(i, std::min(mt_max, i1 - i), j, nt);
            }
        }
    });
}

template <DType T>
void matmul_avx512_t(ThreadPool& pool, const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
                     size_t n, float* y, size_t ldy) {
    const size_t k = w.cols, row_bytes = k * dtype_size(T);
    const bool narrow = m <= 2;  // decode: more weight rows in flight, fewer activation rows
    const size_t nt_max = narrow ? 8 : 6, mt_max = narrow ? 2 : 4;
    walk(pool, m, n, nt_max, mt_max, [&](size_t i, size_t mt, size_t j, size_t nt) {
        const uint8_t* wr[8];
        panel_rows(static_cast<const uint8_t*>(w.data), rows, row_bytes, j, nt, nt_max, wr);
        const float* xr[4];
        float* yr[4];
        for (size_t r = 0; r < mt_max; ++r) {
            const size_t ii = i + std::min(r, mt - 1);
            xr[r] = x + ii * ldx;
            yr[r] = y + ii * ldy + j;
        }
        const int a = int(mt), b = int(nt);
        if (narrow) {
            if (mt == 1) tile_f32<T, 1, 8>(xr, wr, k, yr, a, b);
            else tile_f32<T, 2, 8>(xr, wr, k, yr, a, b);
        } else {
            switch (mt) {
                case 1: tile_f32<T, 1, 6>(xr, wr, k, yr, a, b); break;
                case 2: tile_f32<T, 2, 6>(xr, wr, k, yr, a, b); break;
                case 3: tile_f32<T, 3, 6>(xr, wr, k, yr, a, b); break;
                default: tile_f32<T, 4, 6>(xr, wr, k, yr, a, b); break;
            }
        }
    });
}

}  // namespace

CARBON_AVX512 void rmsnorm_avx512(const float* x, const void* weight, DType weight_dtype, size_t n, float eps,
                                  float* out) {
    __m512d ss0 = _mm512_setzero_pd(), ss1 = _mm512_setzero_pd();  // squares summed in double, 16 lanes
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 mask = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(mask, x + i);
        const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        const __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        ss0 = _mm512_fmadd_pd(lo, lo, ss0);
        ss1 = _mm512_fmadd_pd(hi, hi, ss1);
    }
    const double ss = _mm512_reduce_add_pd(_mm512_add_pd(ss0, ss1));
    const __m512 inv = _mm512_set1_ps(1.0f / std::sqrt(float(ss / double(n)) + eps));
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 mask = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
        __m512 w;
        switch (weight_dtype) {
            case DType::F32: w = load16<DType::F32>(weight, i, mask); break;
            case DType::F16: w = load16<DType::F16>(weight, i, mask); break;
            default: w = load16<DType::BF16>(weight, i, mask); break;
        }
        _mm512_mask_storeu_ps(out + i, mask, _mm512_mul_ps(w, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), inv)));
    }
}

CARBON_AVX512 void silu_mul_avx512(float* gate, const float* up, size_t n) {
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 mask = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
        const __m512 g = _mm512_maskz_loadu_ps(mask, gate + i);
        const __m512 e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), g));
        const __m512 s = _mm512_div_ps(g, _mm512_add_ps(_mm512_set1_ps(1.f), e));
        _mm512_mask_storeu_ps(gate + i, mask, _mm512_mul_ps(s, _mm512_maskz_loadu_ps(mask, up + i)));
    }
}

void matmul_avx512(ThreadPool& pool, const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
                   size_t n, float* y, size_t ldy) {
    switch (w.dtype) {
        case DType::F32: return matmul_avx512_t<DType::F32>(pool, x, m, ldx, w, rows, n, y, ldy);
        case DType::F16: return matmul_avx512_t<DType::F16>(pool, x, m, ldx, w, rows, n, y, ldy);
        case DType::BF16: return matmul_avx512_t<DType::BF16>(pool, x, m, ldx, w, rows, n, y, ldy);
        case DType::Q8_0:
        case DType::I8:
        case DType::I32: return;  // refused by matmul_wt
    }
}

}  // namespace carbon::cpu::detail

#else  // not x86-64: the dispatcher never selects these paths (isa_supported is false)

namespace carbon::cpu::detail {
void matmul_avx512(ThreadPool&, const float*, size_t, size_t, const WeightMatrix&, const int32_t*, size_t, float*,
                   size_t) {
    throw Error("AVX-512 kernels are not built for this architecture");
}
void silu_mul_avx512(float*, const float*, size_t) { throw Error("AVX-512 kernels are not built for this architecture"); }
void rmsnorm_avx512(const float*, const void*, DType, size_t, float, float*) {
    throw Error("AVX-512 kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif
