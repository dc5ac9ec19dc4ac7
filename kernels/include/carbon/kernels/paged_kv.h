// The paged KV cache as the attention kernels read it (attention_prefill.h, attention_decode.h), the
// description of a ragged batch they share, and why a launcher refused its arguments. Plain C++.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace carbon::kern {

// Tokens per page of the CUDA backend's KV cache. The kernels take any page size >= 1; 16 keeps a
// page of one head (16 x 128 bf16 = 4 KiB at head_dim 128) a whole number of 128-byte lines while
// wasting at most 15 positions per sequence, and is what vLLM and FlashInfer default to.
inline constexpr int kKvPageTokens = 16;

// One layer of the paged cache. A page holds page_tokens consecutive positions of one sequence for
// every KV head, [kv_head][token][head_dim] (head_dim innermost, contiguous):
//     key of (sequence b, KV head g, position j) = k + page * page_stride + (g * page_tokens + j % page_tokens) * head_dim
//     with page = page_table[b * page_table_stride + j / page_tokens]; the value likewise from v.
// page_stride (elements) is the caller's: the layout the backend allocates is the CPU backend's block
// layout, one pool of pages [page][layer][k|v][kv_head][token][head_dim], so that one page id serves
// every layer; layer l then has k = pool + (2l) * kv_heads * page_tokens * head_dim, v = k +
// kv_heads * page_tokens * head_dim and page_stride = 2 * layers * kv_heads * page_tokens * head_dim.
// k, v and page_stride * sizeof(T) must be multiples of 16 bytes (the kernels load 128 bits at a time).
template <class T>
struct PagedKv {
    const T* k = nullptr;
    const T* v = nullptr;
    long long page_stride = 0;
    int page_tokens = kKvPageTokens;
    const int* page_table = nullptr;  // device, [batch][page_table_stride]: physical page ids
    int page_table_stride = 0;        // at least ceil(kv_len / page_tokens) for every sequence
};

// A ragged batch of sequences, each appending its own number of new tokens after its own cache.
// Queries and outputs are [row][n_heads][head_dim], rows of sequence b being q_begin[b] ..
// q_begin[b + 1] - 1; new row i of b sits at position kv_len[b] - n_new + i and attends to positions
// 0 .. its own, whose keys and values (its own included) are already in the cache. Query head h reads
// KV head h / (n_heads / n_kv_heads); scale 1 / sqrt(head_dim).
struct AttentionBatch {
    int batch = 0;
    int n_heads = 0, n_kv_heads = 0, head_dim = 0;  // head_dim 16, 24, 64, 96 or 128
    const int* q_begin = nullptr;                   // device, [batch + 1]
    const int* kv_len = nullptr;                    // device, [batch]: cached positions, new rows included
    int max_new_tokens = 0;                         // host: at least every sequence's new rows (sizes the grid)
};

// Why the last attention launcher call on this thread returned an error (a static string naming the
// argument and the rule), or "" after a success. The launchers return cudaErrorInvalidValue for a bad
// argument, cudaErrorNotSupported for a size no kernel is built for (a head_dim other than 16, 24,
// 64, 96, 128) and cudaErrorMisalignedAddress for a pointer or stride off 16 bytes.
// Device-side data the launcher cannot see (q_begin, kv_len, the page table) is checked by the
// kernels: a sequence with more new rows than max_new_tokens, more positions than its page table
// row or max_kv_len, or fewer positions than new rows gets NaN outputs, never a silent partial result.
const char* attention_refusal();

}  // namespace carbon::kern
