// What the two attention kernels (attention_prefill.cuh, attention_decode.cuh) share: paged-cache
// addressing, staging 32-position tiles of keys and values into shared memory with 128-bit loads, and
// one warp's online-softmax step of up to R query rows against such a tile (lane = key for the scores,
// lane = output column for the weighted sum of values). fp32 throughout; T (bf16 or float) is only
// what global memory and the staged tiles hold.
#pragma once

#include <cmath>

#include "carbon/kernels/paged_kv.h"
#include "cuda_portable.cuh"

namespace carbon::kern {

// Bugs the attention tests inject to prove they would notice them; the launchers always use none.
enum class AttentionBug {
    none,
    skip_barrier,       // prefill: no __syncthreads between staging a tile and reading it; decode: none
                        // between the warps writing their partial results and merging them
    causal_off_by_one,  // every row also sees the position after its own
    chunk_edge,         // decode: each chunk drops its last position
};

namespace attention_impl {

inline constexpr int kTileKeys = 32;  // positions per staged tile: one per lane in the score step
inline constexpr float kLog2e = 1.4426950408889634f;

// A staged tile in shared memory, in 16-byte chunks: kTileKeys key rows, then kTileKeys value rows.
// Key rows are padded to an odd number of chunks, so the lanes' 128-bit reads of their own rows fall
// in different banks; value rows are read across lanes (one column each) and need no padding.
template <class T, int D>
struct TileLayout {
    static_assert(D * sizeof(T) % 16 == 0, "a head must be a whole number of 16-byte chunks");
    static constexpr int kElems = 16 / int(sizeof(T));  // elements per chunk
    static constexpr int kRowChunks = D / kElems;
    static constexpr int kKeyStride = kRowChunks % 2 == 1 ? kRowChunks : kRowChunks + 1;
    static constexpr int kKeyChunks = kTileKeys * kKeyStride;
    static constexpr int kBytes = (kKeyChunks + kTileKeys * kRowChunks) * 16;
    static constexpr int kCols = (D + 31) / 32;  // output columns per lane: lane, lane + 32, ...
};

__device__ __forceinline__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// The elements of one 16-byte chunk as floats (4 floats, or 8 bf16 = bits << 16).
__device__ __forceinline__ void chunk_to_float(const uint4& u, float (&f)[4]) {
    f[0] = __uint_as_float(u.x), f[1] = __uint_as_float(u.y), f[2] = __uint_as_float(u.z), f[3] = __uint_as_float(u.w);
}
__device__ __forceinline__ void chunk_to_float(const uint4& u, float (&f)[8]) {
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
CARBON_UNROLL
    for (int i = 0; i < 4; ++i) {
        f[2 * i] = __uint_as_float(w[i] << 16);
        f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
}

__device__ __forceinline__ float to_float(float v) {
    return v;
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
    return __bfloat162float(v);
}
template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16(v);
}

// Elements from k (and from v) to the row of (KV head g, position j), through the sequence's page-table row.
template <class T, int D>
__device__ __forceinline__ long long paged_offset(const PagedKv<T>& kv, const int* pages, int g, int j) {
    const int page = pages[j / kv.page_tokens];
    return page * kv.page_stride + (static_cast<long long>(g) * kv.page_tokens + j % kv.page_tokens) * D;
}

// The checks of device-side sizes every attention kernel makes (see attention_refusal() in
// paged_kv.h); false means the sequence's outputs become NaN.
__device__ __forceinline__ bool sequence_fits(int n_new, int kv_len, int max_new_tokens, int max_kv_len,
                                              int page_tokens, int page_table_stride) {
    return n_new >= 0 && n_new <= max_new_tokens && kv_len >= n_new && kv_len <= max_kv_len &&
           (kv_len + page_tokens - 1) / page_tokens <= page_table_stride;
}

// Query vectors v_first .. v_first + n_rows - 1 of KV head g into shared memory as fp32 rows of D,
// multiplied by q_scale. Vector v is new token v / group under query head g * group + v % group (the
// grouped heads packed together share every staged key and value); rows at or past n_valid are zeros.
template <class T, int D, int kThreads>
__device__ __forceinline__ void stage_queries(const T* __restrict__ q, int n_heads, int group, int g, int row0,
                                              int v_first, int n_valid, int n_rows, float q_scale, float* q_rows) {
    using L = TileLayout<T, D>;
    for (int i = static_cast<int>(threadIdx.x); i < n_rows * L::kRowChunks; i += kThreads) {
        const int r = i / L::kRowChunks, c = i % L::kRowChunks;
        float f[L::kElems];
        if (r < n_valid) {
            const int v = v_first + r;
            const long long row = static_cast<long long>(row0 + v / group) * n_heads + g * group + v % group;
            chunk_to_float(__ldg(reinterpret_cast<const uint4*>(q + row * D) + c), f);
        } else {
CARBON_UNROLL
            for (int e = 0; e < L::kElems; ++e) f[e] = 0.0f;
        }
        float4* dst = reinterpret_cast<float4*>(q_rows + r * D + c * L::kElems);
CARBON_UNROLL
        for (int e = 0; e < L::kElems; e += 4)
            dst[e / 4] = make_float4(f[e] * q_scale, f[e + 1] * q_scale, f[e + 2] * q_scale, f[e + 3] * q_scale);
    }
}

// Keys and values of positions key0 .. key0 + 31 of KV head g into a tile (TileLayout), 16 bytes per
// load; positions at or past key_end are staged as zeros. The kThreads threads of rank 0.. share it.
template <class T, int D, int kThreads>
__device__ __forceinline__ void stage_tile(const PagedKv<T>& kv, const int* __restrict__ pages, int g, int key0,
                                           int key_end, uint4* tile, int rank) {
    using L = TileLayout<T, D>;
    constexpr int kChunks = kTileKeys * L::kRowChunks;
    // Four chunks of keys and four of values in flight per thread: a warp alone (decode) has 4 KiB
    // of loads outstanding; unrolled whole, a 32-thread stage would hold 128 registers of loads.
CARBON_UNROLL_BY(4)
    for (int i0 = 0; i0 < kChunks; i0 += kThreads) {
        const int i = i0 + rank;
        if (kChunks % kThreads != 0 && i >= kChunks) break;
        const int r = i / L::kRowChunks, c = i % L::kRowChunks;
        uint4 kc = make_uint4(0u, 0u, 0u, 0u), vc = kc;
        if (key0 + r < key_end) {
            const long long offset = paged_offset<T, D>(kv, pages, g, key0 + r);
            kc = __ldg(reinterpret_cast<const uint4*>(kv.k + offset) + c);
            vc = __ldg(reinterpret_cast<const uint4*>(kv.v + offset) + c);
        }
        tile[r * L::kKeyStride + c] = kc;
        tile[L::kKeyChunks + r * L::kRowChunks + c] = vc;
    }
}

// One warp's running softmax over R query rows: row maximum m (log2 units), the lane's share of the
// sum of exponentials l (summed over the warp at the end) and the lane's output columns o.
template <int D, int R>
struct RowState {
    static constexpr int kCols = (D + 31) / 32;
    float m[R], l[R], o[R][kCols];

    __device__ __forceinline__ void clear() {
CARBON_UNROLL
        for (int r = 0; r < R; ++r) {
            m[r] = -INFINITY, l[r] = 0.0f;
CARBON_UNROLL
            for (int j = 0; j < kCols; ++j) o[r][j] = 0.0f;
        }
    }
};

// Rows q_rows[0 .. R) (pre-scaled by log2(e) / sqrt(D)) against the staged tile of positions key0 +
// lane: row r sees positions up to limit[r]. Scores, then the online-softmax update (a row's old sums
// are rescaled by 2^(m_old - m_new)), then o += p * V with p passed through p_rows, this warp's
// R x 32 scratch. Ends with __syncwarp, so the caller may restage the tile.
template <class T, int D, int R>
__device__ __forceinline__ void attend_tile(const float* q_rows, const uint4* tile, float* p_rows, int key0,
                                            const int (&limit)[R], RowState<D, R>& st) {
    using L = TileLayout<T, D>;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    float s[R];
CARBON_UNROLL
    for (int r = 0; r < R; ++r) s[r] = 0.0f;
    const uint4* key = tile + lane * L::kKeyStride;
CARBON_UNROLL_BY(4)
    for (int c = 0; c < L::kRowChunks; ++c) {
        float kf[L::kElems];
        chunk_to_float(key[c], kf);
CARBON_UNROLL
        for (int r = 0; r < R; ++r) {
            const float4* qv = reinterpret_cast<const float4*>(q_rows + r * D + c * L::kElems);
CARBON_UNROLL
            for (int e = 0; e < L::kElems; e += 4) {
                const float4 q4 = qv[e / 4];
                s[r] = fmaf(q4.x, kf[e], s[r]);
                s[r] = fmaf(q4.y, kf[e + 1], s[r]);
                s[r] = fmaf(q4.z, kf[e + 2], s[r]);
                s[r] = fmaf(q4.w, kf[e + 3], s[r]);
            }
        }
    }
CARBON_UNROLL
    for (int r = 0; r < R; ++r) {
        const float sr = key0 + lane <= limit[r] ? s[r] : -INFINITY;
        const float m_new = fmaxf(st.m[r], warp_max(sr));
        const float m_use = m_new == -INFINITY ? 0.0f : m_new;  // a row with nothing visible yet stays empty
        const float p = exp2f(sr - m_use), rescale = exp2f(st.m[r] - m_use);
        st.m[r] = m_new;
        st.l[r] = fmaf(st.l[r], rescale, p);
CARBON_UNROLL
        for (int j = 0; j < L::kCols; ++j) st.o[r][j] *= rescale;
        p_rows[r * kTileKeys + lane] = p;
    }
    __syncwarp();
    const T* values = reinterpret_cast<const T*>(tile + L::kKeyChunks);
CARBON_UNROLL_BY(1)
    for (int k = 0; k < kTileKeys; k += 4) {
        float4 p4[R];
CARBON_UNROLL
        for (int r = 0; r < R; ++r) p4[r] = *reinterpret_cast<const float4*>(p_rows + r * kTileKeys + k);
CARBON_UNROLL
        for (int j = 0; j < L::kCols; ++j) {
            const int col = lane + 32 * j;
            if (D % 32 != 0 && col >= D) continue;
            const float v0 = to_float(values[(k + 0) * D + col]), v1 = to_float(values[(k + 1) * D + col]);
            const float v2 = to_float(values[(k + 2) * D + col]), v3 = to_float(values[(k + 3) * D + col]);
CARBON_UNROLL
            for (int r = 0; r < R; ++r) {
                float acc = st.o[r][j];
                acc = fmaf(p4[r].x, v0, acc);
                acc = fmaf(p4[r].y, v1, acc);
                acc = fmaf(p4[r].z, v2, acc);
                st.o[r][j] = fmaf(p4[r].w, v3, acc);
            }
        }
    }
    __syncwarp();
}

}  // namespace attention_impl
}  // namespace carbon::kern
