// The AMX-BF16 matmul path (cpu_matmul_paths.h): the kernels of cpu_amx_packed_kernel.inc and
// cpu_amx_kernels.inc on the tile registers. For the latter two, activation rows are packed into
// the B-tile layout once per call (pack_rows).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_matmul_paths.h"
#include "cpu_packed_weights.h"

namespace carbon::cpu::detail {

const char* amx_kernel_name(AmxKernel kernel) {
    switch (kernel) {
        case AmxKernel::Packed: return "packed";
        case AmxKernel::InPlace: return "in-place";
        case AmxKernel::KBlocked: return "k-blocked";
    }
    return "?";
}

AmxKernel amx_kernel_choice() {
    // A bad value throws out of the initialisation, which is then tried again on the next call.
    static const AmxKernel kernel = [] {
        const char* env = std::getenv("CARBON_AMX_KERNEL");
        const std::string v = env ? env : "";
        if (v.empty() || v == "packed") return AmxKernel::Packed;
        if (v == "in-place") return AmxKernel::InPlace;
        if (v == "k-blocked") return AmxKernel::KBlocked;
        throw Error("CARBON_AMX_KERNEL=" + v + ": expected packed, in-place or k-blocked");
    }();
    return kernel;
}

}  // namespace carbon::cpu::detail

#if defined(__x86_64__)
#include "x86_intrinsics.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

namespace {

#define CARBON_TILE_FN __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512bf16")))
// The tile intrinsics are asm statements that do not tell the compiler they touch memory.
#define CARBON_TILE_BARRIER() __asm__ volatile("" ::: "memory")
#define CARBON_TILE_ZERO(t) _tile_zero(t)
#define CARBON_TILE_LOAD(t, ptr, stride) _tile_loadd(t, ptr, stride)
#define CARBON_TILE_STORE(t, ptr, stride) _tile_stored(t, ptr, stride)
#define CARBON_TILE_DOT(c, a, b) _tile_dpbf16ps(c, a, b)
#define CARBON_TILE_CONFIGURE() load_config()
#define CARBON_TILE_RELEASE() _tile_release()

// Every tile 16 rows of 64 bytes (C: 16 fp32; A: 32 bf16; B: 16 pairs of bf16).
struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

CARBON_TILE_FN void load_config() {
    static const TileConfig config = [] {
        TileConfig c;
        for (int t = 0; t < 8; ++t) {
            c.colsb[t] = 64;
            c.rows[t] = 16;
        }
        return c;
    }();
    CARBON_TILE_BARRIER();
    _tile_loadconfig(&config);
}

CARBON_TILE_FN void store_c_transposed(const float (*c)[16], size_t nr, size_t nc, float* y, size_t ldy) {
    const __mmask16 mask = __mmask16((1u << nc) - 1);
    __m512 rows[16];
    for (size_t i = 0; i < 16; ++i) rows[i] = _mm512_load_ps(c[i]);
    transpose16(rows);
    for (size_t r = 0; r < nr; ++r) _mm512_mask_storeu_ps(y + r * ldy, mask, rows[r]);
}

}  // namespace

#include "cpu_amx_kernels.inc"
#include "cpu_amx_packed_kernel.inc"

void matmul_amx(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n, float* y,
                size_t ldy, AmxKernel kernel) {
    if (kernel == AmxKernel::Packed) {
        thread_local CacheLineVector<uint16_t> tail;  // the caller's; the workers read it through the call
        run_amx_packed(pool, packed_call(x, w, rows, n, y, ldy, tail));
        return;
    }
    thread_local std::vector<uint32_t> packed_rows;  // the caller's; the workers read it through the call
    pack_rows(pool, x, packed_rows);
    const AmxCall c{packed_rows.data(), x.m, x.k_padded, &w, rows, n, y, ldy};
    run_amx(pool, c, kernel, amx_blocking_for(x.k_padded));
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void matmul_amx(ThreadPool&, const Bf16Rows&, const WeightMatrix&, const int32_t*, size_t, float*, size_t, AmxKernel) {
    throw Error("AMX kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif

namespace carbon::cpu::detail {
void matmul_amx(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n, float* y,
                size_t ldy) {
    matmul_amx(pool, x, w, rows, n, y, ldy, amx_kernel_choice());
}
}  // namespace carbon::cpu::detail
