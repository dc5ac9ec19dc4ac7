// 8-bit weights for the CPU backend (issue 34): weight-only int8 in groups of 32 along k with one
// fp32 scale per group (the layout of GGUF's Q8_0, so a Q8_0 file needs no requantising), and the
// activations quantised the same way on the fly, per row and group, so the products are exact
// integer dot products that VNNI (vpdpbusd) and AVX2 (vpmaddubsw) compute directly.
//
// What every kernel computes, to the bit (matmul_q8_reference spells it out): for output (i, j),
// sixteen fp32 lanes start at +0; group g's 32 products are summed in eight int32 lanes of four
// consecutive products each (exact: |sum| <= 4 x 127 x 127), and lane l of group g adds
// float(lane) x (x_scale[i][g] x w_scale[j][g]) with one fused multiply-add into lane
// (g mod 2) x 8 + l; the groups run in order, padded to an even count with zero groups; then the
// sixteen lanes are added as a tree (l += l + 8, l + 4, l + 2, l + 1). The order does not depend
// on m, the other rows, the thread or the path, so every path gives the same bits and a row's
// result never depends on the batch (the speculative and "same design whatever the batch"
// guarantees of the bf16 paths hold).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "cpu_matmul_paths.h"
#include "cpu_ops.h"

namespace carbon::cpu {

constexpr size_t kQ8Group = 32;

// Groups of k, padded to an even count (the kernels take two groups, 64 bytes, at a time).
inline size_t q8_groups(size_t k) { return ((k + kQ8Group - 1) / kQ8Group + 1) / 2 * 2; }

// A matrix quantised: rows x (groups x 32) int8 values (zero past k), rows x groups fp32 scales
// (zero for the padding groups). A group's scale is its largest magnitude / 127 and each value
// round-to-nearest-even(w / scale), so |w - q x scale| <= scale / 2.
struct Q8Matrix {
    size_t rows = 0, cols = 0, groups = 0;
    detail::CacheLineVector<int8_t> q;
    std::vector<float> scales;
    const int8_t* row(size_t r) const { return q.data() + r * groups * kQ8Group; }
    const float* row_scales(size_t r) const { return scales.data() + r * groups; }
    size_t bytes() const { return q.size() + scales.size() * sizeof(float); }
};

// Quantises a weight matrix (f32, f16 or bf16) group by group.
Q8Matrix quantize_q8(ThreadPool& pool, const WeightMatrix& w);

// Activations quantised as the weights are (per row and group), kept as magnitudes (uint8,
// <= 127) with the signs as bit masks (bit b of mask word g/2 set: element 64 x (g/2) + b is
// negative), the form both SIMD kernels consume; and the scales.
struct Q8Rows {
    size_t m = 0, k = 0, groups = 0;
    detail::CacheLineVector<uint8_t> magnitude;  // m x groups x 32
    std::vector<uint64_t> negative;              // m x groups / 2
    std::vector<float> scales;                   // m x groups
};
void quantize_rows_q8(const float* x, size_t m, size_t ldx, size_t k, Q8Rows& out);

// The kernels: portable C++ (the reference), AVX2 and AVX-512 VNNI.
enum class Q8Kernel { Portable, Avx2, Avx512Vnni };
const char* q8_kernel_name(Q8Kernel k);
bool q8_kernel_supported(Q8Kernel k);
Q8Kernel best_q8_kernel();  // avx512-vnni, else avx2, else portable

// y[i, j] = the sum above of activation row i and weight row row(j) (rows ? rows[j] : j), i < m,
// j < n; y is [m, n] with row stride ldy. Split over the pool by output columns.
void matmul_q8(ThreadPool& pool, Q8Kernel kernel, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y,
               size_t ldy);

namespace detail {
void matmul_q8_avx2(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y, size_t ldy);
void matmul_q8_avx512_vnni(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y,
                           size_t ldy);
// What output (activation row i, weight row r) reads: the row's magnitudes, sign masks and scales,
// and the weight row's values and scales.
struct Q8Operands {
    const uint8_t* mag;
    const uint64_t* neg;
    const float* xs;
    const int8_t* wq;
    const float* ws;
};
inline Q8Operands q8_operands(const Q8Rows& x, size_t i, const Q8Matrix& w, size_t r) {
    return {x.magnitude.data() + i * x.groups * kQ8Group, x.negative.data() + i * x.groups / 2, x.scales.data() + i * x.groups,
            w.row(r), w.row_scales(r)};
}
// The sixteen lanes added as the tree above.
inline float q8_reduce(float* lanes) {
    for (size_t h = 8; h > 0; h /= 2)
        for (size_t l = 0; l < h; ++l) lanes[l] += lanes[l + h];
    return lanes[0];
}
}  // namespace detail

}  // namespace carbon::cpu
