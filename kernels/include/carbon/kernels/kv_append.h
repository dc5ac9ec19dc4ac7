// Launcher of kv_append (kernels/kv_append.cuh): a batch's new keys and values into the paged KV
// cache the attention kernels read (paged_kv.h). Plain C++ for any caller: device pointers, sizes
// and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "carbon/kernels/paged_kv.h"

namespace carbon::kern {

// Where the keys and values go: one layer of the cache, laid out as PagedKv describes (k and v are
// that layer's bases, page_stride and page_tokens the pool's), with a page table row per sequence.
template <class T>
struct KvDestination {
    T* k = nullptr;
    T* v = nullptr;
    long long page_stride = 0;
    int page_tokens = kKvPageTokens;
    const int* page_table = nullptr;  // device, [sequences][page_table_stride]
    int page_table_stride = 0;
};

// T: float or __nv_bfloat16 (the cache's type). For r < rows and e < kv_heads * head_dim:
//   key of (sequence row_seq[r], KV head e / head_dim, position positions[r]), element e % head_dim
//     = T(k_src[r * src_stride + e]), the value likewise from v_src,
// at the address PagedKv documents. positions, row_seq and the page table are device memory, and the
// caller guarantees each row's page exists (the backend allocates pages before the step). Two rows
// must not name the same (sequence, position).
// cudaErrorInvalidValue for negative rows, kv_heads or head_dim below 1, src_stride below
// kv_heads * head_dim, page_tokens below 1, page_stride below kv_heads * page_tokens * head_dim, a
// page_table_stride below 1, or null pointers; rows == 0 launches nothing.
template <class T>
cudaError_t kv_append(const float* k_src, const float* v_src, long long src_stride, int rows, const std::int32_t* positions,
                      const std::int32_t* row_seq, const KvDestination<T>& dst, int kv_heads, int head_dim,
                      cudaStream_t stream);

}  // namespace carbon::kern
