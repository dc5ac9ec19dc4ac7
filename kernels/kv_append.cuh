// kv_append: the new keys and values of a ragged batch written into the paged KV cache (paged_kv.h)
// at their positions, converted from the projections' fp32 to the cache's type (fp32, or bf16
// rounded once). Row r of the batch belongs to sequence row_seq[r] and sits at position
// positions[r]; its page is page_table[row_seq[r] * page_table_stride + positions[r] / page_tokens].
//
// Launch shape: grid (rows, ceil(kv_heads * head_dim / 256)), 256 threads, one element per thread:
// the write is a scatter of rows * kv_dim elements twice (a decode step writes a few KiB), so the
// kernel is launch-bound and its shape is the simplest that covers any head_dim; consecutive threads
// write consecutive elements of one head (head_dim is innermost in the page), so the stores coalesce.
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kKvAppendThreads = 256;

// kSkipLastHead = true is the injected bug (the last KV head of every row is never written).
template <class T, bool kSkipLastHead = false>
__global__ void __launch_bounds__(kKvAppendThreads)
    kv_append_kernel(const float* k_src, const float* v_src, long long src_stride, const std::int32_t* positions,
                     const std::int32_t* row_seq, T* k_pool, T* v_pool, long long page_stride, int page_tokens,
                     const int* page_table, int page_table_stride, int kv_heads, int head_dim) {
    const int kv_dim = (kSkipLastHead ? kv_heads - 1 : kv_heads) * head_dim;
    const int e = static_cast<int>(blockIdx.y * kKvAppendThreads + threadIdx.x);
    if (e >= kv_dim) return;
    const long long r = blockIdx.x;
    const int pos = positions[r];
    const int page = page_table[static_cast<long long>(row_seq[r]) * page_table_stride + pos / page_tokens];
    const int g = e / head_dim, d = e - g * head_dim;
    const long long dst =
        static_cast<long long>(page) * page_stride + (static_cast<long long>(g) * page_tokens + pos % page_tokens) * head_dim + d;
    k_pool[dst] = io::from_float<T>(k_src[r * src_stride + e]);
    v_pool[dst] = io::from_float<T>(v_src[r * src_stride + e]);
}

}  // namespace carbon::kern
