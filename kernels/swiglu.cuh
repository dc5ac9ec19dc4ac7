// swiglu: out[r, c] = silu(gate[r, c]) * up[r, c] = gate / (1 + exp(-gate)) * up, in fp32 with the
// CPU's operation order (cpu::silu_mul), rounded once to the activation type (fp32 or bf16). In place
// (out == gate or out == up) is allowed: each element is read and written by one thread.
//
// Launch shape: grid (rows, ceil(chunks / 256)), 256 threads; a thread handles one 8-element chunk
// (16-byte accesses for bf16, two for fp32) in the vector path, one element in the scalar path.
// Versions considered: a block per row looping over the row (a decode step of batch 1 would be one
// block on one SM for 14,336 elements: latency-bound), a flat 1-D grid over rows * cols (needs a
// division per element to find the row, and cannot take separate row strides cheaply) and the kept
// 2-D grid, which puts a batch-1 row of the 8B's FFN on 7 blocks and takes strides, so gate and up
// may be the two halves of one fused [rows, 2F] projection. expf (at most 2 ulp on the GPU), not
// __expf, and an IEEE division keep fp32 parity with the CPU.
#pragma once

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kSwigluThreads = 256;

__device__ __forceinline__ float silu_mul(float g, float u) {
    return g / (1.0f + expf(-g)) * u;
}

// kVector: cols and every stride multiples of 8, arrays 16-byte aligned. kDropLastChunk = true is
// the injected bug (the bound of the last chunk off by one: a row's last chunk is never written).
template <class T, bool kVector, bool kDropLastChunk = false>
__global__ void __launch_bounds__(kSwigluThreads)
    swiglu_kernel(const T* gate, long long gate_stride, const T* up, long long up_stride, T* out,
                  long long out_stride, int cols) {
    const int per = kVector ? io::kVec : 1;
    const int n_chunks = cols / per;
    const int chunk = static_cast<int>(blockIdx.y * kSwigluThreads + threadIdx.x);
    if (kDropLastChunk ? chunk + 1 >= n_chunks : chunk >= n_chunks) return;
    const long long r = blockIdx.x, c = static_cast<long long>(chunk) * per;
    const T* g = gate + r * gate_stride + c;
    const T* u = up + r * up_stride + c;
    T* o = out + r * out_stride + c;
    if constexpr (kVector) {
        float gv[io::kVec], uv[io::kVec];
        io::load8(g, gv);
        io::load8(u, uv);
        for (int i = 0; i < io::kVec; ++i) gv[i] = silu_mul(gv[i], uv[i]);
        io::store8(o, gv);
    } else {
        *o = io::from_float<T>(silu_mul(io::to_float(*g), io::to_float(*u)));
    }
}

}  // namespace carbon::kern
