// Launchers of gemv (kernels/gemv.cuh): decode's matrix product over a checkpoint's row-major
// weights for a few activation rows, cpu::matmul_wt's semantics. Plain C++ for any caller: device
// pointers, sizes, a workspace and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace carbon::kern {

struct GemvSizes {
    int batch = 0;   // activation rows B (any B >= 0: launched 8 at a time, each weight read per 8)
    int k = 0;       // in_features: a multiple of 8 (rows of 16-byte chunks for the 128-bit loads)
    int n = 0;       // outputs per activation row
    int w_rows = 0;  // W is [w_rows, k]; without `rows`, n <= w_rows
    int ldx = 0;     // row stride of x in elements: >= k, a whole number of 16-byte units
    int ldy = 0;     // row stride of y in elements: >= n
};

// y[b * ldy + j] = sum over c < k of x[b * ldx + c] * W[row(j) * k + c] for b < batch, j < n, with
// row(j) = rows ? rows[j] : j, accumulated in fp32 (a bf16 y is rounded once, at the end). A
// rows[j] outside [0, w_rows) makes column j NaN in every row of y. Batch-invariant: y[b] depends
// on x[b] alone, bit for bit (the summation order depends on n and k only). x and W must be 16-byte
// aligned; y must not overlap x, W or the workspace.
// workspace: gemv_workspace_bytes(n, k, batch) bytes, 16-byte aligned, zero-filled once after
// allocation; unused (may be null) when that is 0. Its first bytes are the split-K tickets, the
// same region for every shape, which each launch leaves at zero; the rest is scratch. So one
// workspace of the largest size any of its shapes needs serves them all, in any order. One
// workspace per stream: launches that may run at the same time need their own.
// Returns cudaErrorInvalidValue for anything unsupported (gemv_last_refusal() says what), else the
// launch's status; batch == 0 or n == 0 launches nothing.
cudaError_t gemv(const __nv_bfloat16* x, const __nv_bfloat16* w, const int32_t* rows, float* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const __nv_bfloat16* x, const __nv_bfloat16* w, const int32_t* rows, __nv_bfloat16* y,
                 const GemvSizes& sizes, void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const float* x, const __nv_bfloat16* w, const int32_t* rows, float* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
// The same over f16 and f32 checkpoints.
cudaError_t gemv(const __nv_bfloat16* x, const __half* w, const int32_t* rows, float* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const __nv_bfloat16* x, const __half* w, const int32_t* rows, __nv_bfloat16* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const float* x, const __half* w, const int32_t* rows, float* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const __nv_bfloat16* x, const float* w, const int32_t* rows, float* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const __nv_bfloat16* x, const float* w, const int32_t* rows, __nv_bfloat16* y, const GemvSizes& sizes,
                 void* workspace, std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t gemv(const float* x, const float* w, const int32_t* rows, float* y, const GemvSizes& sizes, void* workspace,
                 std::size_t workspace_bytes, cudaStream_t stream);

// Workspace bytes a gemv of this shape needs (0 when k is not split); batch above 8 counts as 8.
// Negative sizes give 0 (the launch refuses them).
std::size_t gemv_workspace_bytes(int n, int k, int batch);

// Into how many slices gemv splits k for n outputs (1: not split). Depends on n and k only.
int gemv_k_splits(int n, int k);

// Why the last gemv call on this thread returned cudaErrorInvalidValue; "" after a call that did not.
const char* gemv_last_refusal();

}  // namespace carbon::kern
