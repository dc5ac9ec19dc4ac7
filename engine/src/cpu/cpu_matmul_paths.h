// The matmul paths behind cpu::matmul_wt (cpu_ops.h), one file per instruction set. Each computes
// y[i, j] = sum_k x[i, k] * W[row(j), k] for i < m, j < n with matmul_wt's arguments; what each
// path sums and in which order is described in its file. Called only when isa_supported() says the
// CPU can run them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "cpu_ops.h"

namespace carbon::cpu::detail {

// Pointers to the `count` weight rows of a panel starting at output j (row rows[j + r] when a row
// list is given, else j + r), `stride` elements apart; past the panel's `valid` rows the last
// valid one is repeated (computed, never stored).
template <typename T>
inline void panel_rows(const T* base, const int32_t* rows, size_t stride, size_t j, size_t valid, size_t count,
                       const T** out) {
    for (size_t r = 0; r < count; ++r) {
        const size_t jj = j + (r < valid ? r : valid - 1);
        out[r] = base + (rows ? size_t(rows[jj]) : jj) * stride;
    }
}

// Panels per parallel_for task: about four tasks per thread, so uneven threads even out.
inline size_t panel_grain(const ThreadPool& pool, size_t panels) {
    const size_t g = panels / (size_t(pool.size()) * 4);
    return g ? g : 1;
}

// fp32 activations, 16-lane accumulators (any weight dtype).
void matmul_avx512(ThreadPool& pool, const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
                   size_t n, float* y, size_t ldy);

// Storage on 64-byte boundaries. The AMX tiles read 64-byte rows: from an unaligned buffer each
// row touches two cache lines, and a tile load from L2 takes twice as long (measured, 2026-11-28).
template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <typename U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
    void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
    template <typename U>
    bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
template <typename T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

// Activations rounded to bf16 (round to nearest even), as the bf16 paths consume them: m rows of
// k_padded values, k rounded up to 32 and zero-filled, row stride k_padded, 64-byte aligned. Bf16
// weights only.
struct Bf16Rows {
    CacheLineVector<uint16_t> data;
    size_t m = 0, k = 0, k_padded = 0;
};
void round_rows_to_bf16(ThreadPool& pool, const float* x, size_t m, size_t ldx, size_t k, Bf16Rows& out);

// The rows in pairs of k interleaved across blocks of 16 rows (the AMX B-tile layout): block rb at
// rb * k_padded / 2 * 16 uint32s, element [q][r] = (x[16rb + r][2q], x[16rb + r][2q + 1]); a last
// block's missing rows are zeros.
void pack_rows(ThreadPool& pool, const Bf16Rows& x, std::vector<uint32_t>& packed);

// vdpbf16ps: y^T = W x^T, a weight pair broadcast against the packed pairs of 16 activation rows;
// per output one fp32 lane over the pairs of k in order (as the AMX tiles add them).
void matmul_avx512_bf16(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n,
                        float* y, size_t ldy);

// AMX tiles: per output, tdpbf16ps over the 32-element blocks of k in order (the last block
// zero-padded), accumulated in the tile. Three kernels give these same bits with different operands
// and blocking: the packed one (cpu_amx_packed_kernel.inc: the weights' packed copy as the B
// operand, the default) and the two of cpu_amx_kernels.inc (the weights read in place as the A
// operand); matmul_amx takes amx_kernel_choice().
enum class AmxKernel { Packed, InPlace, KBlocked };
// The k-blocked kernel's chunks: k_blocks 32-wide blocks of k (a 32-row panel's chunk is 2 x
// k_blocks 1 KB tiles, in L1) against row_blocks 16-row activation blocks (in L2) at a time.
struct AmxBlocking {
    size_t k_blocks = 8, row_blocks = 8;
};
// row_blocks for about 384 KB of packed activations per chunk (with a task's weights, within a
// 2 MB L2: tests/bench/amx_cache_model.sh), even, 2 to 64.
inline AmxBlocking amx_blocking_for(size_t k_padded) {
    const size_t fit = (size_t(384) << 10) / (std::max<size_t>(k_padded, 32) * 2 * 16);
    return {8, std::clamp<size_t>(fit & ~size_t(1), 2, 64)};
}
// CARBON_AMX_KERNEL=packed (the default), in-place or k-blocked, read once: which kernel
// matmul_amx runs, so each can be measured in the whole model by one binary (docs/benchmarks.md).
// Throws Error naming the variable for any other value.
AmxKernel amx_kernel_choice();
const char* amx_kernel_name(AmxKernel kernel);
void matmul_amx(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n, float* y,
                size_t ldy);
void matmul_amx(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n, float* y,
                size_t ldy, AmxKernel kernel);

// rmsnorm (cpu_ops.h) 16 lanes at a time: the squares summed in double in another order, the same
// scaling; out may be x.
void rmsnorm_avx512(const float* x, const void* weight, DType weight_dtype, size_t n, float eps, float* out);

// attention_rows' unit of work: one item's KV head and a block of up to `rows` consecutive rows
// of the item, whose rows times the group's query heads read the same keys and values.
struct AttentionTask {
    size_t item, g, row0, rows;
};
inline std::vector<AttentionTask> attention_tasks(const AttentionShape& shape, std::span<const size_t> item_row, size_t rows) {
    std::vector<AttentionTask> tasks;
    for (size_t i = 0; i + 1 < item_row.size(); ++i)
        for (size_t g = 0; g < shape.n_kv_heads; ++g)
            for (size_t r = item_row[i]; r < item_row[i + 1]; r += rows)
                tasks.push_back({i, g, r, std::min(rows, item_row[i + 1] - r)});
    return tasks;
}

// attention_rows (cpu_ops.h) with the query heads of a KV group and a block of rows in the lanes
// (cpu_attention_avx512.cpp).
void attention_rows_avx512(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                           std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out);

// attention_rows (cpu_ops.h) on the AMX tiles, bf16 operands and fp32 sums
// (cpu_amx_attention_kernel.inc).
void attention_rows_amx(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                        std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out);

// silu_mul (cpu_ops.h) 16 lanes at a time, exp by a polynomial: within 3 ulp of the libm result.
void silu_mul_avx512(float* gate, const float* up, size_t n);

}  // namespace carbon::cpu::detail
