// 8-bit weights for the CPU backend (issue 34): weight-only int8 with the activations quantised on
// the fly the same way, so that the products are exact integer dot products that VNNI (vpdpbusd),
// AVX2 (vpmaddubsw) and AMX-INT8 (tdpbsud) compute directly. Two schemes:
//
//   rows    one fp32 scale per output row of the weights and per activation row: the sum over all
//           of k is one exact int32 dot product D, and output (i, j) = float(D) x (xs[i] x ws[j])
//           (xs x ws rounded once, then the product once). The AMX tiles run at full depth and
//           the fp32 step happens once per output, so prefill is at least as fast as bf16.
//   groups  one fp16 scale per weight row and group of 32 along k (GGUF's Q8_0: a Q8_0 file's
//           blocks are these values and scales, no requantising), activations per row and group:
//           acc = +0; for each group g in order: acc = fma(float(D[g]), xs[i][g] x ws[j][g], acc),
//           D[g] the group's exact int32 dot product. Finer scales (an outlier costs only its
//           group precision), at the price of an fp32 step per group.
//
// |D| <= k x 127 x 127 fits int32 for k up to 133,000, and integer sums are exact, so the order of
// the additions cannot matter; float(D) rounds to nearest even on every path. Nothing depends on
// m, the other rows, the thread, the blocking or the path, so every path gives the same bits and a
// row's result never depends on the batch (the speculative and "same design whatever the batch"
// guarantees of the bf16 paths hold); the AMX tiles may take prefill and the vector kernels decode
// without a row's result changing.
//
// Quantised values lie in [-127, 127] (the AVX2 kernel's sign trick needs it; a Q8_0 file's -128
// is refused where it is read).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <functional>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "cpu_matmul_paths.h"
#include "cpu_ops.h"

namespace carbon::cpu {

constexpr size_t kQ8Group = 32;  // values per scale, along k
constexpr size_t kQ8Panel = 16;  // output rows packed together
constexpr size_t kQ8BlockBytes = kQ8Group * kQ8Panel;

enum class Q8Scheme { Rows, Groups };
const char* q8_scheme_name(Q8Scheme s);

// Groups of 32 along k; the rows scheme pads them to an even count (whole 64-byte AMX rows).
inline size_t q8_groups(size_t k, Q8Scheme s) {
    const size_t g = (k + kQ8Group - 1) / kQ8Group;
    return s == Q8Scheme::Rows ? (g + 1) / 2 * 2 : g;
}

// A weight matrix quantised and packed for the kernels: the rows in panels of 16 (the last padded
// with zero rows); panel p, group g is one block of 512 bytes in the order of vpdpbusd's and an
// AMX-INT8 B tile's operand, byte 64t + 4o + u holding w[16p + o][32g + 4t + u] + 128 (t < 8,
// o < 16, u < 4; zero past k, so 128) as an unsigned byte: the form vpdpbusd and tdpbsud take
// against signed activations, which then add 128 x the activations' group sum too, taken back off
// exactly (Q8Rows::bias); two consecutive blocks of a panel are one 16-row AMX B tile of 64 k.
// Scales: groups: 16 fp16 per block in `scales`, the fp16 at or just above max|w| / 127 of the
// group; rows: one fp32 per row in `row_scales`, max|w| / 127 of the row. Each value is
// round-to-nearest-even(w / scale), so |w - q x scale| <= scale / 2.
struct Q8Matrix {
    Q8Scheme scheme = Q8Scheme::Groups;
    size_t rows = 0, cols = 0, groups = 0, panels = 0;
    detail::CacheLineVector<uint8_t> q;  // panels x groups x 512, biased by 128
    std::vector<uint16_t> scales;        // groups: panels x groups x 16, fp16
    std::vector<float> row_scales;       // rows: panels x 16
    const uint8_t* block(size_t p, size_t g) const { return q.data() + (p * groups + g) * kQ8BlockBytes; }
    const uint16_t* block_scales(size_t p, size_t g) const { return scales.data() + (p * groups + g) * kQ8Panel; }
    const float* panel_scales(size_t p) const { return row_scales.data() + p * kQ8Panel; }
    // Value (r, c) and the scale of (r, group g), for tests and the reference.
    int value(size_t r, size_t c) const {
        const size_t g = c / kQ8Group, t = c % kQ8Group;
        return int(block(r / kQ8Panel, g)[(t / 4) * 64 + (r % kQ8Panel) * 4 + t % 4]) - 128;
    }
    float scale(size_t r, size_t g) const {
        return scheme == Q8Scheme::Rows ? row_scales[r] : f16_to_f32(block_scales(r / kQ8Panel, g)[r % kQ8Panel]);
    }
    size_t bytes() const { return q.size() + scales.size() * sizeof(uint16_t) + row_scales.size() * sizeof(float); }
};

// The rows scheme's rule for one weight row of n values (the CPU's Q8Matrix and the CUDA backend's
// int8 weights both use it, so the two hold the same values): returns the scale, max|w| / 127 (0
// for a row of zeros, whose values are then 0), and writes q[c] = round-to-nearest-even(w[c] x
// (1 / scale)) within +-127; returns NaN, writing nothing, when a value is not finite.
float quantize_weight_row(const float* w, size_t n, int8_t* q);

// Quantises a weight matrix (f32, f16 or bf16) under a scheme. Throws Error naming `name` when a
// value is not finite or a group's scale is beyond fp16 (|w| over 65504 x 127).
Q8Matrix quantize_q8(ThreadPool& pool, const WeightMatrix& w, Q8Scheme scheme, const char* name);

// A GGUF file's Q8_0 matrix (rows of cols / 32 blocks: an fp16 scale, then 32 int8 values) taken
// as the groups scheme's values and scales without requantising: output row r is the file's row
// row_of[r] (all rows in order when null). Throws Error naming `name`, the row and the block for a
// scale that is not finite or a value of -128 (outside the +-127 the kernels take).
Q8Matrix import_q8_0(ThreadPool& pool, const uint8_t* blocks, size_t rows, size_t cols, const int32_t* row_of,
                     const char* name);

// Activations quantised as the weights are, per row (rows) or per row and group (groups): the scale
// max|x| / 127 in fp32 (a row or group with a non-finite value gets a NaN scale, so that it shows
// in the output as the fp32 paths would show it; one too small for 127 / max|x| to be finite is
// zero), the signed values (zero past k), and -128 x the sum of the values (what the biased
// weights add), per scale. The values lie in blocks of 16 rows, chunk by chunk of k (block, chunk,
// row of the block, the chunk's values; chunks of 32 for groups, 64 for rows), so that a block's
// chunk is one AMX A tile in whole lines; the rows past m are zero.
struct Q8Rows {
    Q8Scheme scheme = Q8Scheme::Groups;
    size_t m = 0, k = 0, groups = 0;
    detail::CacheLineVector<int8_t> q;  // blocks x chunks x 16 x chunk
    std::vector<int32_t> bias;          // rows x groups (groups), rows (rows)
    std::vector<float> scales;          // the same
    size_t chunk() const { return scheme == Q8Scheme::Rows ? 2 * kQ8Group : kQ8Group; }
    // Row i's 32 values of group g (in the kernels' inner loops: the chunk a constant per branch).
    const int8_t* group(size_t i, size_t g) const {
        return scheme == Q8Scheme::Rows ? group_in<2 * kQ8Group>(i, g) : group_in<kQ8Group>(i, g);
    }
    template <size_t C>
    const int8_t* group_in(size_t i, size_t g) const {
        return q.data() + ((i / 16) * (groups * kQ8Group / C) + g * kQ8Group / C) * 16 * C + (i % 16) * C + (g * kQ8Group) % C;
    }
    size_t scale_index(size_t i, size_t g) const { return scheme == Q8Scheme::Rows ? i : i * groups + g; }
};
// `prepare(i)`, when given, is called for row i (i < m) just before the row is read, on the thread
// that quantises it: a pass that makes the row (SiLU x up) fused with its quantisation, the row
// still in L1 when read.
void quantize_rows_q8(ThreadPool& pool, const float* x, size_t m, size_t ldx, size_t k, Q8Scheme scheme, Q8Rows& out,
                      const std::function<void(size_t)>& prepare = {});

// The kernels: portable C++ (the reference), AVX2, AVX-512 VNNI, and AMX-INT8 tiles (taken for
// calls of at least kQ8AmxMinRows rows, the vector kernel below that; the bits are the same).
enum class Q8Kernel { Portable, Avx2, Avx512Vnni, Amx };
const char* q8_kernel_name(Q8Kernel k);
bool q8_kernel_supported(Q8Kernel k);
Q8Kernel best_q8_kernel();  // amx, else avx512-vnni, else avx2, else portable
constexpr size_t kQ8AmxMinRows = 16;

// y[i, j] = the sum above of activation row i and weight row j, i < x.m, j < w.rows; y is
// [m, w.rows] with row stride ldy. Split over the pool by panels. x and w must be of one scheme.
void matmul_q8(ThreadPool& pool, Q8Kernel kernel, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);

namespace detail {
void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_amx(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_rows_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_rows_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_rows_amx(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
// One row's groups quantised (quantize_rows_q8's work): portable, and with AVX-512 or AVX2 (the
// same bits; false when this build has no x86-64 kernels). Group g's values go to q + (g / per) x stride +
// (g % per) x 32 (`per` groups per chunk); groups: a bias and scale per group; rows: the first
// pass's maximum over the row is the one scale, bias[0] and scales[0] the row's.
struct Q8RowOut {
    int8_t* q;
    size_t per, stride;
    int32_t* bias;
    float* scales;
    int8_t* at(size_t g) const { return q + (g / per) * stride + (g % per) * kQ8Group; }
};
// What a quantised group or row (index i of out's scales and biases) records: its scale (NaN when a
// value was not finite, zero when max|x| is zero or too small for 127 / max|x| to be finite, else
// max|x| / 127) and -128 x the sum of its values.
inline void q8_record(const Q8RowOut& out, size_t i, float amax, bool finite, int32_t sum) {
    out.scales[i] = !finite ? std::nanf("") : amax > 0.f && std::isfinite(127.f / amax) ? amax / 127.f : 0.f;
    out.bias[i] = -128 * sum;
}
// The two passes every quantiser makes, the instruction set only in Ops: each group's maximum
// (ops.max(g, amax): false when a value is not finite) and the row's, then each group's values at
// 127 / max (ops.quantize(g, inv, q): the 32 values rounded to nearest even and clamped to +-127,
// zeros past k; returns their sum), or zeros where that inverse is not usable; q8_record for each
// scale. Ops' functions carry their own target attributes.
template <typename Ops>
void q8_quantize_row(const Ops& ops, size_t groups, Q8Scheme scheme, const Q8RowOut& out) {
    // Ops that can take a whole row at once (row_max, quantize_row) do so for the rows scheme: the
    // same maximum, the same bytes and the same exact sum, with one reduction per pass.
    if constexpr (requires(float& a) {
                      ops.row_max(groups, a);
                      ops.quantize_row(groups, 1.f, out);
                  }) {
        if (scheme == Q8Scheme::Rows) {
            float amax = 0.f;
            const bool finite = ops.row_max(groups, amax);
            const float inv = 127.f / amax;
            int32_t sum = 0;
            if (finite && amax > 0.f && std::isfinite(inv)) sum = ops.quantize_row(groups, inv, out);
            else
                for (size_t g = 0; g < groups; ++g) std::memset(out.at(g), 0, kQ8Group);
            q8_record(out, 0, amax, finite, sum);
            return;
        }
    }
    float row_amax = 0.f;
    bool row_finite = true;
    for (size_t g = 0; g < groups; ++g) {
        float amax = 0.f;
        const bool finite = ops.max(g, amax);
        row_finite = row_finite && finite;
        if (finite) row_amax = std::max(row_amax, amax);
        if (scheme == Q8Scheme::Groups) out.scales[g] = finite ? amax : std::nanf("");  // (the maximum for now)
    }
    int32_t row_sum = 0;
    for (size_t g = 0; g < groups; ++g) {
        const float amax = scheme == Q8Scheme::Rows ? (row_finite ? row_amax : std::nanf("")) : out.scales[g];
        const float inv = 127.f / amax;
        int8_t* qg = out.at(g);
        int32_t sum = 0;
        if (std::isfinite(amax) && amax > 0.f && std::isfinite(inv)) sum = ops.quantize(g, inv, qg);
        else std::memset(qg, 0, kQ8Group);
        row_sum += sum;
        if (scheme == Q8Scheme::Groups) q8_record(out, g, amax, !std::isnan(amax), sum);
    }
    if (scheme == Q8Scheme::Rows) q8_record(out, 0, row_amax, row_finite, row_sum);
}

void quantize_row_q8_portable(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out);
bool quantize_row_q8_avx512(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out);
bool quantize_row_q8_avx2(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out);
}  // namespace detail

}  // namespace carbon::cpu
