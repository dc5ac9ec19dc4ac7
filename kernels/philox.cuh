// Philox-4x32-10 and the uniform draw of engine/src/fns/sampling.cpp (philox4x32, uniform01), as host and
// device functions, so a kernel draws bit for bit the numbers the CPU sampler draws for the same
// (seed, stream, step, lane). Pure integer arithmetic: no rounding can differ between the two.
#pragma once

#include <cstdint>

#include "cuda_portable.cuh"

namespace carbon::kern {

struct Philox4 {
    uint32_t v[4];
};

// The counter is (step lo, step hi, stream lo, stream hi) and the key (seed lo, seed hi), as
// carbon::uniform01 builds them.
__host__ __device__ __forceinline__ Philox4 philox4x32_10(uint64_t step, uint64_t stream, uint64_t seed) {
    constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    uint32_t c0 = static_cast<uint32_t>(step), c1 = static_cast<uint32_t>(step >> 32);
    uint32_t c2 = static_cast<uint32_t>(stream), c3 = static_cast<uint32_t>(stream >> 32);
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    CARBON_UNROLL
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = static_cast<uint64_t>(M0) * c0, p1 = static_cast<uint64_t>(M1) * c2;
        const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
        const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += W0;
        k1 += W1;
    }
    return {{c0, c1, c2, c3}};
}

// carbon::uniform01: 24 random bits of word `lane` (0..3) as a float in [0, 1). The conversion is
// exact (an integer below 2^24 times 2^-24), so it is the same float on every device.
__host__ __device__ __forceinline__ float philox_uniform01(uint64_t seed, uint64_t stream, uint64_t step,
                                                           uint32_t lane) {
    const Philox4 r = philox4x32_10(step, stream, seed);
    const uint32_t l = lane & 3u;
    // Selected without a run-time index into r.v, which would put it in local memory.
    const uint32_t w = l < 2 ? (l == 0 ? r.v[0] : r.v[1]) : (l == 2 ? r.v[2] : r.v[3]);
    return static_cast<float>(w >> 8) * (1.0f / 16777216.0f);
}

}  // namespace carbon::kern
