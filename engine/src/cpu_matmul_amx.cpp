// The AMX-BF16 matmul path (cpu_matmul_paths.h). It computes y^T = W x^T so the weights, stored
// row-major [n, k] as in the checkpoint, are the tiles' A operand straight from the mapping (16
// weight rows x 32 bf16 per tile, stride k); only the activations are packed, into the B
// operand's pair-interleaved layout (16 pairs of k x 16 activation rows per 1 KB tile), which is
// small and rebuilt per call. Weight panels that are not 16 evenly strided rows (the DNA-rows head,
// the last partial panel) and the k tail are copied, zero-padded, into a thread's own buffer.
//
// Each output is accumulated in its tile over the 32-wide blocks of k in order, the last block
// zero-padded, whatever the number of activation rows, the panel or the thread: an output does not
// depend on the other rows, so decode (one row, the other 15 tile columns zero) and prefill agree
// bit for bit. Tile registers: C = tmm0..3 (2 weight blocks x 2 row blocks), A = tmm4..5, B = tmm6..7.
#include <algorithm>
#include <cstring>

#include "cpu_matmul_paths.h"

#if defined(__x86_64__)
#include "x86_intrinsics.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

namespace {

#define CARBON_AMX __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512bf16")))
// The tile intrinsics are asm statements that do not tell the compiler they touch memory.
#define CARBON_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

constexpr size_t kTile = 16;             // rows of every tile; activation rows per B tile
constexpr size_t kBlockK = 32;           // bf16 values of k per tile row
constexpr size_t kRowBlock = 128;        // activation rows whose packed tiles stay in L2 together

struct alignas(64) TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

TileConfig make_config() {
    TileConfig c;
    for (int t = 0; t < 8; ++t) {
        c.colsb[t] = 64;  // C: 16 fp32; A: 32 bf16; B: 16 pairs of bf16
        c.rows[t] = kTile;
    }
    return c;
}

// Where a 32-row weight panel's A tiles come from: the mapping itself (two 16-row runs at stride k)
// for the full blocks, and a zero-padded copy for the k tail; or, for rows that are not evenly
// strided or not 32, a zero-padded copy of the whole panel.
struct Panel {
    const uint16_t* a[2] = {nullptr, nullptr};
    size_t stride_bytes = 0;
    size_t full_blocks = 0;     // blocks read from a[]; the rest from tail
    alignas(64) uint16_t tail[2][kTile * kBlockK];
};

void prepare_panel(const WeightMatrix& w, const int32_t* rows, size_t n, size_t j, size_t k_padded,
                   std::vector<uint16_t>& copy, Panel& p) {
    const size_t k = w.cols, nkb = k_padded / kBlockK;
    const uint16_t* wbase = static_cast<const uint16_t*>(w.data);
    const size_t valid = std::min<size_t>(2 * kTile, n - j);
    if (!rows && valid == 2 * kTile) {
        p.a[0] = wbase + j * k;
        p.a[1] = wbase + (j + kTile) * k;
        p.stride_bytes = k * 2;
        p.full_blocks = k / kBlockK;
        const size_t k0 = p.full_blocks * kBlockK;
        if (k0 < k)
            for (int t = 0; t < 2; ++t) {
                std::fill(std::begin(p.tail[t]), std::end(p.tail[t]), uint16_t(0));
                for (size_t r = 0; r < kTile; ++r) std::memcpy(p.tail[t] + r * kBlockK, p.a[t] + r * k + k0, (k - k0) * 2);
            }
        return;
    }
    copy.resize(2 * kTile * k_padded);
    for (size_t r = 0; r < 2 * kTile; ++r) {
        uint16_t* dst = copy.data() + r * k_padded;
        const size_t have = r < valid ? k : 0;
        if (have) std::memcpy(dst, wbase + (rows ? size_t(rows[j + r]) : j + r) * k, k * 2);
        std::fill(dst + have, dst + k_padded, uint16_t(0));
    }
    p.a[0] = copy.data();
    p.a[1] = copy.data() + kTile * k_padded;
    p.stride_bytes = k_padded * 2;
    p.full_blocks = nkb;
}

// One 32-weight-row panel against one or two 16-row activation blocks (rb, rb + 1 when `two`).
CARBON_AMX void panel_tiles(const Panel& p, const uint32_t* b0, const uint32_t* b1, bool two, size_t nkb,
                            float (*out)[kTile][kTile]) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    const size_t tile_u32 = kTile * kTile;
    for (size_t kb = 0; kb < nkb; ++kb) {
        if (kb < p.full_blocks) {
            _tile_loadd(4, p.a[0] + kb * kBlockK, p.stride_bytes);
            _tile_loadd(5, p.a[1] + kb * kBlockK, p.stride_bytes);
        } else {
            _tile_loadd(4, p.tail[0], kBlockK * 2);
            _tile_loadd(5, p.tail[1], kBlockK * 2);
        }
        _tile_loadd(6, b0 + kb * tile_u32, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 5, 6);
        if (two) {
            _tile_loadd(7, b1 + kb * tile_u32, 64);
            _tile_dpbf16ps(2, 4, 7);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, out[0], 64);
    _tile_stored(1, out[1], 64);
    if (two) {
        _tile_stored(2, out[2], 64);
        _tile_stored(3, out[3], 64);
    }
    CARBON_MEMORY_BARRIER();
}

// Writes C tiles out[a + 2b] (a: weight block, b: activation block; [weight row][activation row])
// into y transposed: y[r0 + r][c0 + 16a + c] for r < nr, c < the block's valid weight rows.
CARBON_AMX void store_transposed(const float (*out)[kTile][kTile], size_t blocks, size_t m, size_t n, size_t rb,
                                 size_t j, float* y, size_t ldy) {
    for (size_t b = 0; b < blocks; ++b) {
        const size_t r0 = (rb + b) * kTile, nr = std::min(kTile, m - r0);
        for (size_t a = 0; a < 2; ++a) {
            const size_t c0 = j + a * kTile;
            if (c0 >= n) continue;
            const size_t nc = std::min(kTile, n - c0);
            const __mmask16 mask = __mmask16((1u << nc) - 1);
            __m512 rows[16];
            for (size_t c = 0; c < kTile; ++c) rows[c] = _mm512_load_ps(out[a + 2 * b][c]);
            transpose16(rows);
            for (size_t r = 0; r < nr; ++r) _mm512_mask_storeu_ps(y + (r0 + r) * ldy + c0, mask, rows[r]);
        }
    }
}

CARBON_AMX void load_config(const TileConfig& c) {
    CARBON_MEMORY_BARRIER();
    _tile_loadconfig(&c);
}
CARBON_AMX void release_tiles() { _tile_release(); }

}  // namespace

void matmul_amx(ThreadPool& pool, const Bf16Rows& x, const WeightMatrix& w, const int32_t* rows, size_t n, float* y,
                size_t ldy) {
    const size_t m = x.m, nkb = x.k_padded / kBlockK, nrb = (m + kTile - 1) / kTile;
    thread_local std::vector<uint32_t> packed_rows;  // the caller's; the workers read it through `packed`
    pack_rows(pool, x, packed_rows);  // B tile (rb, kb) at (rb * nkb + kb) * 256
    const uint32_t* packed = packed_rows.data();
    static const TileConfig config = make_config();
    const size_t panels = (n + 2 * kTile - 1) / (2 * kTile);
    pool.parallel_for(panels, panel_grain(pool, panels), [&](size_t p0, size_t p1, int) {
        thread_local std::vector<uint16_t> copy;
        Panel panel;
        alignas(64) float out[4][kTile][kTile];
        load_config(config);
        for (size_t rb0 = 0; rb0 < nrb; rb0 += kRowBlock / kTile) {
            const size_t rb1 = std::min(nrb, rb0 + kRowBlock / kTile);
            for (size_t pi = p0; pi < p1; ++pi) {
                const size_t j = pi * 2 * kTile;
                prepare_panel(w, rows, n, j, x.k_padded, copy, panel);
                CARBON_MEMORY_BARRIER();
                for (size_t rb = rb0; rb < rb1; rb += 2) {
                    const bool two = rb + 1 < rb1;
                    const uint32_t* b0 = packed + rb * nkb * kTile * kTile;
                    panel_tiles(panel, b0, two ? b0 + nkb * kTile * kTile : b0, two, nkb, out);
                    store_transposed(out, two ? 2 : 1, m, n, rb, j, y, ldy);
                }
            }
        }
        release_tiles();
    });
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void matmul_amx(ThreadPool&, const Bf16Rows&, const WeightMatrix&, const int32_t*, size_t, float*, size_t) {
    throw Error("AMX kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif
