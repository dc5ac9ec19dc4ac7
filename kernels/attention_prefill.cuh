// Causal grouped-query attention for prefill over the paged KV cache (paged_kv.h): flash-attention
// style, an online softmax over 32-position tiles, so no L x L score matrix exists anywhere. One block
// of 256 threads per (64 query vectors, KV head, sequence), where a query vector is one new token under
// one of the KV head's `group` query heads: packing the group lets every staged key and value serve all
// of its query heads (GQA reuse), and a block of 64 vectors is 64 / group tokens.
//
// Versions considered (llm.c habit). (1) One warp per query row with the lanes over head_dim: a
// shuffle reduction per score, five per key. (2) Lanes over keys with the rows in registers: q cannot
// stay in registers at head_dim 128 (8 rows x 128 floats). (3) Kept: the block's query vectors staged
// once in shared memory as fp32 (pre-scaled by log2(e)/sqrt(d)), 32-position K/V tiles staged with
// 128-bit loads by all 256 threads, each warp owning 8 vectors: lane = key for the scores (its key row
// against 8 broadcast query rows), lane = column for P.V with p broadcast from shared memory. Plain
// CUDA cores, no tensor cores (the portable path: no mma); cuBLASLt or an mma path can replace it later
// behind the same launcher. Tiles past a warp's last visible position are skipped (causal), and
// skipping is exact: a masked tile would multiply by 2^0 and add zeros.
// Shared memory: 64 x d x 4 (queries) + 32 x (d + pad) x sizeof(T) x 2 (tile) + 8 KiB (p): 57 KiB
// at d 128 bf16, 73 KiB fp32, under the 99 KiB a block may have on sm_86/sm_89.
#pragma once

#include "attention_tile.cuh"

namespace carbon::kern {

inline constexpr int kPrefillWarps = 8;
inline constexpr int kPrefillThreads = kPrefillWarps * 32;
inline constexpr int kPrefillRowsPerWarp = 8;
inline constexpr int kPrefillVectors = kPrefillWarps * kPrefillRowsPerWarp;  // query vectors per block
// bf16 blocks are held to 128 registers so two fit on an SM (16 warps to hide latency); the fp32
// instance (the identity path, not the fast one) would spill there and gets one.
template <class T>
inline constexpr int kPrefillMinBlocks = sizeof(T) == 2 ? 2 : 1;

template <class T, int D>
constexpr std::size_t attention_prefill_smem_bytes() {
    return std::size_t(kPrefillVectors) * D * 4 + attention_impl::TileLayout<T, D>::kBytes +
           std::size_t(kPrefillVectors) * attention_impl::kTileKeys * 4;
}

template <class T, int D, AttentionBug kBug = AttentionBug::none>
__global__ void __launch_bounds__(kPrefillThreads, kPrefillMinBlocks<T>)
    attention_prefill_kernel(const T* __restrict__ q, T* __restrict__ out, PagedKv<T> kv,
                             const int* __restrict__ q_begin, const int* __restrict__ kv_len, int n_heads, int group,
                             int max_new_tokens, float q_scale) {
    using namespace attention_impl;
    constexpr int R = kPrefillRowsPerWarp;
    using L = TileLayout<T, D>;
    const int b = static_cast<int>(blockIdx.z), g = static_cast<int>(blockIdx.y);
    const int row0 = q_begin[b], n_new = q_begin[b + 1] - row0, len = kv_len[b], start = len - n_new;
    if (!sequence_fits(n_new, len, max_new_tokens, len, kv.page_tokens, kv.page_table_stride)) {
        if (blockIdx.x == 0)  // one block poisons the rows it can name; the rest must not write them
            for (int i = static_cast<int>(threadIdx.x); i < max(n_new, 0) * group * D; i += kPrefillThreads) {
                const int v = i / D;
                out[(static_cast<long long>(row0 + v / group) * n_heads + g * group + v % group) * D + i % D] =
                    from_float<T>(NAN);
            }
        return;
    }
    const int n_vec = n_new * group, v_first = static_cast<int>(blockIdx.x) * kPrefillVectors;
    if (v_first >= n_vec) return;
    const int n_valid = min(kPrefillVectors, n_vec - v_first);

    CARBON_DYNAMIC_SMEM(float, smem);
    float* q_rows = smem;                                                       // [64][D]
    uint4* tile = reinterpret_cast<uint4*>(q_rows + kPrefillVectors * D);       // TileLayout
    float* p_all = reinterpret_cast<float*>(tile + L::kBytes / 16);             // [8 warps][8][32]
    stage_queries<T, D, kPrefillThreads>(q, n_heads, group, g, row0, v_first, n_valid, kPrefillVectors, q_scale, q_rows);

    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int first = warp * R;  // this warp's vectors: first .. first + R - 1 of the block's
    int limit[R];
CARBON_UNROLL
    for (int r = 0; r < R; ++r) {  // rows past n_valid repeat the last vector: computed, never stored
        limit[r] = start + (v_first + min(first + r, n_valid - 1)) / group;
        if constexpr (kBug == AttentionBug::causal_off_by_one) limit[r] += 1;
    }
    const bool warp_has_rows = first < n_valid;
    const int key_end = start + (v_first + n_valid - 1) / group + 1;  // past the block's last position
    const int* pages = kv.page_table + static_cast<long long>(b) * kv.page_table_stride;

    RowState<D, R> st;
    st.clear();
    for (int key0 = 0; key0 < key_end; key0 += kTileKeys) {
        __syncthreads();  // every warp is done with the previous tile (and the queries are staged)
        stage_tile<T, D, kPrefillThreads>(kv, pages, g, key0, key_end, tile, static_cast<int>(threadIdx.x));
        if constexpr (kBug != AttentionBug::skip_barrier) __syncthreads();
        if (warp_has_rows && key0 <= limit[R - 1])
            attend_tile<T, D, R>(q_rows + first * D, tile, p_all + warp * R * kTileKeys, key0, limit, st);
    }

CARBON_UNROLL
    for (int r = 0; r < R; ++r) {
        const float inv = 1.0f / warp_sum(st.l[r]);
        if (first + r >= n_valid) continue;
        const int v = v_first + first + r;
        T* dst = out + (static_cast<long long>(row0 + v / group) * n_heads + g * group + v % group) * D;
CARBON_UNROLL
        for (int j = 0; j < RowState<D, R>::kCols; ++j) {
            const int col = lane + 32 * j;
            if (D % 32 == 0 || col < D) dst[col] = from_float<T>(st.o[r][j] * inv);
        }
    }
}

// The launch shape (also what the tests use to run the injected bugs): grid (vector tiles, KV heads,
// sequences), 256 threads, the shared memory above. Arguments are the launcher's, already checked.
template <class T, int D, AttentionBug kBug = AttentionBug::none>
cudaError_t launch_attention_prefill(const T* q, T* out, const PagedKv<T>& kv, const AttentionBatch& a,
                                     cudaStream_t stream) {
    const int group = a.n_heads / a.n_kv_heads;
    const long long tiles = (static_cast<long long>(a.max_new_tokens) * group + kPrefillVectors - 1) / kPrefillVectors;
    constexpr std::size_t smem = attention_prefill_smem_bytes<T, D>();
    auto* kernel = attention_prefill_kernel<T, D, kBug>;
    if (smem > 48 * 1024)
        if (const cudaError_t e = set_max_dynamic_smem(kernel, smem); e != cudaSuccess) return e;
    const float q_scale = attention_impl::kLog2e / std::sqrt(static_cast<float>(D));
    return launch(kernel, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(a.n_kv_heads), static_cast<unsigned>(a.batch)),
                  dim3(kPrefillThreads), smem, stream, q, out, kv, a.q_begin, a.kv_len, a.n_heads, group,
                  a.max_new_tokens, q_scale);
}

}  // namespace carbon::kern
