// The AMX kernels (cpu_amx_packed_kernel.inc, cpu_amx_kernels.inc) on any CPU, through the tile
// emulation of amx_emulation.h: each output of the packed kernel (on the backend's packed copy and
// on weights packed panel by panel as reached) and of the in-place kernel equals tdpbf16ps's
// documented sum of exactly its row and weight row, bit for bit, at awkward sizes (k across the
// 32-wide blocks, n across the 32-output panels and 16-output groups, m across the 16-row blocks,
// their pairs and the packed kernel's row chunks, the DNA-row indirection); the k-blocked kernel
// gives the in-place kernel's bits at every chunking, including chunks of one block and one row
// block (the kernel called directly, and run_amx shown to take it); columns past n are never
// written. On a CPU with AMX the tile instructions themselves: the three kernels the same bits,
// and within fp32 rounding of the emulation. The activation packing the two older kernels read
// (pack_rows) is checked against its documented layout where the CPU runs it (AVX-512 BF16).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "amx_emulation.h"
#include "carbon/support/common.h"
#include "carbon/support/thread_pool.h"
#include "check.h"
#include "cpu/cpu_isa.h"
#include "cpu/cpu_matmul_paths.h"
#include "cpu/cpu_packed_weights.h"

namespace carbon::cpu::detail {
#include "cpu/cpu_amx_kernels.inc"
#include "cpu/cpu_amx_packed_kernel.inc"
}  // namespace carbon::cpu::detail

using namespace carbon;
using namespace carbon::cpu::detail;
using carbon::cpu::PackedWeights;
using carbon::cpu::WeightMatrix;

namespace {

struct Problem {
    size_t m, n, k;
    bool use_rows;
};

std::vector<Problem> problems() {
    std::vector<Problem> p;
    for (size_t m : {1, 2, 16, 17, 33, 40, 64, 65})
        for (size_t n : {1, 7, 32, 33, 100})
            for (size_t k : {1, 31, 32, 33, 64, 100, 257})
                for (bool rows : {false, true}) p.push_back({m, n, k, rows});
    for (bool rows : {false, true}) {
        p.push_back({130, 64, 257, rows});  // the in-place kernel's 128-row blocks
        p.push_back({300, 70, 1100, rows});  // several default row and k chunks
    }
    return p;
}

// One problem's inputs as the kernels read them: bf16 weights (n + 5 rows; rows[j] picks output
// j's row when the problem uses the indirection), activations rounded to bf16 and packed in
// pack_rows' documented layout.
struct Inputs {
    Problem pr;
    size_t k_padded;
    std::vector<uint16_t> w, xb;  // xb: m x k_padded, zeros past k
    std::vector<uint32_t> packed;
    std::vector<int32_t> rows;
    WeightMatrix wm;

    explicit Inputs(const Problem& p, std::mt19937& rng) : pr(p), k_padded((p.k + 31) / 32 * 32) {
        std::normal_distribution<float> nd(0.f, 1.f);
        const size_t wrows = p.n + 5;
        w.resize(wrows * p.k);
        for (auto& v : w) v = f32_to_bf16(nd(rng));
        xb.assign(p.m * k_padded, 0);
        for (size_t i = 0; i < p.m; ++i)
            for (size_t c = 0; c < p.k; ++c) xb[i * k_padded + c] = f32_to_bf16(nd(rng));
        const size_t nrb = (p.m + 15) / 16;
        packed.assign(nrb * k_padded / 2 * 16, 0);
        for (size_t i = 0; i < p.m; ++i)
            for (size_t q = 0; q < k_padded / 2; ++q)
                packed[i / 16 * (k_padded / 2 * 16) + q * 16 + i % 16] =
                    uint32_t(xb[i * k_padded + 2 * q]) | uint32_t(xb[i * k_padded + 2 * q + 1]) << 16;
        rows.resize(p.n);
        for (size_t j = 0; j < p.n; ++j) rows[j] = int32_t((j * 7 + 3) % wrows);
        wm = WeightMatrix{w.data(), DType::BF16, wrows, p.k};
    }
    const int32_t* row_list() const { return pr.use_rows ? rows.data() : nullptr; }
    AmxCall call(float* y, size_t ldy) const { return {packed.data(), pr.m, k_padded, &wm, row_list(), pr.n, y, ldy}; }

    // tdpbf16ps's sum for output (i, j): every pair of the padded k in order, from zero.
    float reference(size_t i, size_t j) const {
        const size_t r = pr.use_rows ? size_t(rows[j]) : j;
        float acc = 0.0f;
        for (size_t q = 0; q < k_padded / 2; ++q) {
            const size_t c = 2 * q;
            const uint16_t w0 = c < pr.k ? w[r * pr.k + c] : 0, w1 = c + 1 < pr.k ? w[r * pr.k + c + 1] : 0;
            const uint32_t a = uint32_t(w0) | uint32_t(w1) << 16;
            const uint32_t b = uint32_t(xb[i * k_padded + c]) | uint32_t(xb[i * k_padded + c + 1]) << 16;
            acc = amx_emulation::dot_pair(acc, a, b);
        }
        return acc;
    }
};

constexpr float kUnwritten = -7.f;

std::vector<float> run(ThreadPool& pool, const Inputs& in, AmxKernel kernel, const AmxBlocking& bl, size_t ldy) {
    std::vector<float> y(in.pr.m * ldy, kUnwritten);
    run_amx(pool, in.call(y.data(), ldy), kernel, bl);
    return y;
}

// The k-blocked kernel itself, whatever the row count (run_amx takes it only past two row blocks).
std::vector<float> run_k_blocked(ThreadPool& pool, const Inputs& in, const AmxBlocking& bl, size_t ldy) {
    std::vector<float> y(in.pr.m * ldy, kUnwritten);
    const AmxCall c = in.call(y.data(), ldy);
    pool.parallel_for(c.panels(), 1, [&](size_t p0, size_t p1, int) { amx_k_blocked(c, bl, p0, p1); });
    return y;
}

// The rounded rows as Bf16Rows (64-byte aligned, as round_rows_to_bf16 makes them).
Bf16Rows rows_of(const Inputs& in) {
    Bf16Rows x;
    x.data.assign(in.xb.begin(), in.xb.end());
    x.m = in.pr.m;
    x.k = in.pr.k;
    x.k_padded = in.k_padded;
    return x;
}

// The packed kernel on the weights in place (packed panel by panel as reached) or, when `packed`,
// on the backend's packed copy of the rows the call selects.
std::vector<float> run_packed(ThreadPool& pool, const Inputs& in, bool packed, size_t ldy) {
    std::vector<float> y(in.pr.m * ldy, kUnwritten);
    const Bf16Rows x = rows_of(in);
    WeightMatrix w = in.wm;
    PackedWeights copy;
    if (packed) {
        copy = cpu::pack_weights(pool, in.wm, in.row_list(), in.pr.n, "the test matrix");
        w.packed = copy.data();
    }
    CacheLineVector<uint16_t> tail;
    run_amx_packed(pool, packed_call(x, w, in.row_list(), in.pr.n, y.data(), ldy, tail));
    return y;
}

std::string where(const Problem& p) {
    return "m " + std::to_string(p.m) + " n " + std::to_string(p.n) + " k " + std::to_string(p.k) +
           (p.use_rows ? " (row list)" : "");
}

}  // namespace

TEST(emulated_in_place_kernel_gives_the_documented_sums) {
    ThreadPool pool(2);
    std::mt19937 rng(5);
    const size_t misuse0 = amx_emulation::misuse();
    size_t outputs = 0, wrong_total = 0;
    for (const Problem& p : problems()) {
        const Inputs in(p, rng);
        const size_t ldy = p.n + 3;
        const auto y = run(pool, in, AmxKernel::InPlace, {}, ldy);
        size_t wrong = 0, stray = 0;
        for (size_t i = 0; i < p.m; ++i) {
            for (size_t j = 0; j < p.n; ++j) {
                const float want = in.reference(i, j);
                if (std::memcmp(&want, &y[i * ldy + j], 4) != 0 && !wrong++)
                    std::fprintf(stderr, "  %s at (%zu, %zu): got %.9g want %.9g\n", where(p).c_str(), i, j,
                                 double(y[i * ldy + j]), double(want));
            }
            for (size_t j = p.n; j < ldy; ++j) stray += y[i * ldy + j] != kUnwritten;
        }
        outputs += p.m * p.n;
        wrong_total += wrong;
        CHECK_EQ(wrong, size_t(0));
        CHECK_EQ(stray, size_t(0));
    }
    CHECK_EQ(size_t(amx_emulation::misuse()), misuse0);
    std::fprintf(stderr, "  %zu problems: %zu of %zu outputs differ from tdpbf16ps's sum\n", problems().size(), wrong_total,
                 outputs);
}

// The packed kernel: every output tdpbf16ps's sum of exactly its row and weight row, bit for bit,
// on the packed copy and on the weights in place, whatever the sizes; nothing past n written.
TEST(emulated_packed_kernel_gives_the_documented_sums) {
    ThreadPool pool(2);
    std::mt19937 rng(11);
    const size_t misuse0 = amx_emulation::misuse();
    size_t outputs = 0;
    for (const Problem& p : problems()) {
        const Inputs in(p, rng);
        const size_t ldy = p.n + 3;
        for (bool packed : {true, false}) {
            const auto y = run_packed(pool, in, packed, ldy);
            size_t wrong = 0, stray = 0;
            for (size_t i = 0; i < p.m; ++i) {
                for (size_t j = 0; j < p.n; ++j) {
                    const float want = in.reference(i, j);
                    if (std::memcmp(&want, &y[i * ldy + j], 4) != 0 && !wrong++)
                        std::fprintf(stderr, "  %s, %s: at (%zu, %zu) got %.9g want %.9g\n", where(p).c_str(),
                                     packed ? "packed copy" : "in place", i, j, double(y[i * ldy + j]), double(want));
                }
                for (size_t j = p.n; j < ldy; ++j) stray += y[i * ldy + j] != kUnwritten;
            }
            outputs += p.m * p.n;
            CHECK_EQ(wrong, size_t(0));
            CHECK_EQ(stray, size_t(0));
        }
    }
    CHECK_EQ(size_t(amx_emulation::misuse()), misuse0);
    std::fprintf(stderr, "  %zu outputs of the packed kernel equal tdpbf16ps's sum\n", outputs);
}

// Its row chunks: even, within the bytes they are sized for unless at the 2-block floor.
TEST(packed_kernel_row_chunks_fit_l2) {
    for (size_t kp : {32, 288, 1024, 3072, 8448, 14336, 1 << 20}) {
        const size_t rc = packed_row_chunk(kp);
        CHECK(rc >= 2 && rc <= kMaxRowChunk && rc % 2 == 0);
        CHECK(rc == 2 || rc * 16 * kp * 2 <= kRowChunkBytes);
    }
    CHECK_EQ(packed_row_chunk(0), kMaxRowChunk);
    CHECK_EQ(packed_row_chunk(3072), size_t(10));
    CHECK_EQ(packed_row_chunk(8448), size_t(4));
}

TEST(emulated_k_blocked_kernel_gives_the_in_place_bits) {
    ThreadPool pool(2);
    std::mt19937 rng(6);
    const size_t misuse0 = amx_emulation::misuse();
    size_t runs = 0;
    for (const Problem& p : problems()) {
        const Inputs in(p, rng);
        const size_t ldy = p.n + 1;
        const auto want = run(pool, in, AmxKernel::InPlace, {}, ldy);
        const size_t kp = in.k_padded;
        for (const AmxBlocking& bl : {AmxBlocking{1, 1}, AmxBlocking{2, 2}, AmxBlocking{3, 3}, AmxBlocking{8, 4},
                                      amx_blocking_for(kp)}) {
            const auto got = run_k_blocked(pool, in, bl, ldy);
            ++runs;
            if (std::memcmp(got.data(), want.data(), got.size() * 4) != 0) {
                std::fprintf(stderr, "  %s, chunks of %zu k blocks x %zu row blocks: other bits than in place\n",
                             where(p).c_str(), bl.k_blocks, bl.row_blocks);
                CHECK(false);
                return;
            }
        }
    }
    CHECK_EQ(size_t(amx_emulation::misuse()), misuse0);
    std::fprintf(stderr, "  %zu runs of the k-blocked kernel equal to the in-place kernel bit for bit\n", runs);
}

// run_amx takes the k-blocked kernel when asked and there are more than two row blocks (told
// apart by the tile loads: the k-blocked kernel reloads its C tiles between chunks of k).
TEST(run_amx_takes_the_k_blocked_kernel_past_two_row_blocks) {
    ThreadPool pool(2);
    std::mt19937 rng(9);
    const AmxBlocking bl{1, 2};
    auto loads = [&](auto&& fn) {
        const size_t before = amx_emulation::loads();
        fn();
        return size_t(amx_emulation::loads()) - before;
    };
    for (size_t m : {32, 33, 100}) {
        const Inputs in({m, 40, 100, false}, rng);
        const size_t in_place = loads([&] { run(pool, in, AmxKernel::InPlace, bl, in.pr.n); });
        const size_t asked = loads([&] { run(pool, in, AmxKernel::KBlocked, bl, in.pr.n); });
        const size_t direct = loads([&] { run_k_blocked(pool, in, bl, in.pr.n); });
        CHECK(direct != in_place);
        CHECK_EQ(asked, m > 32 ? direct : in_place);
    }
}

// The chunking stays within the caches it is sized for: a panel's chunk in L1 (16 KB of A tiles),
// a row chunk's packed activations within 384 KB unless at the 2-block floor.
TEST(k_blocked_chunks_fit_their_caches) {
    for (size_t kp : {32, 288, 1024, 3072, 8448, 14336, 1 << 20}) {
        const AmxBlocking bl = amx_blocking_for(kp);
        CHECK_EQ(bl.k_blocks * 2 * sizeof(ATile), size_t(16384));
        CHECK(bl.row_blocks >= 2 && bl.row_blocks <= 64 && bl.row_blocks % 2 == 0);
        CHECK(bl.row_blocks == 2 || bl.row_blocks * 16 * kp * 2 <= (size_t(384) << 10));
        CHECK(bl.row_blocks == 64 || (bl.row_blocks + 2) * 16 * kp * 2 > (size_t(384) << 10));
    }
    CHECK_EQ(amx_blocking_for(0).row_blocks, size_t(64));  // k = 0: nothing to block, no division by zero
    CHECK_EQ(amx_blocking_for(1024).row_blocks, size_t(12));
    CHECK_EQ(amx_blocking_for(3072).row_blocks, size_t(4));
}

TEST(avx512_bf16_activation_packing_is_the_documented_layout) {
    if (!cpu::isa_supported(cpu::Isa::Avx512Bf16))
        SKIP("pack_rows runs on avx512-bf16, which needs " + std::string(cpu::isa_required_flags(cpu::Isa::Avx512Bf16)) +
             "; this CPU has: " + cpu::cpu_flags_summary());
    ThreadPool pool(2);
    std::mt19937 rng(7);
    for (size_t m : {1, 5, 16, 17, 70})
        for (size_t k : {1, 33, 100}) {
            const Inputs in({m, 1, k, false}, rng);
            std::vector<float> x(m * k);
            for (size_t i = 0; i < m; ++i)
                for (size_t c = 0; c < k; ++c) x[i * k + c] = bf16_to_f32(in.xb[i * in.k_padded + c]);
            Bf16Rows xb;
            round_rows_to_bf16(pool, x.data(), m, k, k, xb);
            CHECK(std::equal(xb.data.begin(), xb.data.end(), in.xb.begin(), in.xb.end()));
            std::vector<uint32_t> packed;
            pack_rows(pool, xb, packed);
            CHECK(packed == in.packed);
        }
}

TEST(amx_tiles_give_the_three_kernels_the_same_bits_close_to_the_emulation) {
    if (!cpu::isa_supported(cpu::Isa::Amx))
        SKIP(std::string("the tile instructions need ") + cpu::isa_required_flags(cpu::Isa::Amx) + "; this CPU has: " +
             cpu::cpu_flags_summary() + " (the kernels' indexing is proven above on the emulation)");
    ThreadPool pool(2);
    std::mt19937 rng(8);
    size_t outputs = 0, differ = 0;
    double worst = 0;
    for (const Problem& p : problems()) {
        const Inputs in(p, rng);
        const size_t ldy = p.n;
        std::vector<float> x(p.m * p.k);
        for (size_t i = 0; i < p.m; ++i)
            for (size_t c = 0; c < p.k; ++c) x[i * p.k + c] = bf16_to_f32(in.xb[i * in.k_padded + c]);
        Bf16Rows xb;
        round_rows_to_bf16(pool, x.data(), p.m, p.k, p.k, xb);
        std::vector<float> hw(p.m * ldy), hwb(p.m * ldy);
        matmul_amx(pool, xb, in.wm, in.row_list(), p.n, hw.data(), ldy, AmxKernel::InPlace);
        matmul_amx(pool, xb, in.wm, in.row_list(), p.n, hwb.data(), ldy, AmxKernel::KBlocked);
        CHECK(hw == hwb);
        std::vector<float> hwp(p.m * ldy);
        matmul_amx(pool, xb, in.wm, in.row_list(), p.n, hwp.data(), ldy, AmxKernel::Packed);  // packed per panel
        CHECK(hw == hwp);
        const PackedWeights copy = cpu::pack_weights(pool, in.wm, in.row_list(), p.n, "the test matrix");
        WeightMatrix wp = in.wm;
        wp.packed = copy.data();
        matmul_amx(pool, xb, wp, in.row_list(), p.n, hwp.data(), ldy, AmxKernel::Packed);  // the backend's packed copy
        CHECK(hw == hwp);
        for (size_t i = 0; i < p.m; ++i)
            for (size_t j = 0; j < p.n; ++j) {
                const float emu = in.reference(i, j);
                differ += emu != hw[i * ldy + j];
                double mag = 0;
                const size_t r = p.use_rows ? size_t(in.rows[j]) : j;
                for (size_t c = 0; c < p.k; ++c)
                    mag += std::fabs(double(bf16_to_f32(in.w[r * p.k + c])) * bf16_to_f32(in.xb[i * in.k_padded + c]));
                const double ratio = std::fabs(double(emu) - hw[i * ldy + j]) / (double(p.k + 2) * 0x1p-23 * mag + 1e-30);
                worst = std::max(worst, ratio);
                ++outputs;
            }
    }
    std::fprintf(stderr, "  tiles: the three kernels the same bits; %zu of %zu outputs differ from the emulation's order, worst %.3f of the fp32 bound\n",
                 differ, outputs, worst);
    CHECK(worst <= 1.0);
}

CHECK_MAIN()
