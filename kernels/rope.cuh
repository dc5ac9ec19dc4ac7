// rope_rotate_half: rotary position embedding of q and k in place, Hugging Face "rotate half" layout
// (element i pairs with i + rotary_dim / 2 of the same head), each token at its own position (ragged
// batches). cos/sin are computed here from the engine's RopeTable (compute_rope: inv_freq and
// attention_scaling, default / linear / YaRN / llama3 alike), with the CPU's formula
// (carbon::rope_cos_sin): angle = float(position) * inv_freq[i] in fp32, then cos and sin of that
// fp32 angle, times attention_scaling; x' = x * cos - x_other * sin (first half) and
// x_other * cos + x * sin (second half) in fp32, rounded once to the activation type.
//
// cos/sin: CUDA's sincosf needs its Payne-Hanek path for angles above 105,615 (positions beyond that
// at inv_freq[0] = 1 occur with YaRN's 131,072 context), and that path puts a 28-byte array in local
// memory, which this project's build refuses. So rope_sincos below reduces the angle by pi/2 in
// double (two FMAs: exact to ~1e-16 for any |angle| < 2^31) and evaluates Taylor polynomials (error
// below 3e-9 on [-pi/4, pi/4]) with explicit fmaf: within 2 ulp of libm's cosf/sinf (the CPU's),
// and bitwise the same on the GPU and on the host layer (every rounding is spelled out; the rotation
// uses fmaf too), so what CI proves is what a GPU computes. Five double operations per frequency per
// token: noise even at fp64's 1/64 rate on consumer GPUs.
//
// Launch shape: one block of 128 threads per token. The block first puts the token's cos/sin (one
// evaluation per frequency, shared by every head) in shared memory, then its threads walk the
// (head, i) pairs of q's heads and k's heads, i fastest, so a warp reads consecutive elements.
// Versions considered: precomputed cos/sin tables per position (bitwise the CPU's values, but a
// table of max_position x rotary_dim floats per model, 64 MiB for Carbon-8B with YaRN at 131,072
// positions, and a position bound to check), sincosf (local memory, above) and cos/sin per (head,
// pair) without shared memory (nh + nkv times the trigonometry); the kept version needs only the
// rotary_dim / 2 frequencies and accepts any position. RoPE moves (nh + nkv) * d elements in and out
// per token, a few percent of the QKV projection's traffic, so the scalar 2-byte accesses are not
// worth vectorising.
#pragma once

#include "cuda_portable.cuh"
#include "element_io.cuh"

namespace carbon::kern {

inline constexpr int kRopeThreads = 128;
inline constexpr int kRopeMaxRotaryDim = 512;  // shared memory holds rotary_dim / 2 cos and sin values

namespace rope_impl {

// s = sin(angle), c = cos(angle) for an fp32 angle, |angle| < 2^31 (see the file's header).
__device__ __forceinline__ void rope_sincos(float angle, float& s, float& c) {
    const double a = angle;
    const double k = rint(a * 0.63661977236758138);  // nearest multiple of pi/2
    double rd = fma(-k, 1.5707963267948966, a);        // pi/2, high part: k * it is exact inside the fma
    rd = fma(-k, 6.123233995736766e-17, rd);           // pi/2 - its high part
    const float r = static_cast<float>(rd), r2 = r * r;
    float ps = fmaf(r2, 2.7557319e-6f, -1.9841270e-4f);  // sin: r - r^3/3! + ... + r^9/9!
    ps = fmaf(r2, ps, 8.3333333e-3f);
    ps = fmaf(r2, ps, -0.16666667f);
    ps = fmaf(r * r2, ps, r);
    float pc = fmaf(r2, -2.7557319e-7f, 2.4801587e-5f);  // cos: 1 - r^2/2! + ... - r^10/10!
    pc = fmaf(r2, pc, -1.3888889e-3f);
    pc = fmaf(r2, pc, 4.1666668e-2f);
    pc = fmaf(r2, pc, -0.5f);
    pc = fmaf(r2, pc, 1.0f);
    switch (static_cast<int>(static_cast<long long>(k) & 3)) {
        case 0: s = ps, c = pc; break;
        case 1: s = pc, c = -ps; break;
        case 2: s = -ps, c = -pc; break;
        default: s = -pc, c = ps; break;
    }
}

}  // namespace rope_impl

// What a launch rotates: q's and k's heads of every token (k may have no heads).
template <class T>
struct RopeArgs {
    T* q;
    long long q_stride;  // elements between tokens
    int q_heads;
    T* k;
    long long k_stride;
    int k_heads;
    int head_dim;    // elements between heads of a token
    int rotary_dim;  // even, <= head_dim: the first rotary_dim elements of each head rotate
    const int* positions;
    const float* inv_freq;  // rotary_dim / 2 values
    float attention_scaling;
};

// The injected bugs the test must catch; production launchers use None.
enum class RopeBug {
    None,
    DroppedBarrier,  // the barrier between writing cos/sin to shared memory and reading them
    Interleaved,     // Meta/GGUF pairs (2i, 2i + 1) instead of rotate-half (i, i + rotary_dim / 2)
};

template <class T, RopeBug kBug = RopeBug::None>
__global__ void __launch_bounds__(kRopeThreads) rope_rotate_half_kernel(RopeArgs<T> a) {
    CARBON_SHARED(float[kRopeMaxRotaryDim / 2], cos_s);
    CARBON_SHARED(float[kRopeMaxRotaryDim / 2], sin_s);
    const long long t = blockIdx.x;
    const int half = a.rotary_dim / 2;
    const float position = static_cast<float>(a.positions[t]);
    for (int i = static_cast<int>(threadIdx.x); i < half; i += kRopeThreads) {
        float s, c;
        rope_impl::rope_sincos(position * a.inv_freq[i], s, c);
        cos_s[i] = c * a.attention_scaling;
        sin_s[i] = s * a.attention_scaling;
    }
    if constexpr (kBug != RopeBug::DroppedBarrier) __syncthreads();
    const int pairs = (a.q_heads + a.k_heads) * half;
    for (int w = static_cast<int>(threadIdx.x); w < pairs; w += kRopeThreads) {
        const int head = w / half, i = w - head * half;
        T* x = head < a.q_heads ? a.q + t * a.q_stride + static_cast<long long>(head) * a.head_dim
                                : a.k + t * a.k_stride + static_cast<long long>(head - a.q_heads) * a.head_dim;
        const int i0 = kBug == RopeBug::Interleaved ? 2 * i : i;
        const int i1 = kBug == RopeBug::Interleaved ? 2 * i + 1 : i + half;
        const float x0 = io::to_float(x[i0]), x1 = io::to_float(x[i1]);
        const float c = cos_s[i], s = sin_s[i];
        x[i0] = io::from_float<T>(fmaf(x0, c, -(x1 * s)));
        x[i1] = io::from_float<T>(fmaf(x1, c, x0 * s));
    }
}

}  // namespace carbon::kern
