// An emulation of the AMX-BF16 tile instructions that the kernels of cpu_amx_kernels.inc use, in
// plain C++, so that their indexing (panels, row blocks, k chunks, padding, the DNA-row
// indirection, the transposed stores) is proven on any CPU. It provides what that file asks its
// includer for; a test includes this header, then the kernels inside carbon::cpu::detail.
//
// tdpbf16ps follows the Intel SDM's pseudo-code: per C element, for each pair of k in order, the
// even product then the odd one added in fp32, rounding to nearest even; denormal inputs read as
// zero and denormal results flushed to zero. Tiles are 16 rows of 64 bytes (the configuration the
// kernels load); using one before the configuration is loaded, or after it is released, is
// counted as misuse (the hardware faults). What it cannot show: a missing CARBON_TILE_BARRIER (its
// tile instructions are ordinary function calls), a misaligned transposed store, or the hardware's
// own order of additions (the kernels' reference shares dot_pair with it; the tiles themselves are
// checked against it only on a CPU with AMX).
#pragma once

#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "carbon/support/common.h"

namespace carbon::cpu::detail {

namespace amx_emulation {

struct Tiles {
    alignas(64) uint8_t t[8][16][64];
    bool configured = false;
};
inline Tiles& tiles() {
    thread_local Tiles s;
    return s;
}
inline std::atomic<size_t>& misuse() {
    static std::atomic<size_t> n{0};
    return n;
}
// Tile loads made, by every thread (which kernel ran shows in how many it made).
inline std::atomic<size_t>& loads() {
    static std::atomic<size_t> n{0};
    return n;
}
inline Tiles& use() {
    Tiles& s = tiles();
    if (!s.configured) ++misuse();
    return s;
}

inline float flush(float f) { return std::fabs(f) < FLT_MIN ? std::copysign(0.0f, f) : f; }
inline float bf16_daz(uint16_t h) { return flush(bf16_to_f32(h)); }

// acc plus a pair's products, as one C element of tdpbf16ps takes them.
inline float dot_pair(float acc, uint32_t a_pair, uint32_t b_pair) {
    acc = flush(acc + bf16_daz(uint16_t(a_pair)) * bf16_daz(uint16_t(b_pair)));
    return flush(acc + bf16_daz(uint16_t(a_pair >> 16)) * bf16_daz(uint16_t(b_pair >> 16)));
}

inline void configure() { tiles().configured = true; }
inline void release() {
    Tiles& s = use();
    s.configured = false;
}
inline void zero(int t) { std::memset(use().t[t], 0, sizeof use().t[t]); }
inline void load(int t, const void* p, size_t stride) {
    Tiles& s = use();
    ++loads();
    for (int r = 0; r < 16; ++r) std::memcpy(s.t[t][r], static_cast<const char*>(p) + r * stride, 64);
}
inline void store(int t, void* p, size_t stride) {
    Tiles& s = use();
    for (int r = 0; r < 16; ++r) std::memcpy(static_cast<char*>(p) + r * stride, s.t[t][r], 64);
}
// C[m][n] += sum over pairs k of A[m] pair k . B[k] pair n (A: 16 rows x 16 pairs, B: 16 pairs x 16 columns of pairs).
inline void dot(int c, int a, int b) {
    Tiles& s = use();
    for (int m = 0; m < 16; ++m) {
        float row[16];
        std::memcpy(row, s.t[c][m], 64);
        for (int k = 0; k < 16; ++k) {
            uint32_t ap, bp[16];
            std::memcpy(&ap, s.t[a][m] + 4 * k, 4);
            std::memcpy(bp, s.t[b][k], 64);
            for (int n = 0; n < 16; ++n) row[n] = dot_pair(row[n], ap, bp[n]);
        }
        std::memcpy(s.t[c][m], row, 64);
    }
}

// The int8 kernel's tiles (cpu_q8_amx_kernel.inc; the configuration of amx_tiles.h's
// load_config_int8): A 16 rows of 32 signed bytes, B 8 rows of 64 unsigned bytes, C 16 rows of 16
// int32; tdpbsud adds, per C element, the 32 products of its A row and B column in int32 (exact
// at these sizes, so the order cannot show).
inline void load_a8(int t, const void* p, size_t stride) {
    Tiles& s = use();
    ++loads();
    std::memset(s.t[t], 0, sizeof s.t[t]);
    for (int r = 0; r < 16; ++r) std::memcpy(s.t[t][r], static_cast<const char*>(p) + r * stride, 32);
}
inline void load_b8(int t, const void* p) {
    Tiles& s = use();
    ++loads();
    std::memset(s.t[t], 0, sizeof s.t[t]);
    for (int r = 0; r < 8; ++r) std::memcpy(s.t[t][r], static_cast<const char*>(p) + r * 64, 64);
}
// k = 32 (the groups scheme's configuration) or 64 (the rows scheme's, every tile 16 x 64 bytes).
inline void dot_su8(int c, int a, int b, int k) {
    Tiles& s = use();
    for (int m = 0; m < 16; ++m) {
        int32_t row[16];
        std::memcpy(row, s.t[c][m], 64);
        for (int n = 0; n < 16; ++n)
            for (int t = 0; t < k; ++t) row[n] += int32_t(int8_t(s.t[a][m][t])) * int32_t(s.t[b][t / 4][4 * n + t % 4]);
        std::memcpy(s.t[c][m], row, 64);
    }
}

}  // namespace amx_emulation

#define CARBON_TILE8_CONFIGURE_FULL() amx_emulation::configure()
#define CARBON_TILE8_DOT64(c, a, b) amx_emulation::dot_su8(c, a, b, 64)
#define CARBON_TILE8_FN
#define CARBON_TILE8_CONFIGURE() amx_emulation::configure()
#define CARBON_TILE8_LOAD_A(t, ptr, stride) amx_emulation::load_a8(t, ptr, stride)
#define CARBON_TILE8_LOAD_B(t, ptr) amx_emulation::load_b8(t, ptr)
#define CARBON_TILE8_DOT(c, a, b) amx_emulation::dot_su8(c, a, b, 32)

#define CARBON_TILE_FN
#define CARBON_TILE_BARRIER() ((void)0)
#define CARBON_TILE_ZERO(t) amx_emulation::zero(t)
#define CARBON_TILE_LOAD(t, ptr, stride) amx_emulation::load(t, ptr, stride)
#define CARBON_TILE_STORE(t, ptr, stride) amx_emulation::store(t, ptr, stride)
#define CARBON_TILE_DOT(c, a, b) amx_emulation::dot(c, a, b)
#define CARBON_TILE_CONFIGURE() amx_emulation::configure()
#define CARBON_TILE_RELEASE() amx_emulation::release()

inline void store_c_transposed(const float (*c)[16], size_t nr, size_t nc, float* y, size_t ldy) {
    for (size_t r = 0; r < nr; ++r)
        for (size_t i = 0; i < nc; ++i) y[r * ldy + i] = c[i][r];
}

}  // namespace carbon::cpu::detail
