// The CPU attention's AVX-512 path (cpu_attention_avx512.cpp) against the portable one at awkward
// shapes: head dims that are and are not multiples of 16 (the keys-in-lanes decode path needs one),
// KV groups of 1 to 8 heads (more than 16 (row, head) pairs in a block: two vectors), ragged items
// of 1 to 19 rows with earlier positions already cached, keys across cache blocks; and its batch
// invariance: every row computed alone, as a decode step computes it, gives the block's bits.
#include <cmath>
#include <random>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "attention_cases.h"
#include "check.h"
#include "cpu/cpu_ops.h"

using namespace carbon;
using cpu::Isa;

TEST(avx512_attention_matches_portable_and_is_batch_invariant) {
    if (!cpu::isa_supported(Isa::Avx512))
        SKIP(std::string("avx512 needs ") + cpu::isa_required_flags(Isa::Avx512) + "; this CPU has: " + cpu::cpu_flags_summary());
    ThreadPool pool(2);
    std::mt19937 rng(11);
    const std::vector<attention_cases::Case> cases = attention_cases::cases();
    double worst = 0;
    for (const attention_cases::Case& c : cases) {
        const size_t items = c.rows.size();
        attention_cases::Batch b = attention_cases::make_batch(c, rng);
        const auto& kv = b.kv;
        const auto& item_row = b.item_row;
        const auto& start = b.start;
        const auto& q = b.q;
        const auto& shape = b.shape;
        const size_t q_stride = b.q_stride;
        std::vector<float> want(q.size()), got(q.size(), NAN);
        cpu::attention_rows(pool, shape, kv, item_row, start, q.data(), want.data());
        cpu::attention_rows(pool, shape, kv, item_row, start, q.data(), got.data(), Isa::Avx512);
        for (size_t i = 0; i < q.size(); ++i) {
            const double d = std::fabs(double(got[i]) - want[i]);
            worst = std::max(worst, std::isnan(d) ? 1e9 : d);
        }
        // Each row alone (one item of one row at its own position): the block's bits.
        size_t differ = 0;
        for (size_t i = 0; i < items; ++i)
            for (size_t r = 0; r < c.rows[i]; ++r) {
                const size_t row = item_row[i] + r;
                const std::vector<size_t> one_row{0, 1}, at{c.cached[i] + r};
                std::vector<float> alone(q_stride);
                cpu::attention_rows(pool, shape, std::span(&kv[i], 1), one_row, at, q.data() + row * q_stride, alone.data(), Isa::Avx512);
                for (size_t e = 0; e < q_stride; ++e) differ += alone[e] != got[row * q_stride + e];
            }
        if (differ)
            std::fprintf(stderr, "  heads %zu/%zu, dim %zu: %zu outputs differ computed alone\n", c.n_heads, c.n_kv_heads, c.head_dim, differ);
        CHECK_EQ(differ, size_t(0));
    }
    // Outputs are weighted means of values in [-1, 1]: the two summation orders and exp16 (3 ulp)
    // move them by about 1e-7; 2e-5 fails any real mistake (a wrong key, mask or weight moves
    // them by 1e-2 or more).
    std::fprintf(stderr, "  attention: max |avx512 - portable| %.3g over %zu shapes\n", worst, cases.size());
    CHECK(worst <= 2e-5);
}

CHECK_MAIN()
