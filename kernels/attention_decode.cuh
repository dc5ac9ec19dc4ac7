// Causal grouped-query attention for decode over the paged KV cache (paged_kv.h), split-K over the
// cached positions. attention_decode_kernel: one block per (chunk of chunk_tokens positions, group of
// R query vectors, KV head, sequence) writes the chunk's partial softmax state per vector: max m, sum
// l and the unnormalised output O (log2 units, fp32). attention_decode_combine_kernel: one block per
// (vector, KV head, sequence) merges a vector's chunks, out = sum O_c 2^(m_c - M) / sum l_c 2^(m_c - M).
// A query vector is one new token under one of the KV head's query heads (packed as in prefill), so one
// new token of a GQA model fills group rows of a block and every staged key serves all of them. A few
// new tokens per sequence (speculative verification, up to max_new_tokens) give more vectors: more row
// groups, i.e. more blocks over the same chunks (their second reads of K/V mostly hit L2).
//
// Versions considered. (1) The prefill kernel for decode: one block per (sequence, KV head) walks the
// whole context; at batch 1 that is 4-8 blocks for 132 SMs. (2) vLLM-v1 style, one query head per
// block with K read straight from global memory: no GQA reuse (K/V read group times). (3) Kept: split-K
// with warp-private 32-position tiles (each warp stages its own tile with 128-bit loads and needs only
// __syncwarp), warps striding over the chunk, one __syncthreads to merge the warps' states, and R
// (2, 4 or 8 rows, the next power of two of the vectors per group) a template so that a 2-way GQA model
// does not compute 8 rows. bf16 blocks have 4 warps, fp32 blocks 2 (a 32-position fp32 tile at head_dim
// 128 is 33 KiB; four would pass the 99 KiB of sm_86/sm_89). Memory bound: each block moves
// chunk_tokens x head_dim x 2 x sizeof(T) bytes of cache for R x chunk_tokens x head_dim x 4 FLOPs.
// The split points depend only on chunk_tokens, never on the batch, so a sequence's result does not
// depend on what else is in the batch.
#pragma once

#include "attention_tile.cuh"

namespace carbon::kern {

template <class T>
inline constexpr int kDecodeWarps = sizeof(T) == 2 ? 4 : 2;

template <class T, int D, int R>
constexpr std::size_t attention_decode_smem_bytes() {
    return std::size_t(R) * D * 4 +
           std::size_t(kDecodeWarps<T>) * (attention_impl::TileLayout<T, D>::kBytes + R * attention_impl::kTileKeys * 4);
}

// part_o: [batch][kv_heads][vec_cap][n_chunks][D], part_ml: the same without D, times 2 (m, l).
template <class T, int D, int R, AttentionBug kBug = AttentionBug::none>
__global__ void __launch_bounds__(kDecodeWarps<T> * 32, 1)
    attention_decode_kernel(const T* __restrict__ q, PagedKv<T> kv, const int* __restrict__ q_begin,
                            const int* __restrict__ kv_len, int n_heads, int group, int max_new_tokens,
                            int max_kv_len, float q_scale, int chunk_tokens, int n_chunks, int n_row_groups,
                            float* __restrict__ part_o, float* __restrict__ part_ml) {
    using namespace attention_impl;
    using L = TileLayout<T, D>;
    constexpr int kWarps = kDecodeWarps<T>, kThreads = kWarps * 32;
    static_assert(R * (D + 2) * 4 <= L::kBytes, "a warp's partial state must fit in its tile");
    const int b = static_cast<int>(blockIdx.z), g = static_cast<int>(blockIdx.y);
    const int chunk = static_cast<int>(blockIdx.x) / n_row_groups, rg = static_cast<int>(blockIdx.x) % n_row_groups;
    const int row0 = q_begin[b], n_new = q_begin[b + 1] - row0, len = kv_len[b], start = len - n_new;
    if (!sequence_fits(n_new, len, max_new_tokens, max_kv_len, kv.page_tokens, kv.page_table_stride))
        return;  // the combine kernel writes NaN
    const int n_vec = n_new * group, v_first = rg * R;
    if (v_first >= n_vec) return;
    const int n_valid = min(R, n_vec - v_first);
    int last_pos = start + (v_first + n_valid - 1) / group;  // the group's last visible position
    if constexpr (kBug == AttentionBug::causal_off_by_one) last_pos = min(last_pos + 1, len - 1);
    const int c0 = chunk * chunk_tokens;
    if (c0 > last_pos) return;  // no row of this group sees the chunk, and the combine never reads it
    int c1 = min(c0 + chunk_tokens, last_pos + 1);
    if constexpr (kBug == AttentionBug::chunk_edge) c1 -= 1;

    CARBON_DYNAMIC_SMEM(float, smem);
    float* q_rows = smem;  // [R][D]
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    uint4* tile = reinterpret_cast<uint4*>(q_rows + R * D) + warp * (L::kBytes / 16);  // this warp's
    float* p_rows = reinterpret_cast<float*>(reinterpret_cast<uint4*>(q_rows + R * D) + kWarps * (L::kBytes / 16)) +
                    warp * R * kTileKeys;
    stage_queries<T, D, kThreads>(q, n_heads, group, g, row0, v_first, n_valid, R, q_scale, q_rows);
    __syncthreads();

    int limit[R];
CARBON_UNROLL
    for (int r = 0; r < R; ++r) {
        const int pos = start + (v_first + min(r, n_valid - 1)) / group;
        limit[r] = min(kBug == AttentionBug::causal_off_by_one ? pos + 1 : pos, c1 - 1);
    }
    const int* pages = kv.page_table + static_cast<long long>(b) * kv.page_table_stride;
    RowState<D, R> st;
    st.clear();
    for (int key0 = c0 + warp * kTileKeys; key0 < c1; key0 += kWarps * kTileKeys) {
        stage_tile<T, D, 32>(kv, pages, g, key0, c1, tile, lane);
        __syncwarp();
        attend_tile<T, D, R>(q_rows, tile, p_rows, key0, limit, st);  // ends with __syncwarp
    }

    // The warps' states meet in their own tiles (free now), then every thread merges (row, column)s.
    float* mine = reinterpret_cast<float*>(tile);  // [R][D + 2]: o, then m and l
CARBON_UNROLL
    for (int r = 0; r < R; ++r) {
        const float l = warp_sum(st.l[r]);
        if (lane == 0) mine[r * (D + 2) + D] = st.m[r], mine[r * (D + 2) + D + 1] = l;
CARBON_UNROLL
        for (int j = 0; j < RowState<D, R>::kCols; ++j) {
            const int col = lane + 32 * j;
            if (D % 32 == 0 || col < D) mine[r * (D + 2) + col] = st.o[r][j];
        }
    }
    if constexpr (kBug != AttentionBug::skip_barrier) __syncthreads();
    const float* states = reinterpret_cast<const float*>(reinterpret_cast<uint4*>(q_rows + R * D));
    constexpr int kWarpFloats = L::kBytes / 4;
    const long long base = ((static_cast<long long>(b) * gridDim.y + g) * (static_cast<long long>(max_new_tokens) * group) + v_first) * n_chunks + chunk;
    for (int i = static_cast<int>(threadIdx.x); i < n_valid * D; i += kThreads) {
        const int r = i / D, col = i % D;
        float m = -INFINITY;
CARBON_UNROLL
        for (int w = 0; w < kWarps; ++w) m = fmaxf(m, states[w * kWarpFloats + r * (D + 2) + D]);
        const float m_use = m == -INFINITY ? 0.0f : m;
        float l = 0.0f, o = 0.0f;
CARBON_UNROLL
        for (int w = 0; w < kWarps; ++w) {
            const float* sw = states + w * kWarpFloats + r * (D + 2);
            const float scale = exp2f(sw[D] - m_use);
            l = fmaf(sw[D + 1], scale, l);
            o = fmaf(sw[col], scale, o);
        }
        const long long at = base + static_cast<long long>(r) * n_chunks;
        part_o[at * D + col] = o;
        if (col == 0) part_ml[2 * at] = m, part_ml[2 * at + 1] = l;
    }
}

// Merges the chunks of one query vector (blockIdx.x) of KV head blockIdx.y of sequence blockIdx.z:
// the chunks holding positions 0 .. its own. One thread per output column.
template <class T, int D>
__global__ void __launch_bounds__((D + 31) / 32 * 32)
    attention_decode_combine_kernel(const float* __restrict__ part_o, const float* __restrict__ part_ml,
                                    T* __restrict__ out, const int* __restrict__ q_begin,
                                    const int* __restrict__ kv_len, int n_heads, int group, int max_new_tokens,
                                    int max_kv_len, int page_tokens, int page_table_stride, int chunk_tokens,
                                    int n_chunks) {
    const int b = static_cast<int>(blockIdx.z), g = static_cast<int>(blockIdx.y), v0 = static_cast<int>(blockIdx.x);
    const int col = static_cast<int>(threadIdx.x);
    if (col >= D) return;
    const int row0 = q_begin[b], n_new = q_begin[b + 1] - row0, len = kv_len[b], start = len - n_new;
    const int vec_cap = max_new_tokens * group;
    auto out_at = [&](int v) {
        return out + (static_cast<long long>(row0 + v / group) * n_heads + g * group + v % group) * D + col;
    };
    if (!attention_impl::sequence_fits(n_new, len, max_new_tokens, max_kv_len, page_tokens, page_table_stride)) {
        for (int v = v0; v < max(n_new, 0) * group; v += vec_cap) *out_at(v) = attention_impl::from_float<T>(NAN);
        return;
    }
    if (v0 >= n_new * group) return;
    const int pos = start + v0 / group;
    const int chunks = pos / chunk_tokens + 1;  // those holding a position <= pos
    const long long base = ((static_cast<long long>(b) * gridDim.y + g) * vec_cap + v0) * n_chunks;
    float m = -INFINITY;
    for (int c = 0; c < chunks; ++c) m = fmaxf(m, part_ml[2 * (base + c)]);
    float l = 0.0f, o = 0.0f;
    for (int c = 0; c < chunks; ++c) {
        const float scale = exp2f(part_ml[2 * (base + c)] - m);
        l = fmaf(part_ml[2 * (base + c) + 1], scale, l);
        o = fmaf(part_o[(base + c) * D + col], scale, o);
    }
    *out_at(v0) = attention_impl::from_float<T>(o / l);
}

// Row-group size R for vec_cap query vectors per (sequence, KV head): the next power of two, 2 to 8.
inline int attention_decode_rows(int vec_cap) {
    return vec_cap <= 2 ? 2 : vec_cap <= 4 ? 4 : 8;
}

// The launch shape (also what the tests use to run the injected bugs): the split kernel on grid
// (chunks x row groups, KV heads, sequences), then the combine on (vectors, KV heads, sequences).
// Arguments are the launcher's, already checked; the workspace holds part_o then part_ml.
template <class T, int D, int R, AttentionBug kBug = AttentionBug::none>
cudaError_t launch_attention_decode(const T* q, T* out, const PagedKv<T>& kv, const AttentionBatch& a, int max_kv_len,
                                    int chunk_tokens, float* workspace, cudaStream_t stream) {
    const int group = a.n_heads / a.n_kv_heads, vec_cap = a.max_new_tokens * group;
    const int n_chunks = (max_kv_len + chunk_tokens - 1) / chunk_tokens, n_row_groups = (vec_cap + R - 1) / R;
    float* part_o = workspace;
    float* part_ml = workspace + static_cast<std::size_t>(a.batch) * a.n_kv_heads * vec_cap * n_chunks * D;
    constexpr std::size_t smem = attention_decode_smem_bytes<T, D, R>();
    auto* split = attention_decode_kernel<T, D, R, kBug>;
    if (smem > 48 * 1024)
        if (const cudaError_t e = set_max_dynamic_smem(split, smem); e != cudaSuccess) return e;
    const float q_scale = attention_impl::kLog2e / std::sqrt(static_cast<float>(D));
    const unsigned heads = static_cast<unsigned>(a.n_kv_heads), seqs = static_cast<unsigned>(a.batch);
    cudaError_t e = launch(split, dim3(static_cast<unsigned>(n_chunks * n_row_groups), heads, seqs),
                           dim3(kDecodeWarps<T> * 32), smem, stream, q, kv, a.q_begin, a.kv_len, a.n_heads, group,
                           a.max_new_tokens, max_kv_len, q_scale, chunk_tokens, n_chunks, n_row_groups, part_o, part_ml);
    if (e != cudaSuccess) return e;
    return launch(attention_decode_combine_kernel<T, D>, dim3(static_cast<unsigned>(vec_cap), heads, seqs),
                  dim3((D + 31) / 32 * 32), 0, stream, static_cast<const float*>(part_o),
                  static_cast<const float*>(part_ml), out, a.q_begin, a.kv_len, a.n_heads, group, a.max_new_tokens,
                  max_kv_len, kv.page_tokens, kv.page_table_stride, chunk_tokens, n_chunks);
}

}  // namespace carbon::kern
