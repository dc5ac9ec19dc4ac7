// Row-major GEMMs over the seam's column-major one: the mapping lives here, above the seam, so the
// host seam's tests prove it. The engine stores everything row-major, weights as checkpoints do
// ([out_features, in_features]); a linear layer y = x W^T is
//   gemm_row_major(device, {.trans_b = Transpose::Yes, .m = rows, .n = out, .k = in,
//                           .a = x, .a_type = ..., .lda = ldx, .b = W, .b_type = ..., .ldb = ldw,
//                           .c = y, .c_type = ..., .ldc = ldy}, stream);
#pragma once

#include "gpu/device.h"

namespace carbon::gpu {

// C[m, n] = alpha * op(A) op(B) + beta * C with every matrix row-major: op(A) is m x k, op(B) is
// k x n; A is stored m x k (No) or k x m (Yes) with row stride lda >= its stored columns, B k x n or
// n x k with ldb, C m x n with ldc >= n. Types, accumulation and beta == 0 as in Gemm.
struct RowMajorGemm {
    Transpose trans_a = Transpose::No, trans_b = Transpose::No;
    std::int64_t m = 0, n = 0, k = 0;
    const void* a = nullptr;
    DType a_type = DType::F32;
    std::int64_t lda = 0;
    const void* b = nullptr;
    DType b_type = DType::F32;
    std::int64_t ldb = 0;
    void* c = nullptr;
    DType c_type = DType::F32;
    std::int64_t ldc = 0;
    float alpha = 1.0f, beta = 0.0f;
};

// The same product as the column-major call cuBLASLt takes. A row-major matrix read column-major is
// its transpose, so C = op(A) op(B) becomes C^T = op(B)^T op(A)^T: the operands swap (B first), m and
// n swap, the transpose flags and leading dimensions stay with their matrices. For y = x W^T this is
// the "TN" call: A' = W (Yes, ld ldw), B' = x (No, ld ldx), m' = out, n' = rows.
Gemm to_column_major(const RowMajorGemm& g);

// device.gemm(to_column_major(g), stream).
void gemm_row_major(Device& device, const RowMajorGemm& g, Stream stream);

}  // namespace carbon::gpu
