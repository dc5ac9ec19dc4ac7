// 8-bit weights for the CPU backend (issue 34): weight-only int8 in groups of 32 along k with one
// fp16 scale per row and group (GGUF's Q8_0: a Q8_0 file's blocks are these values and scales, no
// requantising), and the activations quantised per row and group on the fly (fp32 scales), so the
// products are exact integer dot products that VNNI (vpdpbusd), AVX2 (vpmaddubsw) and AMX-INT8
// (tdpbssd) compute directly.
//
// What every kernel computes, to the bit (matmul_q8_reference spells it out): for output (i, j),
//     acc = +0; for each group g in order: acc = fma(float(D[g]), xs[i][g] * ws[j][g], acc)
// where D[g] is the exact int32 sum of the group's 32 products (|D| <= 32 x 127 x 127, so the
// order of its additions cannot matter and float(D) is exact) and xs * ws is rounded once. Nothing
// depends on m, the other rows, the thread, the blocking or the path, so every path gives the same
// bits and a row's result never depends on the batch (the speculative and "same design whatever
// the batch" guarantees of the bf16 paths hold); the AMX tiles may take prefill and the vector
// kernels decode without a row's result changing.
//
// Quantised values lie in [-127, 127] (the AVX2 kernel's sign trick needs it; a Q8_0 file's -128
// is refused where it is read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "cpu_matmul_paths.h"
#include "cpu_ops.h"

namespace carbon::cpu {

constexpr size_t kQ8Group = 32;  // values per scale, along k
constexpr size_t kQ8Panel = 16;  // output rows packed together
constexpr size_t kQ8BlockBytes = kQ8Group * kQ8Panel;

inline size_t q8_groups(size_t k) { return (k + kQ8Group - 1) / kQ8Group; }

// A weight matrix quantised and packed for the kernels: the rows in panels of 16 (the last padded
// with zero rows); panel p, group g is one block of 512 bytes in the order of vpdpbusd's and an
// AMX-INT8 B tile's operand, byte 64t + 4o + u holding w[16p + o][32g + 4t + u] + 128 (t < 8,
// o < 16, u < 4; zero past k, so 128) as an unsigned byte: the form vpdpbusd and tdpbsud take
// against signed activations, which then add 128 x the activations' group sum too, taken back off
// exactly (Q8Rows::bias). Its 16 fp16 scales sit in `scales`. A group's scale is the fp16 at or
// just above max|w| / 127 and each value round-to-nearest-even(w / scale), so
// |w - q x scale| <= scale / 2.
struct Q8Matrix {
    size_t rows = 0, cols = 0, groups = 0, panels = 0;
    detail::CacheLineVector<uint8_t> q;  // panels x groups x 512, biased by 128
    std::vector<uint16_t> scales;        // panels x groups x 16, fp16
    const uint8_t* block(size_t p, size_t g) const { return q.data() + (p * groups + g) * kQ8BlockBytes; }
    const uint16_t* block_scales(size_t p, size_t g) const { return scales.data() + (p * groups + g) * kQ8Panel; }
    // Value (r, c) and the scale of (r, group g), for tests and the reference.
    int value(size_t r, size_t c) const {
        const size_t g = c / kQ8Group, t = c % kQ8Group;
        return int(block(r / kQ8Panel, g)[(t / 4) * 64 + (r % kQ8Panel) * 4 + t % 4]) - 128;
    }
    float scale(size_t r, size_t g) const { return f16_to_f32(block_scales(r / kQ8Panel, g)[r % kQ8Panel]); }
    size_t bytes() const { return q.size() + scales.size() * sizeof(uint16_t); }
};

// Quantises a weight matrix (f32, f16 or bf16) group by group. Throws Error naming `name` when a
// group's scale is beyond fp16 (|w| over 65504 x 127) or a value is not finite.
Q8Matrix quantize_q8(ThreadPool& pool, const WeightMatrix& w, const char* name);

// Activations quantised as the weights are, per row and group: the scale max|x| / 127 in fp32 (a
// group with a non-finite value gets a NaN scale, so that it shows in the output as the fp32 paths
// would show it; a group too small for 127 / max|x| to be finite is a zero group), the signed
// values (zero past k), and per group -128 x the sum of its values (what the biased weights add).
// The values lie in blocks of 16 rows, group by group (block, group, row of the block, 32 values:
// 512 bytes, one AMX A tile in eight whole lines); the rows past m are zero.
struct Q8Rows {
    size_t m = 0, k = 0, groups = 0;
    detail::CacheLineVector<int8_t> q;  // blocks x groups x 16 x 32
    std::vector<int32_t> bias;          // rows x groups
    std::vector<float> scales;          // rows x groups
    // Row i's 32 values of group g; the next group's are kQ8RowsGroupStride further.
    const int8_t* group(size_t i, size_t g) const { return q.data() + ((i / 16) * groups + g) * kQ8BlockBytes + (i % 16) * kQ8Group; }
};
constexpr size_t kQ8RowsGroupStride = kQ8BlockBytes;
void quantize_rows_q8(ThreadPool& pool, const float* x, size_t m, size_t ldx, size_t k, Q8Rows& out);

// The kernels: portable C++ (the reference), AVX2, AVX-512 VNNI, and AMX-INT8 tiles (taken for
// calls of at least kQ8AmxMinRows rows, the vector kernel below that; the bits are the same).
enum class Q8Kernel { Portable, Avx2, Avx512Vnni, Amx };
const char* q8_kernel_name(Q8Kernel k);
bool q8_kernel_supported(Q8Kernel k);
Q8Kernel best_q8_kernel();  // amx, else avx512-vnni, else avx2, else portable
constexpr size_t kQ8AmxMinRows = 16;

// y[i, j] = the sum above of activation row i and weight row j, i < x.m, j < w.rows; y is
// [m, w.rows] with row stride ldy. Split over the pool by panels.
void matmul_q8(ThreadPool& pool, Q8Kernel kernel, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);

namespace detail {
void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
void matmul_q8_amx(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy);
// One row's groups quantised (quantize_rows_q8's work): portable, and with AVX-512 (the same bits;
// false when this build has no x86-64 kernels).
// Group g's values go to q + g x group_stride.
void quantize_row_q8_portable(const float* x, size_t k, size_t groups, int8_t* q, size_t group_stride, int32_t* bias, float* scales);
bool quantize_row_q8_avx512(const float* x, size_t k, size_t groups, int8_t* q, size_t group_stride, int32_t* bias, float* scales);
}  // namespace detail

}  // namespace carbon::cpu
