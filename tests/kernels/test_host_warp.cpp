// Host layer tests, warp operations: every shuffle variant with widths 32/16/8/4/2/1 and int, unsigned,
// long long, float, double, bf16(2) and half(2) values against an independent reference written
// from CUDA's documentation; partial masks, exited and missing lanes (their values read as junk);
// ballot/any/all and __reduce_*_sync with partial masks; __syncwarp; misuse reported.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "cuda_portable.cuh"

using carbon::kern::launch;

enum class Shuffle { Idx, Up, Down, Xor };

// Lanes named in `mask` shuffle; the others keep their input. Threads with index >= active return.
template <class T, Shuffle kind>
__global__ void warp_shuffle_kernel(const T* in, T* out, int operand, int width, unsigned mask, unsigned active) {
    const unsigned t = threadIdx.x, lane = t % 32;
    if (t >= active) return;
    T v = in[t];
    if (mask >> lane & 1u) {
        if constexpr (kind == Shuffle::Idx) v = __shfl_sync(mask, v, operand, width);
        if constexpr (kind == Shuffle::Up) v = __shfl_up_sync(mask, v, static_cast<unsigned>(operand), width);
        if constexpr (kind == Shuffle::Down) v = __shfl_down_sync(mask, v, static_cast<unsigned>(operand), width);
        if constexpr (kind == Shuffle::Xor) v = __shfl_xor_sync(mask, v, operand, width);
    }
    out[t] = v;
}

namespace {

// The source lane per CUDA's programming guide (operands in range): -1 for "the lane's own value".
int documented_source(Shuffle kind, int lane, int operand, int width) {
    const int segment = lane / width;
    switch (kind) {
        case Shuffle::Idx:
            return segment * width + operand % width;
        case Shuffle::Up:
            return lane % width >= operand ? lane - operand : -1;
        case Shuffle::Down:
            return lane % width + operand < width ? lane + operand : -1;
        case Shuffle::Xor: {
            const int src = lane ^ operand;
            return src / width > segment ? -1 : src;  // earlier groups are readable, later ones not
        }
    }
    return -1;
}

template <class T>
T value_for(unsigned t) {
    if constexpr (std::is_same_v<T, __nv_bfloat162>)
        return __floats2bfloat162_rn(float(t), float(t) + 0.5f);
    else if constexpr (std::is_same_v<T, __half2>)
        return __floats2half2_rn(float(t), float(t) + 0.5f);
    else if constexpr (std::is_same_v<T, long long>)
        return static_cast<long long>(t) * 4000000000ll - 7;
    else
        return T(static_cast<float>(t) + 1.0f);  // small integers: exact in bf16 and half
}

template <class T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(T)) == 0;
}

template <class T>
bool is_junk(const T& v) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, static_cast<const void*>(&v), sizeof(T));
    for (unsigned char b : bytes)
        if (b != 0xFF) return false;
    return true;
}

// Runs one shuffle over `threads` threads (a partial last warp when not a multiple of 32) and checks
// every lane: participants get the documented source's value, or junk when that source is not
// active; the others keep theirs.
template <class T, Shuffle kind>
void check_shuffle(int operand, int width, unsigned mask, unsigned threads, unsigned active) {
    std::vector<T> in(threads), out(threads);
    for (unsigned t = 0; t < threads; ++t) in[t] = value_for<T>(t);
    launch(warp_shuffle_kernel<T, kind>, dim3(1), dim3(threads), 0, nullptr, in.data(), out.data(), operand, width,
           mask, active);
    for (unsigned t = 0; t < active; ++t) {
        const int lane = static_cast<int>(t % 32), base = static_cast<int>(t - t % 32);
        if (!(mask >> lane & 1u)) {
            CHECK(same_bits(out[t], in[t]));
            continue;
        }
        const int src = documented_source(kind, lane, operand, width);
        if (src < 0) {
            CHECK(same_bits(out[t], in[t]));
        } else {
            const unsigned s = static_cast<unsigned>(base + src);
            const bool src_active = (mask >> src & 1u) && s < active;
            if (src_active)
                CHECK(same_bits(out[t], in[s]));
            else
                CHECK(is_junk(out[t]));
        }
    }
}

template <class T>
void check_all_shuffles() {
    for (const int width : {32, 16, 8, 4, 2, 1}) {
        for (int src = 0; src < width; src += (width > 4 ? 3 : 1))
            check_shuffle<T, Shuffle::Idx>(src, width, ~0u, 96, 96);
        for (const int delta : {0, 1, 2, 3, 5, 16}) {
            check_shuffle<T, Shuffle::Up>(delta, width, ~0u, 96, 96);
            check_shuffle<T, Shuffle::Down>(delta, width, ~0u, 96, 96);
        }
        for (const int lane_mask : {1, 2, 4, 8, 16, 3, 31})
            check_shuffle<T, Shuffle::Xor>(lane_mask, width, ~0u, 96, 96);
    }
}

}  // namespace

TEST(shuffles_of_every_type_and_width_follow_cuda) {
    check_all_shuffles<int>();
    check_all_shuffles<unsigned>();
    check_all_shuffles<long long>();
    check_all_shuffles<float>();
    check_all_shuffles<double>();
    check_all_shuffles<__nv_bfloat16>();
    check_all_shuffles<__nv_bfloat162>();
    check_all_shuffles<__half>();
    check_all_shuffles<__half2>();
}

TEST(shuffle_operands_follow_ptx_outside_the_documented_range) {
    // Only the low 5 bits of srcLane count, as in PTX's shfl.sync: -1 is lane 31 of the segment.
    std::vector<int> in(32), out(32);
    for (int t = 0; t < 32; ++t) in[t] = 100 + t;
    launch(warp_shuffle_kernel<int, Shuffle::Idx>, dim3(1), dim3(32), 0, nullptr, in.data(), out.data(), -1, 32, ~0u,
           32u);
    for (int t = 0; t < 32; ++t) CHECK_EQ(out[t], 131);
    launch(warp_shuffle_kernel<int, Shuffle::Idx>, dim3(1), dim3(32), 0, nullptr, in.data(), out.data(), 37, 8, ~0u,
           32u);
    for (int t = 0; t < 32; ++t) CHECK_EQ(out[t], 100 + t / 8 * 8 + 5);
}

TEST(partial_masks_exited_and_missing_lanes) {
    // Lanes of the other half do not take part; reading them gives junk.
    check_shuffle<float, Shuffle::Down>(1, 32, 0x0000FFFFu, 32, 32);
    check_shuffle<float, Shuffle::Down>(1, 16, 0x0000FFFFu, 32, 32);
    check_shuffle<int, Shuffle::Xor>(4, 32, 0xF0F0F0F0u, 64, 64);
    check_shuffle<int, Shuffle::Idx>(2, 32, 0x0000000Fu, 32, 32);
    // Lanes 24-31 exit first: the full-mask shuffle goes on without them (CUDA allows exited lanes in
    // the mask), and reads from them are junk.
    check_shuffle<int, Shuffle::Down>(4, 32, ~0u, 32, 24);
    check_shuffle<float, Shuffle::Idx>(30, 32, ~0u, 32, 24);
    // A block of 80 threads: the third warp has lanes 0-15 only.
    check_shuffle<float, Shuffle::Down>(8, 32, ~0u, 80, 80);
    check_shuffle<__nv_bfloat16, Shuffle::Xor>(16, 32, ~0u, 80, 80);
}

// Each half-warp shuffles with its own mask at its own call; both must complete.
__global__ void warp_halves_kernel(int* out) {
    const unsigned lane = threadIdx.x % 32;
    int v = static_cast<int>(threadIdx.x);
    if (lane < 16)
        v = __shfl_sync(0x0000FFFFu, v, 3);
    else
        v = __shfl_sync(0xFFFF0000u, v, 20);
    out[threadIdx.x] = v;
}

TEST(two_half_warps_with_disjoint_masks) {
    std::vector<int> out(64);
    launch(warp_halves_kernel, dim3(1), dim3(64), 0, nullptr, out.data());
    for (int t = 0; t < 64; ++t) CHECK_EQ(out[t], t / 32 * 32 + (t % 32 < 16 ? 3 : 20));
}

__global__ void warp_votes_kernel(unsigned* out, unsigned mask, unsigned active) {
    const unsigned lane = threadIdx.x % 32;
    if (threadIdx.x >= active || !(mask >> lane & 1u)) return;
    const int pred = lane % 3 == 0;
    out[4 * threadIdx.x + 0] = __ballot_sync(mask, pred);
    out[4 * threadIdx.x + 1] = static_cast<unsigned>(__any_sync(mask, pred));
    out[4 * threadIdx.x + 2] = static_cast<unsigned>(__all_sync(mask, pred));
    out[4 * threadIdx.x + 3] = static_cast<unsigned>(__all_sync(mask, lane < 30));
}

TEST(ballot_any_all_over_partial_masks_and_exited_lanes) {
    struct Case {
        unsigned mask, active;
    };
    for (const Case c : {Case{~0u, 32}, Case{0x0F0F0F0Fu, 32}, Case{0x00000009u, 32}, Case{0x0000FFF0u, 32},
                         Case{~0u, 24}, Case{0x40000000u, 32}}) {
        std::vector<unsigned> out(4 * 32, 0xDEADu);
        launch(warp_votes_kernel, dim3(1), dim3(32), 0, nullptr, out.data(), c.mask, c.active);
        unsigned live = 0, ballot = 0;
        for (unsigned l = 0; l < c.active; ++l)
            if (c.mask >> l & 1u) {
                live |= 1u << l;
                if (l % 3 == 0) ballot |= 1u << l;
            }
        unsigned below30 = 0;
        for (unsigned l = 0; l < 30; ++l) below30 |= 1u << l;
        for (unsigned l = 0; l < 32; ++l) {
            if (!(live >> l & 1u)) {
                CHECK_EQ(out[4 * l], 0xDEADu);
                continue;
            }
            CHECK_EQ(out[4 * l + 0], ballot);
            CHECK_EQ(out[4 * l + 1], ballot != 0 ? 1u : 0u);
            CHECK_EQ(out[4 * l + 2], ballot == live ? 1u : 0u);
            CHECK_EQ(out[4 * l + 3], (live & ~below30) == 0 ? 1u : 0u);
        }
    }
}

__global__ void warp_reduce_kernel(const int* in, int* out, unsigned mask) {
    const unsigned lane = threadIdx.x % 32;
    if (!(mask >> lane & 1u)) return;
    const int v = in[threadIdx.x];
    const auto u = static_cast<unsigned>(v);
    int* o = out + 9 * threadIdx.x;
    o[0] = __reduce_add_sync(mask, v);
    o[1] = __reduce_min_sync(mask, v);
    o[2] = __reduce_max_sync(mask, v);
    o[3] = static_cast<int>(__reduce_add_sync(mask, u));
    o[4] = static_cast<int>(__reduce_min_sync(mask, u));
    o[5] = static_cast<int>(__reduce_max_sync(mask, u));
    o[6] = static_cast<int>(__reduce_and_sync(mask, u));
    o[7] = static_cast<int>(__reduce_or_sync(mask, u));
    o[8] = static_cast<int>(__reduce_xor_sync(mask, u));
}

TEST(warp_reductions_over_full_and_partial_masks) {
    std::vector<int> in(32);
    for (int l = 0; l < 32; ++l) in[l] = (l % 5 == 0 ? -1 : 1) * (l * 37 % 101) + 3;
    for (const unsigned mask : {~0u, 0x0000FF00u, 0x80000001u}) {
        std::vector<int> out(9 * 32, 0);
        launch(warp_reduce_kernel, dim3(1), dim3(32), 0, nullptr, in.data(), out.data(), mask);
        int add = 0, mn = 0, mx = 0;
        unsigned umin = ~0u, umax = 0, uand = ~0u, uor = 0, uxor = 0;
        bool first = true;
        for (int l = 0; l < 32; ++l) {
            if (!(mask >> l & 1u)) continue;
            const int v = in[l];
            const auto u = static_cast<unsigned>(v);
            add += v;
            mn = first ? v : std::min(mn, v);
            mx = first ? v : std::max(mx, v);
            first = false;
            umin = std::min(umin, u);
            umax = std::max(umax, u);
            uand &= u;
            uor |= u;
            uxor ^= u;
        }
        for (int l = 0; l < 32; ++l) {
            if (!(mask >> l & 1u)) continue;
            const int* o = &out[9 * l];
            CHECK_EQ(o[0], add);
            CHECK_EQ(o[1], mn);
            CHECK_EQ(o[2], mx);
            CHECK_EQ(o[3], add);
            CHECK_EQ(static_cast<unsigned>(o[4]), umin);
            CHECK_EQ(static_cast<unsigned>(o[5]), umax);
            CHECK_EQ(static_cast<unsigned>(o[6]), uand);
            CHECK_EQ(static_cast<unsigned>(o[7]), uor);
            CHECK_EQ(static_cast<unsigned>(o[8]), uxor);
        }
    }
}

// Warp-synchronous exchange through shared memory: correct only with __syncwarp between the phases.
__global__ void warp_syncwarp_kernel(int* out) {
    CARBON_SHARED(int[64], buf);
    const unsigned lane = threadIdx.x % 32, half_warp = lane / 16;
    const unsigned mask = half_warp == 0 ? 0x0000FFFFu : 0xFFFF0000u;
    buf[threadIdx.x] = static_cast<int>(threadIdx.x) * 10;
    __syncwarp(mask);
    out[threadIdx.x] = buf[threadIdx.x ^ 15u];  // mirror within the half-warp
    __syncwarp();
}

TEST(syncwarp_orders_shared_memory_within_the_mask) {
    std::vector<int> out(64);
    launch(warp_syncwarp_kernel, dim3(1), dim3(64), 0, nullptr, out.data());
    for (unsigned t = 0; t < 64; ++t) CHECK_EQ(out[t], static_cast<int>((t ^ 15u) * 10));
}

__global__ void warp_bad_mask_kernel() {
    (void)__shfl_sync(0xFFFFFFFEu, 1.0f, 1);
}
__global__ void warp_bad_width_kernel() {
    (void)__shfl_down_sync(~0u, 1, 1, 12);
}
__global__ void warp_mixed_width_kernel() {
    (void)__shfl_xor_sync(~0u, 1, 1, threadIdx.x < 16 ? 16 : 8);
}

TEST(warp_operation_misuse_is_reported) {
    CHECK_THROWS_WITH(launch(warp_bad_mask_kernel, dim3(1), dim3(32), 0, nullptr), "warp_bad_mask_kernel",
                      "thread 0 (lane 0) calls __shfl_sync at test_host_warp.cpp:",
                      "with mask 0xfffffffe, which does not name its own lane");
    CHECK_THROWS_WITH(launch(warp_bad_width_kernel, dim3(1), dim3(32), 0, nullptr),
                      "with width 12: the width must be a power of two from 1 to 32");
    CHECK_THROWS_WITH(launch(warp_mixed_width_kernel, dim3(1), dim3(32), 0, nullptr),
                      "the lanes of warp 0 call __shfl_xor_sync at", "with different widths (16 and 8)");
}
