// The CPU backend's numerical building blocks, with fp32 accumulation over f32/f16/bf16 weights
// stored row-major as in the checkpoint ([out_features, in_features]). The matmul takes the
// instruction-set path it is given (cpu_isa.h; the bf16 paths round its inputs to bf16); the rest
// use AVX2+FMA(+F16C) or AVX-512 where chosen, and portable code otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "carbon/support/common.h"
#include "carbon/support/thread_pool.h"
#include "cpu_isa.h"

namespace carbon::cpu {

// A row-major weight matrix [rows, cols] in its stored dtype (typically a view into the mmap).
struct WeightMatrix {
    const void* data = nullptr;
    DType dtype = DType::F32;
    size_t rows = 0, cols = 0;
    // The avx512-bf16 path's copy (cpu_packed_weights.h) of exactly the rows a call selects (rows[j]
    // for j < n, or 0..n-1), when the caller made one; that path then reads it instead of `data`,
    // to the same bits. Null: every path reads `data`.
    const uint32_t* packed = nullptr;
};

// y[i, j] = sum_k x[i, k] * W[row(j), k] for i < m, j < n, where row(j) = rows ? rows[j] : j.
// x is [m, W.cols] with row stride ldx, y is [m, n] with row stride ldy. Splits work over the
// pool by output columns. `isa` picks the instruction-set path (cpu_isa.h; it must be supported);
// each path's sums do not depend on m, the other rows or the thread count.
void matmul_wt(ThreadPool& pool, Isa isa, const float* x, size_t m, size_t ldx, const WeightMatrix& w,
               const int32_t* rows, size_t n, float* y, size_t ldy);

// best_fp32_isa(), cached.
Isa fp32_isa();

// matmul_wt on fp32_isa(): fp32 activations (the reference the GPU kernels are tested against).
void matmul_wt(ThreadPool& pool, const float* x, size_t m, size_t ldx, const WeightMatrix& w, const int32_t* rows,
               size_t n, float* y, size_t ldy);

// out[i] = weight[i] * (x[i] / sqrt(mean(x^2) + eps)), in fp32, as transformers' LlamaRMSNorm.
// With an AVX-512 path the squares are summed 16 lanes at a time (in double, so the two orders
// agree to far below fp32's rounding).
void rmsnorm(const float* x, const void* weight, DType weight_dtype, size_t n, float eps, float* out,
             Isa isa = Isa::Portable);

// gate[i] = silu(gate[i]) * up[i]. With an AVX-512 path, exp is a vector polynomial (the result
// within 3 ulp of the default's, libm's expf, which the GPU kernels are tested against).
void silu_mul(float* gate, const float* up, size_t n, Isa isa = Isa::Portable);

// Adds a bias vector (any dtype) to each of m rows of y (stride ldy).
void add_bias(float* y, size_t m, size_t ldy, const void* bias, DType dtype, size_t n);

// Attention's inner products: sum a[i] * b[i] over n, and y[i] += a * x[i]. Like every dot
// product here, each is summed in one order whatever the batch (AVX2: an 8-lane accumulator,
// then the horizontal sum, then the tail), so attention stays batch-invariant.
float dot_f32(const float* a, const float* b, size_t n);
void axpy_f32(float a, const float* x, float* y, size_t n);
// Four of them at once, each the same bits as its own call (independent chains, more in flight):
// out[c] = dot_f32(a, b[c], n); and y += s[0] * x[0], then s[1] * x[1], ... in that order.
void dot4_f32(const float* a, const float* const b[4], size_t n, float out[4]);
void axpy4_f32(const float s[4], const float* const x[4], float* y, size_t n);

// One layer of one sequence's KV cache, stored in blocks of block_tokens positions (the CPU
// backend's cache: a block is [layer][k|v][kv_head][token][dim]). The key of KV head g at position
// j is blocks[j / block_tokens] + k_offset + g * head_stride + (j % block_tokens) * token_stride;
// the value likewise from v_offset. Offsets and strides count floats.
struct KvBlocks {
    const float* const* blocks = nullptr;
    size_t block_tokens = 0;
    size_t k_offset = 0, v_offset = 0, head_stride = 0, token_stride = 0;

    const float* key(size_t g, size_t j) const { return at(k_offset, g, j); }
    const float* value(size_t g, size_t j) const { return at(v_offset, g, j); }

private:
    const float* at(size_t offset, size_t g, size_t j) const {
        return blocks[j / block_tokens] + offset + g * head_stride + (j % block_tokens) * token_stride;
    }
};

struct AttentionShape {
    size_t n_heads = 0, n_kv_heads = 0, head_dim = 0;
};

// Causal grouped-query attention over a ragged batch, the formula transformers uses: scores
// q.k / sqrt(head_dim) in fp32, the max subtracted, exp, their sum, one division. Item i's new
// rows are rows item_row[i] .. item_row[i + 1] - 1 of q and out ([row][n_heads][head_dim]); they
// sit at positions start[i], start[i] + 1, ... and attend to positions 0 .. their own of kv[i],
// which already holds their keys and values. Query head h reads KV head h / (n_heads / n_kv_heads).
// Each (row, head) is computed alone in one fixed order, so the result does not depend on the
// batch or the thread count. The GPU attention kernels are tested against this function (the
// portable path). With an AVX-512 `isa` the heads of a KV group and a block of rows share vector
// lanes (cpu_attention_avx512.cpp): each number still one fixed chain per (row, head), in another
// order, with exp by exp16; within rounding of the portable path. With Isa::Amx the scores and the
// weighted sum are tile products of bf16 operands with fp32 sums, the softmax in fp32
// (cpu_amx_attention_kernel.inc): transformers' bfloat16 attention, each (row, head) still one
// fixed computation whatever the batch.
void attention_rows(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                    std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out,
                    Isa isa = Isa::Portable);

// Copies row `row` of W into out as f32.
void load_row(const WeightMatrix& w, size_t row, float* out);

}  // namespace carbon::cpu
