// The AMX attention kernel (cpu_amx_attention_kernel.inc) on any CPU with AVX-512 BF16, through the tile
// emulation of amx_emulation.h, and on the tiles where the CPU has AMX, at the awkward shapes of
// attention_cases.h (head dims 16 to 128 that are and are not multiples of 16 and 32, KV groups of
// 1 to 8, ragged items, keys across cache blocks, a 1,007-key cache):
//  - against the formula it documents, computed here in double from the same bf16 roundings of
//    q, k, v and the weights: within what a weight rounded to the other side of a bf16 step moves;
//  - against the portable fp32 path: within the bf16 class's error, stated below;
//  - batch invariance: every row computed alone (as a decode step computes it) gives the bits it
//    got in its block, on the emulation and on the tiles.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "amx_emulation.h"
#include "attention_cases.h"
#include "carbon/support/common.h"
#include "carbon/support/thread_pool.h"
#include "check.h"
#include "cpu/cpu_isa.h"
#include "cpu/cpu_matmul_paths.h"

#if defined(__x86_64__)
#include "cpu/avx512_math.h"
#include "cpu/x86_transpose.h"

namespace carbon::cpu::detail {
#include "cpu/cpu_amx_attention_kernel.inc"
}  // namespace carbon::cpu::detail

using namespace carbon;
using cpu::Isa;

namespace {

float round_bf16(float x) { return bf16_to_f32(f32_to_bf16(x)); }

// The documented formula for every (row, head), in double from the bf16-rounded operands.
std::vector<double> formula(const attention_cases::Case& c, const attention_cases::Batch& b) {
    const size_t hd = c.head_dim, group = c.n_heads / c.n_kv_heads;
    std::vector<double> out(b.q.size());
    for (size_t i = 0; i + 1 < b.item_row.size(); ++i)
        for (size_t row = b.item_row[i]; row < b.item_row[i + 1]; ++row)
            for (size_t h = 0; h < c.n_heads; ++h) {
                const size_t g = h / group, lim = b.start[i] + (row - b.item_row[i]);
                const float* q = b.q.data() + row * b.q_stride + h * hd;
                std::vector<double> s(lim + 1);
                double m = -INFINITY;
                for (size_t j = 0; j <= lim; ++j) {
                    double d = 0;
                    for (size_t e = 0; e < hd; ++e) d += double(round_bf16(q[e])) * round_bf16(b.kv[i].key(g, j)[e]);
                    s[j] = float(d) * (1.0f / std::sqrt(float(hd)));
                    m = std::max(m, s[j]);
                }
                double sum = 0;
                for (double& v : s) sum += (v = std::exp(v - m));
                double* o = out.data() + row * b.q_stride + h * hd;
                for (size_t j = 0; j <= lim; ++j) {
                    const double p = round_bf16(float(s[j] / sum));
                    for (size_t e = 0; e < hd; ++e) o[e] += p * round_bf16(b.kv[i].value(g, j)[e]);
                }
            }
    return out;
}

using Attention = std::function<void(ThreadPool&, const attention_cases::Batch&, std::span<const cpu::KvBlocks>,
                                     std::span<const size_t>, std::span<const size_t>, const float*, float*)>;

// Rows whose outputs, computed alone, differ in any bit from the block's.
size_t alone_differ(ThreadPool& pool, const attention_cases::Batch& b, const std::vector<float>& got, const Attention& run) {
    size_t differ = 0;
    for (size_t i = 0; i + 1 < b.item_row.size(); ++i)
        for (size_t row = b.item_row[i]; row < b.item_row[i + 1]; ++row) {
            const std::vector<size_t> one_row{0, 1}, at{b.start[i] + (row - b.item_row[i])};
            std::vector<float> alone(b.q_stride, NAN);
            run(pool, b, std::span(&b.kv[i], 1), one_row, at, b.q.data() + row * b.q_stride, alone.data());
            differ += std::memcmp(alone.data(), got.data() + row * b.q_stride, b.q_stride * 4) != 0;
        }
    return differ;
}

struct Errors {
    double formula = 0, formula_mean = 0, portable = 0;
    size_t outputs = 0, invariance = 0;
};

Errors check_path(const Attention& run, uint32_t seed) {
    ThreadPool pool(2);
    std::mt19937 rng(seed);
    Errors e;
    double formula_sum = 0;
    for (const attention_cases::Case& c : attention_cases::cases()) {
        const attention_cases::Batch b = attention_cases::make_batch(c, rng);
        std::vector<float> got(b.q.size(), NAN), fp32(b.q.size());
        run(pool, b, b.kv, b.item_row, b.start, b.q.data(), got.data());
        cpu::attention_rows(pool, b.shape, b.kv, b.item_row, b.start, b.q.data(), fp32.data());
        const std::vector<double> want = formula(c, b);
        for (size_t i = 0; i < got.size(); ++i) {
            const double d = std::fabs(got[i] - want[i]), p = std::fabs(double(got[i]) - fp32[i]);
            e.formula = std::max(e.formula, std::isnan(d) ? 1e9 : d);
            e.portable = std::max(e.portable, std::isnan(p) ? 1e9 : p);
            formula_sum += std::isnan(d) ? 1e9 : d;
        }
        e.outputs += got.size();
        e.invariance += alone_differ(pool, b, got, run);
    }
    e.formula_mean = formula_sum / double(e.outputs);
    return e;
}

// Outputs are weighted means of values in [-1, 1]. Against the formula, the kernel differs by its
// fp32 sums and exp16 (about 1e-7), except where those move a weight across a bf16 rounding step
// (a change of up to 2^-9 of the weight): at most 2^-9 per output, rare, so the mean stays near 1e-7.
// A wrong key, mask, weight or tile index moves outputs by 1e-2 or more, and the mean with them.
// Against fp32 attention the bf16 operands move scores by up to about 1e-2 at these magnitudes
// (queries and keys in [-2, 2]): outputs within 1.5e-2 (measured 6.0e-3 on 2026-11-28).
void check_errors(const Errors& e, const char* what) {
    std::fprintf(stderr, "  %s: %zu outputs; max |kernel - formula| %.3g (mean %.3g), max |kernel - fp32 portable| %.3g\n", what,
                 e.outputs, e.formula, e.formula_mean, e.portable);
    CHECK(e.formula <= 1.0 / 512);
    CHECK(e.formula_mean <= 2e-6);
    CHECK(e.portable <= 1.5e-2);
    CHECK_EQ(e.invariance, size_t(0));
}

}  // namespace

TEST(amx_attention_on_the_emulation) {
    if (!cpu::isa_supported(Isa::Avx512Bf16))
        SKIP(std::string("the kernel's conversions and softmax need AVX-512 BF16 (") + cpu::isa_required_flags(Isa::Avx512Bf16) +
             "); this CPU has: " + cpu::cpu_flags_summary());
    const size_t misuse0 = cpu::detail::amx_emulation::misuse(), loads0 = cpu::detail::amx_emulation::loads();
    const Errors e = check_path(
        [](ThreadPool& pool, const attention_cases::Batch& b, std::span<const cpu::KvBlocks> kv, std::span<const size_t> item_row,
           std::span<const size_t> start, const float* q, float* out) {
            cpu::detail::run_amx_attention(pool, b.shape, kv, item_row, start, q, out);
        },
        5);
    check_errors(e, "emulated tiles");
    CHECK_EQ(cpu::detail::amx_emulation::misuse().load(), misuse0);
    CHECK(cpu::detail::amx_emulation::loads() > loads0);
}

TEST(amx_attention_on_the_tiles) {
    if (!cpu::isa_supported(Isa::Amx))
        SKIP(std::string("amx needs ") + cpu::isa_required_flags(Isa::Amx) + "; this CPU has: " + cpu::cpu_flags_summary());
    const Errors e = check_path(
        [](ThreadPool& pool, const attention_cases::Batch& b, std::span<const cpu::KvBlocks> kv, std::span<const size_t> item_row,
           std::span<const size_t> start, const float* q, float* out) {
            cpu::attention_rows(pool, b.shape, kv, item_row, start, q, out, Isa::Amx);
        },
        5);
    check_errors(e, "AMX tiles");
}

#else

TEST(amx_attention) { SKIP("AMX is x86-64 only"); }

#endif

CHECK_MAIN()
