// embedding_gather: out[t, :] = table[ids[t], :] converted to the activation type (fp32 or bf16),
// for a bf16, f16 or f32 table [vocab, hidden] (the checkpoint's dtype, as cpu::load_row reads it).
// An id outside [0, vocab) reads nothing: its row is filled with NaN (never silently a wrong row)
// and, when the caller passes a counter, it is counted there.
//
// Launch shape: grid (tokens, ceil(chunks / 128)), 128 threads; a thread copies one chunk of 8
// elements (one or two 16-byte loads and stores) in the vector path, one element in the scalar path.
// Versions considered: one block per token looping over the row (a single block per token leaves a
// decode step of batch 1 on one SM: 8 KiB through one SM is latency-bound), a warp per token (same
// problem), and the kept 2-D grid, where a batch-1 row of 4,096 bf16 is 4 blocks and a prefill of
// thousands of tokens fills the GPU; the copy is bandwidth-bound, so the choice only matters at
// small batch. Tokens in grid.x (up to 2^31 - 1), chunks in grid.y.
#pragma once

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kEmbeddingThreads = 128;

// kVector: rows are whole 8-element chunks on 16-byte boundaries (hidden % 8 == 0, aligned bases).
// kDropLastChunk = true is the injected bug (the edge test of the last chunk is off by one, so the
// row's last chunk is never written); production launchers never set it.
template <class W, class A, bool kVector, bool kDropLastChunk = false>
__global__ void __launch_bounds__(kEmbeddingThreads)
    embedding_gather_kernel(const int* __restrict__ ids, const W* __restrict__ table, int vocab, int hidden,
                            A* __restrict__ out, int* __restrict__ bad_ids) {
    const int per = kVector ? io::kVec : 1;
    const int n_chunks = hidden / per;
    const int chunk = static_cast<int>(blockIdx.y * kEmbeddingThreads + threadIdx.x);
    const bool in_row = kDropLastChunk ? chunk + 1 < n_chunks : chunk < n_chunks;
    const long long t = blockIdx.x;
    const int id = ids[t];
    const bool valid = id >= 0 && id < vocab;
    if (!valid && bad_ids != nullptr && chunk == 0) atomicAdd(bad_ids, 1);
    if (!in_row) return;
    A* dst = out + t * hidden + static_cast<long long>(chunk) * per;
    const W* src = table + static_cast<long long>(valid ? id : 0) * hidden + static_cast<long long>(chunk) * per;
    if constexpr (kVector) {
        float v[io::kVec];
        if (valid) {
            io::load8(src, v);
        } else {
            for (int i = 0; i < io::kVec; ++i) v[i] = NAN;
        }
        io::store8(dst, v);
    } else {
        *dst = io::from_float<A>(valid ? io::to_float(*src) : NAN);
    }
}

}  // namespace carbon::kern
