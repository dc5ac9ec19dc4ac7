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
#include "amx_tiles.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

namespace {

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
