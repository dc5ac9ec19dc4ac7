// Launcher of the decode attention kernels (kernels/attention_decode.cuh): causal grouped-query
// attention of one (or a few) new tokens per sequence over the paged KV cache, split-K over the cached
// positions, then a combine. Plain C++: device pointers, sizes and a stream in, a status out.
#pragma once

#include <cstddef>

#include "carbon/kernels/paged_kv.h"

namespace carbon::kern {

// Positions per split-K chunk the backend should pass: 8 staged tiles per block (two per warp in
// bf16), 128 blocks per (sequence, KV head) at 32k positions. The split points depend on it alone,
// never on the batch, so a sequence's result does not depend on the rest of the batch.
inline constexpr int kDecodeChunkTokens = 256;

// Bytes of the workspace attention_decode needs (partial states of every chunk): batch x n_kv_heads x
// max_new_tokens x group x ceil(max_kv_len / chunk_tokens) x (head_dim + 2) x 4. 0 on bad sizes.
std::size_t attention_decode_workspace_bytes(const AttentionBatch& batch, int max_kv_len, int chunk_tokens);

// As attention_prefill (same rows, positions, heads and result up to rounding), for the decode step:
// max_kv_len (host) bounds every kv_len (it sizes the grid), chunk_tokens >= 1 is the split length and
// workspace (device, 16-byte aligned) holds at least attention_decode_workspace_bytes. Best with one
// new token per sequence; a few (up to max_new_tokens, e.g. the ~8 of speculative verification) cost
// one more pass over L2 per 8 / group tokens. Errors: see attention_refusal().
cudaError_t attention_decode(const float* q, float* out, const PagedKv<float>& kv, const AttentionBatch& batch,
                             int max_kv_len, int chunk_tokens, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream);
cudaError_t attention_decode(const __nv_bfloat16* q, __nv_bfloat16* out, const PagedKv<__nv_bfloat16>& kv,
                             const AttentionBatch& batch, int max_kv_len, int chunk_tokens, void* workspace,
                             std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace carbon::kern
