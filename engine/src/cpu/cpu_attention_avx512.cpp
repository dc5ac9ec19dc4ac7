// attention_rows (cpu_ops.h) with AVX-512, for long windows (a variant's 8 kb window is 1,366
// tokens; there attention is half of a prefill). The query heads that share a KV head, for a block
// of rows, sit in the 16 lanes of a vector (a "pair" is one (row, head)), so that each key and
// value is read once for all of them and nothing is summed across lanes:
//   scores  s[j][p] = fma chain over d = 0 .. head_dim-1 of k_j[d] * q_p[d], times 1/sqrt(hd);
//   softmax the max over j, exp (exp16, within 3 ulp of expf), the sum over j in order;
//   output  o_p[d] = fma chain over j = 0 .. lim_p of (e[j][p] / sum_p) * v_j[d].
// Each pair's every number is that chain in that order whatever the block, the lane or the other
// pairs (keys past a pair's own position get weight exactly 0 and add nothing), so a row gives the
// same bits in a prefill, alone in a decode step or in a speculative verification: batch
// invariance holds as in the portable path. The sums are in another order than the portable
// path's, so the two agree to rounding, not bit for bit.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu_matmul_paths.h"

#if defined(__x86_64__)
#include "avx512_math.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

namespace {

constexpr size_t kRows = 8;    // rows of an item per task
constexpr size_t kLanes = 16;  // pairs per vector
constexpr size_t kTile = 4;    // pairs per register tile of the output
constexpr size_t kFewPairs = 4;  // at most this many pairs: keys in the lanes for the scores

// Key j's scores for the lanes: scaled, -inf for the pairs that do not see it; the running max.
CARBON_AVX512 inline void store_scores(float* sc, size_t j, __m512 acc, __m512i lim_v, __m512 scale, __m512& m) {
    const __mmask16 live = _mm512_cmp_epi32_mask(_mm512_set1_epi32(int32_t(j)), lim_v, _MM_CMPINT_LE);
    const __m512 v = _mm512_mask_mul_ps(_mm512_set1_ps(-std::numeric_limits<float>::infinity()), live, acc, scale);
    _mm512_storeu_ps(sc + j * kLanes, v);
    m = _mm512_max_ps(m, v);
}

// One task's pairs p0 .. p0 + np - 1 (np <= 16) of the n = rows * group pairs: pair p is row p /
// group, query head g * group + p % group.
CARBON_AVX512 void pairs_avx512(const AttentionShape& shape, const KvBlocks& s, const AttentionTask& task, size_t first, size_t p0,
                                size_t np, const float* q, float* out, std::vector<float>& qt_buf,
                                std::vector<float>& sc_buf) {
    const size_t hd = shape.head_dim, group = shape.n_heads / shape.n_kv_heads, q_stride = shape.n_heads * hd;
    const __m512 scale = _mm512_set1_ps(1.0f / std::sqrt(float(hd)));
    // Each pair's last key, and the pairs' transposed queries: qt[d][lane].
    alignas(64) int32_t lim[kLanes];
    qt_buf.assign(hd * kLanes, 0.f);
    size_t last = 0;
    for (size_t l = 0; l < kLanes; ++l) {
        if (l >= np) {
            lim[l] = -1;
            continue;
        }
        const size_t p = p0 + l, r = p / group, k = p % group;
        lim[l] = int32_t(first + r);
        last = std::max(last, first + r);
        const float* qv = q + (task.row0 + r) * q_stride + (task.g * group + k) * hd;
        for (size_t d = 0; d < hd; ++d) qt_buf[d * kLanes + l] = qv[d];
    }
    const __m512i lim_v = _mm512_load_si512(static_cast<const void*>(lim));
    const float* qt = qt_buf.data();
    const size_t width = last + 1;
    sc_buf.resize(width * kLanes);
    float* sc = sc_buf.data();

    // Scores, four keys at a time (independent chains); keys past a pair's position are -inf.
    __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    size_t j = 0;
    if (np <= kFewPairs && hd % 16 == 0) {
        // Few pairs (a decode step): sixteen keys in the lanes instead, each 16 x 16 block of
        // keys x dims transposed, the same fma chain over d for each (key, pair).
        alignas(64) float dots[kFewPairs][kLanes];
        for (; j + kLanes <= width; j += kLanes) {
            const float* keys[kLanes];
            for (size_t i = 0; i < kLanes; ++i) keys[i] = s.key(task.g, j + i);
            __m512 acc[kFewPairs];
            for (auto& a : acc) a = _mm512_setzero_ps();
            for (size_t c = 0; c < hd; c += 16) {
                __m512 kt[16];
                for (size_t i = 0; i < kLanes; ++i) kt[i] = _mm512_loadu_ps(keys[i] + c);
                transpose16(kt);  // kt[dd]: dim c + dd of the sixteen keys
                for (size_t l = 0; l < np; ++l)
                    for (size_t dd = 0; dd < 16; ++dd) acc[l] = _mm512_fmadd_ps(kt[dd], _mm512_set1_ps(qt[(c + dd) * kLanes + l]), acc[l]);
            }
            for (size_t l = 0; l < np; ++l) _mm512_storeu_ps(dots[l], acc[l]);
            for (size_t i = 0; i < kLanes; ++i) {
                alignas(64) float row[kLanes] = {};
                for (size_t l = 0; l < np; ++l) row[l] = dots[l][i];
                store_scores(sc, j + i, _mm512_loadu_ps(row), lim_v, scale, m);
            }
        }
    }
    for (; j + 4 <= width; j += 4) {
        const float* k0 = s.key(task.g, j);
        const float* k1 = s.key(task.g, j + 1);
        const float* k2 = s.key(task.g, j + 2);
        const float* k3 = s.key(task.g, j + 3);
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t d = 0; d < hd; ++d) {
            const __m512 qd = _mm512_loadu_ps(qt + d * kLanes);
            a0 = _mm512_fmadd_ps(_mm512_set1_ps(k0[d]), qd, a0);
            a1 = _mm512_fmadd_ps(_mm512_set1_ps(k1[d]), qd, a1);
            a2 = _mm512_fmadd_ps(_mm512_set1_ps(k2[d]), qd, a2);
            a3 = _mm512_fmadd_ps(_mm512_set1_ps(k3[d]), qd, a3);
        }
        store_scores(sc, j, a0, lim_v, scale, m);
        store_scores(sc, j + 1, a1, lim_v, scale, m);
        store_scores(sc, j + 2, a2, lim_v, scale, m);
        store_scores(sc, j + 3, a3, lim_v, scale, m);
    }
    for (; j < width; ++j) {
        const float* k0 = s.key(task.g, j);
        __m512 a0 = _mm512_setzero_ps();
        for (size_t d = 0; d < hd; ++d) a0 = _mm512_fmadd_ps(_mm512_set1_ps(k0[d]), _mm512_loadu_ps(qt + d * kLanes), a0);
        store_scores(sc, j, a0, lim_v, scale, m);
    }
    // Softmax weights: exp of the shifted scores (exactly 0 past a pair's position), their sum in
    // key order, then each weight divided by it.
    __m512 sum = _mm512_setzero_ps();
    for (j = 0; j < width; ++j) {
        const __mmask16 live = _mm512_cmp_epi32_mask(_mm512_set1_epi32(int32_t(j)), lim_v, _MM_CMPINT_LE);
        const __m512 e = _mm512_maskz_mov_ps(live, exp16(_mm512_sub_ps(_mm512_loadu_ps(sc + j * kLanes), m)));
        _mm512_storeu_ps(sc + j * kLanes, e);
        sum = _mm512_add_ps(sum, e);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.f), sum);
    for (j = 0; j < width; ++j) _mm512_storeu_ps(sc + j * kLanes, _mm512_mul_ps(_mm512_loadu_ps(sc + j * kLanes), inv));

    // Output: tiles of kTile pairs x the head's dims (16 at a time, the last chunk masked).
    const size_t chunks = (hd + 15) / 16;
    const __mmask16 tail = hd % 16 ? __mmask16((1u << (hd % 16)) - 1) : __mmask16(0xffff);
    for (size_t l0 = 0; l0 < np; l0 += kTile) {
        const size_t nt = std::min(kTile, np - l0);
        size_t tile_last = 0;
        for (size_t t = 0; t < nt; ++t) tile_last = std::max(tile_last, size_t(lim[l0 + t]));
        for (size_t c = 0; c < chunks; c += 4) {  // up to 64 dims (4 vectors) per pass
            const size_t nc = std::min<size_t>(4, chunks - c);
            __m512 acc[kTile][4];
            for (auto& row : acc)
                for (auto& v : row) v = _mm512_setzero_ps();
            for (j = 0; j <= tile_last; ++j) {
                const float* vj = s.value(task.g, j) + c * 16;
                __m512 v[4];
                for (size_t u = 0; u < nc; ++u)
                    v[u] = _mm512_maskz_loadu_ps(c + u + 1 == chunks ? tail : __mmask16(0xffff), vj + u * 16);
                const float* w = sc + j * kLanes + l0;
                for (size_t t = 0; t < nt; ++t) {
                    const __m512 wt = _mm512_set1_ps(w[t]);
                    for (size_t u = 0; u < nc; ++u) acc[t][u] = _mm512_fmadd_ps(wt, v[u], acc[t][u]);
                }
            }
            for (size_t t = 0; t < nt; ++t) {
                const size_t p = p0 + l0 + t, r = p / group, k = p % group;
                float* o = out + (task.row0 + r) * q_stride + (task.g * group + k) * hd + c * 16;
                for (size_t u = 0; u < nc; ++u)
                    _mm512_mask_storeu_ps(o + u * 16, c + u + 1 == chunks ? tail : __mmask16(0xffff), acc[t][u]);
            }
        }
    }
}

}  // namespace

void attention_rows_avx512(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                           std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out) {
    const size_t group = shape.n_heads / shape.n_kv_heads;
    const std::vector<AttentionTask> tasks = attention_tasks(shape, item_row, kRows);
    pool.parallel_for(tasks.size(), 1, [&](size_t t0, size_t t1, int) {
        thread_local std::vector<float> qt, sc;
        for (size_t t = t0; t < t1; ++t) {
            const AttentionTask& task = tasks[t];
            const size_t first = start[task.item] + (task.row0 - item_row[task.item]);
            const size_t n = task.rows * group;
            for (size_t p0 = 0; p0 < n; p0 += kLanes)
                pairs_avx512(shape, kv[task.item], task, first, p0, std::min(kLanes, n - p0), q, out, qt, sc);
        }
    });
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void attention_rows_avx512(ThreadPool&, const AttentionShape&, std::span<const KvBlocks>, std::span<const size_t>,
                           std::span<const size_t>, const float*, float*) {
    throw Error("AVX-512 kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif
