// Launchers of embedding_gather (kernels/embedding.cuh): the token embedding lookup of the decoder.
// Plain C++ for any caller: device pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

// out[t * hidden + c] = table[ids[t] * hidden + c] for t < tokens, c < hidden, converted exactly to
// fp32 (or rounded to bf16; a bf16 table into bf16 is a copy). table is [vocab, hidden] row-major in
// the checkpoint's dtype. ids are device memory.
// Out-of-range ids: the caller is expected to have validated them (the CPU backend refuses such a
// request with a message); the kernel still never reads outside the table: a row whose id is
// outside [0, vocab) is written as NaN and, if bad_ids is not null, counted with atomicAdd into
// *bad_ids (device memory the caller zeroed), so the backend can check after the step.
// cudaErrorInvalidValue for negative tokens, non-positive vocab or hidden, null pointers (bad_ids
// may be null), or hidden above 8,388,480; tokens == 0 launches nothing. Every size works; rows
// that are whole 16-byte chunks (hidden % 8 == 0, 16-byte aligned table and out) take the vector
// path.
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __nv_bfloat16* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream);
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __nv_bfloat16* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream);
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __half* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream);
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __half* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream);
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const float* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream);
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const float* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream);

}  // namespace carbon::kern
