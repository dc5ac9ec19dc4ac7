// Launcher of the prefill attention kernel (kernels/attention_prefill.cuh): causal grouped-query
// attention of a ragged batch of new tokens over the paged KV cache, flash-attention style (no L x L
// scores in memory). Plain C++ for any caller: device pointers, sizes and a stream in, a status out.
#pragma once

#include "carbon/kernels/paged_kv.h"

namespace carbon::kern {

// out = softmax(q k^T / sqrt(head_dim), causal) v for every new row of the batch (paged_kv.h says
// which rows, positions and heads), fp32 accumulation, rounded to T at the end. The new rows' own
// keys and values must already be in the cache. Any number of new tokens per sequence, the first
// prefill, a continued (chunked) prefill, and speculative verification alike. Errors: see
// attention_refusal(); batch.batch == 0 launches nothing.
cudaError_t attention_prefill(const float* q, float* out, const PagedKv<float>& kv, const AttentionBatch& batch,
                              cudaStream_t stream);
cudaError_t attention_prefill(const __nv_bfloat16* q, __nv_bfloat16* out, const PagedKv<__nv_bfloat16>& kv,
                              const AttentionBatch& batch, cudaStream_t stream);

}  // namespace carbon::kern
