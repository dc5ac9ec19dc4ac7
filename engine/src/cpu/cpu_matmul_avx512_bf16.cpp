// The AVX-512 BF16 matmul path (cpu_matmul_paths.h), and the bf16 activation rounding and pair
// packing it shares with the AMX path.
//
// It computes y^T = W x^T as the AMX path does: the activations are packed once per call into
// pairs of k interleaved across 16 activation rows (the AMX B-tile layout), and each weight row is
// read one pair of k at a time, broadcast to the 16 lanes. vdpbf16ps then adds the pair's two
// products to the 16 outputs (one per activation row) of that weight row. No horizontal sums.
//
// The weights are read either in place (row-major, from the mapping; gathered rows such as the
// DNA head cost nothing extra, each weight row has its own pointer) or, as the CPU backend gives
// them, from the packed copy it makes at load (cpu_packed_weights.h: a pair of 16 rows per 64-byte
// line), where decode needs no transpose and streams the weights at the read bandwidth.
//
// Each output is one fp32 lane that adds the pairs of k in order, whatever the number of rows, the
// tile or the thread, so a row's result never depends on the other rows (decode, prefill and
// speculative verification agree bit for bit); it is the order the AMX tiles use too.
#include <algorithm>
#include <cstring>

#include "cpu_matmul_paths.h"
#include "cpu_packed_weights.h"

#if defined(__x86_64__)
#include "avx512_math.h"
#include "x86_intrinsics.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

namespace {

constexpr size_t kLanes = 16;      // activation rows per packed block (one zmm of pairs)
constexpr size_t kRowBlock = 128;  // activation rows whose packed pairs stay in L2 together

CARBON_AVX512BF16 void round_row(const float* x, size_t k, size_t k_padded, uint16_t* out) {
    size_t c = 0;
    for (; c + 16 <= k; c += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + c)));
    if (c < k) {
        const __mmask16 mask = __mmask16((1u << (k - c)) - 1);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c),
                            (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, x + c)));
        c += 16;
    }
    for (; c < k_padded; ++c) out[c] = 0;
}

// One block of up to 16 activation rows into pairs: element [q][r] = (x[r][2q], x[r][2q + 1]).
CARBON_AVX512BF16 void pack_block(const Bf16Rows& x, size_t rb, uint32_t* base) {
    const size_t rows = std::min(kLanes, x.m - rb * kLanes), pairs = x.k_padded / 2;
    const uint32_t* src = reinterpret_cast<const uint32_t*>(x.data.data() + rb * kLanes * x.k_padded);
    if (rows < kLanes) {  // a last, partial block: the missing rows' lanes zero
        std::memset(base, 0, pairs * kLanes * sizeof(uint32_t));
        for (size_t r = 0; r < rows; ++r)
            for (size_t q = 0; q < pairs; ++q) base[q * kLanes + r] = src[r * pairs + q];
        return;
    }
    const __m512i offsets = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                               _mm512_set1_epi32(int(pairs)));
    for (size_t q = 0; q < pairs; ++q)
        _mm512_storeu_si512(base + q * kLanes, _mm512_i32gather_epi32(offsets, src + q, 4));
}

// The 32-bit word at p (a pair of bf16) in every lane.
CARBON_AVX512BF16 inline __m512i broadcast_word(const uint16_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return _mm512_set1_epi32(int(v));
}

CARBON_AVX512BF16 inline __m512i broadcast_pair(const uint16_t* w, size_t q) {
    return broadcast_word(w + 2 * q);
}

// Where a weight row's pairs are, in uint16s from one pair to the next: in place (row-major), or in
// the packed layout (cpu_packed_weights.h), where row 16g + l's pair q is word l of the group's
// q-th 16 words.
constexpr size_t kRowMajorStride = 2, kPackedStride = 2 * kPackedGroupRows;

// A prefill panel reads its packed weights as one or two streams of 64-byte lines (a pair of 16
// rows each), not the twelve short rows of the layout in place: from memory, the hardware
// prefetchers alone kept them 20% behind the rows in place; fetched 64 pairs (4 KB) ahead, they
// are 10% ahead (60 gate/up matrices in turn at 64 rows, paired runs). Decode streams them at the
// read bandwidth without help.
constexpr size_t kPackedAhead = 64;

// R weight rows against C blocks of 16 activation rows: acc[r][c] lane l += the pair products of
// weight row r and activation row 16c + l, pair by pair; weight row r's pair q at w[r] + S * q.
// `full` pairs lie wholly inside k; when k is odd the last pair is (w[k - 1], 0) (read as the one
// bf16 in place; the packed layout holds that pair with a zero high half). The rest of the padded
// pairs are zero on both sides and are not visited.
template <int R, int C, size_t S>
CARBON_AVX512BF16 void tile(const uint16_t* const* w, const uint32_t* xp, size_t block_stride, size_t k, float* y,
                            size_t ldy, size_t rows_valid, size_t nr) {
    __m512 acc[R][C];
    for (auto& a : acc)
        for (auto& v : a) v = _mm512_setzero_ps();
    const size_t full = k / 2;
    for (size_t q = 0; q < full; ++q) {
        if constexpr (S == kPackedStride) {  // the panel's one or two groups, kPackedAhead pairs ahead
            _mm_prefetch(reinterpret_cast<const char*>(w[0] + S * (q + kPackedAhead)), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(w[R - 1] + S * (q + kPackedAhead)), _MM_HINT_T0);
        }
        __m512i xv[C];
        for (int c = 0; c < C; ++c) xv[c] = _mm512_loadu_si512(xp + c * block_stride + q * kLanes);
        for (int r = 0; r < R; ++r) {
            const __m512i wv = broadcast_word(w[r] + S * q);
            for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], (__m512bh)xv[c], (__m512bh)wv);
        }
    }
    if (k % 2) {
        __m512i xv[C];
        for (int c = 0; c < C; ++c) xv[c] = _mm512_loadu_si512(xp + c * block_stride + full * kLanes);
        for (int r = 0; r < R; ++r) {
            const __m512i wv =
                S == kRowMajorStride ? _mm512_set1_epi32(int(w[r][k - 1])) : broadcast_word(w[r] + S * full);
            for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], (__m512bh)xv[c], (__m512bh)wv);
        }
    }
    // acc[r][c] holds y[16c + l][r]: transposed 16 x 16 (the rows past R zero), then each activation
    // row's nr outputs stored, the rows past the end left alone.
    const __mmask16 cols = __mmask16((1u << nr) - 1);
    for (int c = 0; c < C; ++c) {
        __m512 t[16];
        for (int r = 0; r < 16; ++r) t[r] = r < R ? acc[r][c] : _mm512_setzero_ps();
        transpose16(t);
        const size_t left = rows_valid > size_t(c) * kLanes ? std::min(kLanes, rows_valid - size_t(c) * kLanes) : 0;
        for (size_t l = 0; l < left; ++l) _mm512_mask_storeu_ps(y + (c * kLanes + l) * ldy, cols, t[l]);
    }
}

// Decode (a few activation rows): weight rows are loaded 16 pairs at a time, 16 rows at a time,
// and transposed so each lane holds one weight row's pair; the activation row's pair is broadcast.
// Per output the same pairs are added in the same order as in tile(), so the two agree bit for
// bit; here the lanes are the weight rows, which decode has plenty of, instead of activation rows,
// which it lacks. H groups of 16 weight rows keep H independent chains of vdpbf16ps in flight for
// one activation row. x[i]: activation row i rounded to bf16 and zero-padded; y[i]: where its
// outputs for these 16H weight rows go; `ahead`: the next panel's bytes, fetched 1 KB per group
// per 16 pairs.
template <int MT, int H>
CARBON_AVX512BF16 void tile_decode(const uint16_t* const* w, const uint16_t* const* x, size_t k, float* const* y,
                                   size_t nr, const char* ahead) {
    __m512 acc[H][MT];
    for (auto& g : acc)
        for (auto& a : g) a = _mm512_setzero_ps();
    const size_t pairs = (k + 1) / 2;
    for (size_t c = 0; c < k; c += 32) {  // 16 pairs per chunk
        if (ahead)
            for (size_t line = 0; line < 1024 * H; line += 64)
                _mm_prefetch(ahead + c / 32 * 1024 * H + line, _MM_HINT_T0);
        const __mmask32 mask = k - c >= 32 ? __mmask32(0xffffffffu) : __mmask32((1u << (k - c)) - 1);
        const size_t q0 = c / 2, qn = std::min<size_t>(16, pairs - q0);
        for (int h = 0; h < H; ++h) {
            __m512 t[16];
            for (int r = 0; r < 16; ++r) t[r] = _mm512_castsi512_ps(_mm512_maskz_loadu_epi16(mask, w[16 * h + r] + c));
            transpose16(t);  // t[q] lane r = weight row 16h + r's pair q0 + q
            if (qn == 16) {  // a constant trip count keeps t[] in registers
                for (int q = 0; q < 16; ++q)
                    for (int i = 0; i < MT; ++i)
                        acc[h][i] = _mm512_dpbf16_ps(acc[h][i], (__m512bh)_mm512_castps_si512(t[q]),
                                                     (__m512bh)broadcast_pair(x[i], q0 + q));
            } else {  // the last pairs of k only: the zero pairs of the padding are not added (as in tile())
                for (size_t q = 0; q < qn; ++q)
                    for (int i = 0; i < MT; ++i)
                        acc[h][i] = _mm512_dpbf16_ps(acc[h][i], (__m512bh)_mm512_castps_si512(t[q]),
                                                     (__m512bh)broadcast_pair(x[i], q0 + q));
            }
        }
    }
    for (int h = 0; h < H; ++h) {
        const size_t left = nr > size_t(16 * h) ? nr - size_t(16 * h) : 0;
        if (!left) break;
        const __mmask16 mask = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
        for (int i = 0; i < MT; ++i) _mm512_mask_storeu_ps(y[i] + 16 * h, mask, acc[h][i]);
    }
}

// tile_decode over the packed layout: H consecutive groups of 16 weight rows from `group` on
// (`group_words` apart), one vector per pair and group, already in the lanes tile_decode
// transposes its rows into; the same products added in the same order, so the same bits.
template <int MT, int H>
CARBON_AVX512BF16 void tile_decode_packed(const uint32_t* group, size_t group_words, const uint16_t* const* x, size_t k,
                                          float* const* y, size_t nr) {
    __m512 acc[H][MT];
    for (auto& g : acc)
        for (auto& a : g) a = _mm512_setzero_ps();
    const size_t pairs = (k + 1) / 2;
    for (size_t q = 0; q < pairs; ++q) {
        __m512i xv[MT];
        for (int i = 0; i < MT; ++i) xv[i] = broadcast_pair(x[i], q);
        for (int h = 0; h < H; ++h) {
            const __m512i wv = _mm512_loadu_si512(group + h * group_words + q * kPackedGroupRows);
            for (int i = 0; i < MT; ++i) acc[h][i] = _mm512_dpbf16_ps(acc[h][i], (__m512bh)wv, (__m512bh)xv[i]);
        }
    }
    for (int h = 0; h < H; ++h) {
        const size_t left = nr > size_t(16 * h) ? nr - size_t(16 * h) : 0;
        if (!left) break;
        const __mmask16 mask = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
        for (int i = 0; i < MT; ++i) _mm512_mask_storeu_ps(y[i] + 16 * h, mask, acc[h][i]);
    }
}

// Pointers to a prefill panel's weight rows in the packed layout (as panel_rows does in place):
// row jj's pair q at the returned pointer + kPackedStride * q.
inline void packed_panel_rows(const uint32_t* packed, size_t group_words, size_t j, size_t valid, size_t count,
                              const uint16_t** out) {
    for (size_t r = 0; r < count; ++r) {
        const size_t jj = j + (r < valid ? r : valid - 1);
        out[r] = reinterpret_cast<const uint16_t*>(packed + jj / kPackedGroupRows * group_words + jj % kPackedGroupRows);
    }
}

constexpr size_t kPanelRows = 12;  // weight rows per prefill tile, against 2 blocks of 16 rows: 24 accumulators
constexpr size_t kDecodeRows = 8;   // at most this many activation rows take tile_decode

}  // namespace

void round_rows_to_bf16(ThreadPool& pool, const float* x, size_t m, size_t ldx, size_t k, Bf16Rows& out) {
    out.m = m;
    out.k = k;
    out.k_padded = (k + 31) & ~size_t(31);
    out.data.resize(m * out.k_padded);
    auto round = [&](size_t r0, size_t r1) {
        for (size_t r = r0; r < r1; ++r) round_row(x + r * ldx, k, out.k_padded, out.data.data() + r * out.k_padded);
    };
    // Decode-sized calls are rounded here: waking the workers would cost more than the rounding.
    if (m <= 64) round(0, m);
    else pool.parallel_for(m, 16, [&](size_t r0, size_t r1, int) { round(r0, r1); });
}

void pack_rows(ThreadPool& pool, const Bf16Rows& x, std::vector<uint32_t>& packed) {
    const size_t nrb = (x.m + kLanes - 1) / kLanes, block = x.k_padded / 2 * kLanes;
    packed.resize(nrb * block);
    auto pack = [&](size_t b0, size_t b1) {
        for (size_t rb = b0; rb < b1; ++rb) pack_block(x, rb, packed.data() + rb * block);
    };
    // Decode-sized calls are packed here: waking the workers would cost more than the copy.
    if (nrb <= 4) pack(0, nrb);
    else pool.parallel_for(nrb, 1, [&](size_t b0, size_t b1, int) { pack(b0, b1); });
}

namespace {

// Activation rows i .. i + 3 of a decode pass (at most 4, returned; those past the last repeat it:
// the same values written to the same place) and where their outputs for panel column j go.
inline size_t decode_rows(const Bf16Rows& x, size_t i, float* y, size_t ldy, size_t j, const uint16_t* (&xr)[4], float* (&yr)[4]) {
    const size_t mt = std::min<size_t>(4, x.m - i);
    for (size_t r = 0; r < 4; ++r) {
        const size_t ii = i + std::min(r, mt - 1);
        xr[r] = x.data.data() + ii * x.k_padded;
        yr[r] = y + ii * ldy + j;
    }
    return mt;
}

// matmul_decode over the packed layout: panels of two groups, the activation rows as there.
void matmul_decode_packed(ThreadPool& pool, const Bf16Rows& x, const uint32_t* packed, size_t k, size_t n, float* y,
                          size_t ldy) {
    constexpr size_t kPanel = 2 * kPackedGroupRows;
    const size_t m = x.m, panels = (n + kPanel - 1) / kPanel, gw = packed_group_words(k);
    pool.parallel_for(panels, panel_grain(pool, panels), [&](size_t p0, size_t p1, int) {
        for (size_t p = p0; p < p1; ++p) {
            const size_t j = p * kPanel, nr = std::min(kPanel, n - j);
            const uint32_t* group = packed + j / kPackedGroupRows * gw;
            for (size_t i = 0; i < m; i += 4) {
                const uint16_t* xr[4];
                float* yr[4];
                const size_t mt = decode_rows(x, i, y, ldy, j, xr, yr);
                // A last panel of one group has no second group to read.
                if (nr <= kPackedGroupRows) {
                    if (mt == 1) tile_decode_packed<1, 1>(group, gw, xr, k, yr, nr);
                    else if (mt == 2) tile_decode_packed<2, 1>(group, gw, xr, k, yr, nr);
                    else tile_decode_packed<4, 1>(group, gw, xr, k, yr, nr);
                } else if (mt == 1) {
                    tile_decode_packed<1, 2>(group, gw, xr, k, yr, nr);
                } else if (mt == 2) {
                    tile_decode_packed<2, 2>(group, gw, xr, k, yr, nr);
                } else {
                    tile_decode_packed<4, 2>(group, gw, xr, k, yr, nr);
                }
            }
        }
    });
}

// Decode-sized calls: panels of 32 weight rows, every activation row against each (one or two
// rows as two independent groups of 16, four rows as one group at a time: the registers allow no
// more).
void matmul_decode(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n,
                   float* y, size_t ldy) {
    constexpr size_t kPanel = 32;
    const size_t m = x.m, k = w.cols, panels = (n + kPanel - 1) / kPanel;
    const uint16_t* wbase = static_cast<const uint16_t*>(w.data);
    if (w.packed) return matmul_decode_packed(pool, x, w.packed, k, n, y, ldy);
    pool.parallel_for(panels, panel_grain(pool, panels), [&](size_t p0, size_t p1, int) {
        for (size_t p = p0; p < p1; ++p) {
            const size_t j = p * kPanel, nr = std::min(kPanel, n - j);
            const uint16_t* wr[kPanel];
            panel_rows(wbase, rows, k, j, nr, kPanel, wr);
            const char* ahead = !rows && j + 2 * kPanel <= n ? reinterpret_cast<const char*>(wbase + (j + kPanel) * k) : nullptr;
            for (size_t i = 0; i < m; i += 4) {
                const uint16_t* xr[4];
                float* yr[4];
                const size_t mt = decode_rows(x, i, y, ldy, j, xr, yr);
                const char* fetch = i == 0 ? ahead : nullptr;
                if (mt == 1) {
                    tile_decode<1, 2>(wr, xr, k, yr, nr, fetch);
                } else if (mt == 2) {
                    tile_decode<2, 2>(wr, xr, k, yr, nr, fetch);
                } else {
                    tile_decode<4, 1>(wr, xr, k, yr, std::min<size_t>(nr, 16), fetch);
                    if (nr > 16) {
                        float* yh[4] = {yr[0] + 16, yr[1] + 16, yr[2] + 16, yr[3] + 16};
                        tile_decode<4, 1>(wr + 16, xr, k, yh, nr - 16, fetch ? fetch + 16 * k * 2 : nullptr);
                    }
                }
            }
        }
    });
}

// Prefill-sized calls: panels of R weight rows (in place, S = kRowMajorStride, or packed), each
// against the packed activation rows C blocks of 16 at a time, kRowBlock rows at a time so their
// pairs stay in L2 while the panels go by.
template <size_t R, int C, size_t S>
void matmul_prefill(ThreadPool& pool, const Bf16Rows& x, const uint32_t* xpacked, const WeightMatrix& w,
                    const int32_t* rows, size_t n, float* y, size_t ldy) {
    const size_t m = x.m, k = w.cols, nrb = (m + kLanes - 1) / kLanes, block = x.k_padded / 2 * kLanes;
    const uint16_t* wbase = static_cast<const uint16_t*>(w.data);
    const size_t panels = (n + R - 1) / R, gw = packed_group_words(k);
    pool.parallel_for(panels, panel_grain(pool, panels), [&](size_t p0, size_t p1, int) {
        for (size_t rb0 = 0; rb0 < nrb; rb0 += kRowBlock / kLanes) {
            const size_t rb1 = std::min(nrb, rb0 + kRowBlock / kLanes);
            for (size_t p = p0; p < p1; ++p) {
                const size_t j = p * R, nr = std::min(R, n - j);
                const uint16_t* wr[R];
                if (S == kPackedStride) packed_panel_rows(w.packed, gw, j, nr, R, wr);
                else panel_rows(wbase, rows, k, j, nr, R, wr);
                for (size_t rb = rb0; rb < rb1; rb += C) {
                    const uint32_t* xp = xpacked + rb * block;
                    float* yo = y + rb * kLanes * ldy + j;
                    const size_t valid = m - rb * kLanes, left = rb1 - rb;
                    if (left >= size_t(C)) tile<int(R), C, S>(wr, xp, block, k, yo, ldy, valid, nr);
                    else if (left == 2) tile<int(R), 2, S>(wr, xp, block, k, yo, ldy, valid, nr);
                    else tile<int(R), 1, S>(wr, xp, block, k, yo, ldy, valid, nr);
                }
            }
        }
    });
}

}  // namespace

void matmul_avx512_bf16(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n,
                        float* y, size_t ldy) {
    if (x.m <= kDecodeRows) return matmul_decode(pool, x, w, rows, n, y, ldy);
    thread_local std::vector<uint32_t> packed_rows;  // the caller's; the workers read it through the pointer
    pack_rows(pool, x, packed_rows);
    if (w.packed) matmul_prefill<kPanelRows, 2, kPackedStride>(pool, x, packed_rows.data(), w, rows, n, y, ldy);
    else matmul_prefill<kPanelRows, 2, kRowMajorStride>(pool, x, packed_rows.data(), w, rows, n, y, ldy);
}

}  // namespace carbon::cpu::detail

#else  // not x86-64: the dispatcher never selects these paths (isa_supported is false)

namespace carbon::cpu::detail {
void round_rows_to_bf16(ThreadPool&, const float*, size_t, size_t, size_t, Bf16Rows&) {
    throw Error("AVX-512 BF16 kernels are not built for this architecture");
}
void pack_rows(ThreadPool&, const Bf16Rows&, std::vector<uint32_t>&) {
    throw Error("AVX-512 BF16 kernels are not built for this architecture");
}
void matmul_avx512_bf16(ThreadPool&, const Bf16Rows&, const WeightMatrix&, const int32_t*, size_t, float*, size_t) {
    throw Error("AVX-512 BF16 kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif
