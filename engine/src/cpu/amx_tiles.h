// The tile macros of the AMX kernels (cpu_amx_kernels.inc, cpu_amx_packed_kernel.inc,
// cpu_amx_attention_kernel.inc) on the tile registers, for the files that run them on the hardware
// (cpu_matmul_amx.cpp, cpu_attention_amx.cpp); tests/engine/amx_emulation.h defines the same macros
// on an emulation. Every tile is configured as 16 rows of 64 bytes (C: 16 fp32; A: 32 bf16; B: 16
// pairs of bf16); the int8 kernel's configuration is below. Include inside no namespace; x86-64
// only.
#pragma once

#if defined(__x86_64__)
#include <cstdint>

#include "x86_intrinsics.h"

#define CARBON_TILE_FN __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512bf16")))
// The tile intrinsics are asm statements that do not tell the compiler they touch memory.
#define CARBON_TILE_BARRIER() __asm__ volatile("" ::: "memory")
#define CARBON_TILE_ZERO(t) _tile_zero(t)
#define CARBON_TILE_LOAD(t, ptr, stride) _tile_loadd(t, ptr, stride)
#define CARBON_TILE_STORE(t, ptr, stride) _tile_stored(t, ptr, stride)
#define CARBON_TILE_DOT(c, a, b) _tile_dpbf16ps(c, a, b)
#define CARBON_TILE_CONFIGURE() ::carbon::cpu::detail::amx_tiles::load_config()
#define CARBON_TILE_RELEASE() _tile_release()
// The int8 kernel's (tdpbsud: signed A bytes, unsigned B bytes, int32 C).
#define CARBON_TILE8_FN __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,avx512vnni,fma,f16c")))
#define CARBON_TILE8_CONFIGURE() ::carbon::cpu::detail::amx_tiles::load_config_int8()
#define CARBON_TILE8_LOAD_A(t, ptr, stride) _tile_loadd(t, ptr, stride)
#define CARBON_TILE8_LOAD_B(t, ptr) _tile_loadd(t, ptr, 64)
#define CARBON_TILE8_DOT(c, a, b) _tile_dpbsud(c, a, b)
#define CARBON_TILE8_CONFIGURE_FULL() ::carbon::cpu::detail::amx_tiles::load_config_int8_full()
#define CARBON_TILE8_DOT64(c, a, b) _tile_dpbsud(c, a, b)

namespace carbon::cpu::detail::amx_tiles {

struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

// The bf16 kernels' configuration, and the int8 rows scheme's (cpu_q8_amx_rows_kernel.inc): every
// tile 16 rows of 64 bytes. The int8 groups scheme's (cpu_q8_amx_kernel.inc): C = tmm0..3 16 rows
// of 16 int32, A = tmm4..5 16 rows of 32 int8 (one group of k), B = tmm6..7 8 rows of 64 bytes
// (four k of 16 outputs per row).
inline TileConfig tile_config(bool int8_groups) {
    TileConfig c;
    for (int t = 0; t < 8; ++t) {
        c.colsb[t] = int8_groups && (t == 4 || t == 5) ? 32 : 64;
        c.rows[t] = int8_groups && t >= 6 ? 8 : 16;
    }
    return c;
}

// (One function per target: each must carry the instruction sets of the kernels that call it.)
CARBON_TILE_FN inline void load_config() {
    static const TileConfig config = tile_config(false);
    CARBON_TILE_BARRIER();
    _tile_loadconfig(&config);
}
CARBON_TILE8_FN inline void load_config_int8() {
    static const TileConfig config = tile_config(true);
    CARBON_TILE_BARRIER();
    _tile_loadconfig(&config);
}
CARBON_TILE8_FN inline void load_config_int8_full() {
    static const TileConfig config = tile_config(false);
    CARBON_TILE_BARRIER();
    _tile_loadconfig(&config);
}

}  // namespace carbon::cpu::detail::amx_tiles

#endif
