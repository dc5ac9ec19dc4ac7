// What the vector kernels of both int8 schemes share (cpu_q8_kernels.cpp, cpu_q8_row_kernels.cpp):
// the walk over a matrix's panels, each taken by up to kQ8RowBlock activation rows at a time (a
// panel's blocks stay in the caches while the rows pass over them), with one kernel function per
// row count.
#pragma once

#include <algorithm>
#include <cstring>

#include "cpu_q8.h"

#define CARBON_Q8_AVX2 __attribute__((target("avx2,fma,f16c")))
#define CARBON_Q8_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace carbon::cpu::detail {

constexpr size_t kQ8RowBlock = 8;

// Rows i0 .. i0 + MR of panel p into y, the first `cols` of the panel's 16 columns.
using Q8PanelRows = void (*)(const Q8Rows& x, size_t i0, const Q8Matrix& w, size_t p, float* y, size_t ldy, size_t cols);

// Every panel of the pool's share; by_rows[mr - 1] takes mr rows.
inline void q8_over_panels(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, const Q8PanelRows (&by_rows)[kQ8RowBlock], float* y,
                           size_t ldy) {
    pool.parallel_for(w.panels, 1, [&](size_t begin, size_t end, int) {
        for (size_t p = begin; p < end; ++p) {
            const size_t cols = std::min(kQ8Panel, w.rows - p * kQ8Panel);
            for (size_t i0 = 0; i0 < x.m; i0 += kQ8RowBlock) by_rows[std::min(kQ8RowBlock, x.m - i0) - 1](x, i0, w, p, y, ldy, cols);
        }
    });
}

// Four activation bytes as one int32, for a broadcast.
inline int32_t q8_quad(const int8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

}  // namespace carbon::cpu::detail
