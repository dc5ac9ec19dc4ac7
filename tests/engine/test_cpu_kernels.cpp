// Every CPU instruction-set path (cpu_isa.h) against the portable one: the matmul against a
// double-precision sum of exactly the inputs the path consumes (bf16-rounded activations for the
// bf16 paths) at awkward sizes, each path's batch invariance bit for bit, and the whole tiny model
// on each path against the portable path; bf16 weights packed for the avx512-bf16 path give the
// same bits as in place. A path this CPU cannot run is reported skipped, with the
// flags it needs and the ones this CPU has.
#include <cmath>
#include <cstdlib>
#include <random>

#include "carbon/backend.h"
#include "carbon/model.h"
#include "check.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_packed_weights.h"
#include "test_model_dir.h"

using namespace carbon;
using cpu::Isa;

namespace {

void require(Isa isa) {
    if (!cpu::isa_supported(isa))
        SKIP(std::string(cpu::isa_name(isa)) + " needs " + cpu::isa_required_flags(isa) + "; this CPU has: " +
             cpu::cpu_flags_summary());
}

using testing_support::encode;

struct Problem {
    size_t m, n, k;
    bool use_rows;
};

// Sizes that cross every edge of every path: k below, at and past the 8/16/32-wide chunks and
// AMX's 32-wide blocks, odd k (a last half pair); n across the 6/8/12-row micro-tiles and the
// 16/32-row panels (full, partial, DNA-row indirection); m across the 4-row micro-tiles, the 8 rows
// up to which avx512-bf16 takes its decode kernel (8, 9), the 16-row blocks and their pairs, and
// (130) the row blocks the AVX-512 paths (64) and the bf16 paths (128) take at a time.
std::vector<Problem> problems() {
    std::vector<Problem> p;
    for (size_t m : {1, 2, 3, 5, 8, 9, 17, 40})
        for (size_t n : {1, 7, 33, 64, 100})
            for (size_t k : {1, 7, 9, 31, 32, 33, 64, 100, 257})
                for (bool rows : {false, true}) p.push_back({m, n, k, rows});
    for (size_t n : {33, 64})
        for (size_t k : {100, 257})
            for (bool rows : {false, true}) p.push_back({130, n, k, rows});
    return p;
}

// Runs matmul_wt on `isa` for every problem and dtype; checks each output against the double sum
// of the values the path multiplies (fp32 accumulation: |error| <= k * 2^-23 * sum |x * w|, with
// room for the bf16 paths' flushing of denormal products) and that each row equals the same row
// computed alone (batch invariance).
void check_path(Isa isa) {
    require(isa);
    ThreadPool pool(2);
    std::mt19937 rng(11);
    std::normal_distribution<float> nd(0.f, 1.f);
    double worst_ratio = 0;
    size_t cases = 0;
    for (DType t : {DType::BF16, DType::F16, DType::F32})
        for (const Problem& pr : problems()) {
            const size_t wrows = pr.n + 5;
            std::vector<float> w(wrows * pr.k), x(pr.m * pr.k);
            for (auto& v : w) v = nd(rng);
            for (auto& v : x) v = nd(rng);
            const auto wb = encode(w, t);
            std::vector<int32_t> rows(pr.n);
            for (size_t j = 0; j < pr.n; ++j) rows[j] = int32_t((j * 7 + 3) % wrows);
            const int32_t* rp = pr.use_rows ? rows.data() : nullptr;
            const cpu::WeightMatrix wm{wb.data(), t, wrows, pr.k};
            const size_t ldy = pr.n + 3;
            std::vector<float> y(pr.m * ldy, -7.f);
            cpu::matmul_wt(pool, isa, x.data(), pr.m, pr.k, wm, rp, pr.n, y.data(), ldy);
            if (t == DType::BF16) {  // the packed copy (read by avx512-bf16, ignored by the rest): the same bits
                const cpu::PackedWeights pw = cpu::pack_weights(pool, wm, rp, pr.n, "the test matrix");
                cpu::WeightMatrix wp = wm;
                wp.packed = pw.data();
                std::vector<float> yp(pr.m * ldy, -7.f);
                cpu::matmul_wt(pool, isa, x.data(), pr.m, pr.k, wp, rp, pr.n, yp.data(), ldy);
                if (yp != y)
                    std::fprintf(stderr, "  %s m %zu n %zu k %zu rows %d: the packed weights give other bits\n",
                                 cpu::isa_name(isa), pr.m, pr.n, pr.k, int(pr.use_rows));
                CHECK(yp == y);
            }
            const bool rounds = cpu::isa_rounds_activations(cpu::isa_for_dtype(isa, t));
            ++cases;
            for (size_t i = 0; i < pr.m; ++i) {
                std::vector<float> alone(ldy, -7.f);
                cpu::matmul_wt(pool, isa, x.data() + i * pr.k, 1, pr.k, wm, rp, pr.n, alone.data(), ldy);
                for (size_t j = 0; j < pr.n; ++j) {
                    const size_t r = rp ? size_t(rows[j]) : j;
                    double ref = 0, mag = 0;
                    for (size_t c = 0; c < pr.k; ++c) {
                        const float xv = rounds ? bf16_to_f32(f32_to_bf16(x[i * pr.k + c])) : x[i * pr.k + c];
                        const double term = double(xv) * double(load_as_f32(wb.data(), t, r * pr.k + c));
                        ref += term;
                        mag += std::fabs(term);
                    }
                    const double got = y[i * ldy + j];
                    const double ratio = std::fabs(ref - got) / (double(pr.k + 2) * 0x1p-23 * mag + 1e-30);
                    worst_ratio = std::max(worst_ratio, ratio);
                    if (ratio > 1.0 || alone[j] != y[i * ldy + j]) {
                        CHECK(ratio <= 1.0);
                        CHECK(alone[j] == y[i * ldy + j]);
                        std::fprintf(stderr, "  %s %s m %zu n %zu k %zu rows %d at (%zu, %zu): got %.9g want %.9g alone %.9g\n",
                                     cpu::isa_name(isa), dtype_name(t), pr.m, pr.n, pr.k, int(pr.use_rows), i, j, got, ref,
                                     double(alone[j]));
                        return;
                    }
                }
                // Columns past n are not written.
                for (size_t j = pr.n; j < ldy; ++j) CHECK(y[i * ldy + j] == -7.f);
            }
        }
    std::fprintf(stderr, "  %s: %zu cases, worst error %.3f of the bound, every row equal to itself computed alone\n",
                 cpu::isa_name(isa), cases, worst_ratio);
}

std::unique_ptr<Model> load_tiny(Isa isa) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    mo.cpu_kernels = cpu::isa_name(isa);
    return Model::load(testing_support::tiny_model(), mo);
}

std::vector<float> all_logits(Backend& be, const std::vector<int32_t>& ids) {
    SeqId s = be.create_sequence();
    ForwardOutput out;
    ForwardItem item{s, ids, true};
    be.forward(std::span(&item, 1), Head::Dna, out);
    be.free_sequence(s);
    return out.logits;
}

// The tiny model on `isa` against the portable path: every position's DNA logits within `bound`
// (absolute; the tiny model's logits are of order 1), and the path's own batch invariance through
// the backend: a prompt decoded token by token gives its prefill's logits bit for bit.
void check_model(Isa isa, double bound) {
    require(isa);
    auto ref_model = load_tiny(Isa::Portable);
    auto model = load_tiny(isa);
    CHECK(model->backend().describe().find(cpu::isa_name(isa)) != std::string::npos);
    const auto ids = testing_support::random_dna_prompt(model->tokenizer(), 90, 5);
    const auto want = all_logits(ref_model->backend(), ids);
    const auto got = all_logits(model->backend(), ids);
    CHECK_EQ(got.size(), want.size());
    double worst = 0;
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
    std::fprintf(stderr, "  %s: max |logit - portable| %.3g over %zu positions (bound %.3g)\n", cpu::isa_name(isa), worst,
                 ids.size(), bound);
    CHECK(worst <= bound);

    Backend& be = model->backend();
    SeqId s = be.create_sequence();
    size_t differ = 0;
    for (size_t p = 0; p < ids.size(); ++p) {
        ForwardOutput out;
        ForwardItem item{s, std::span<const int32_t>(ids.data() + p, 1), false};
        be.forward(std::span(&item, 1), Head::Dna, out);
        for (size_t c = 0; c < out.width; ++c) differ += out.row(0)[c] != got[p * out.width + c];
    }
    be.free_sequence(s);
    if (differ) std::fprintf(stderr, "  %s: %zu decoded logits differ from the prefill's\n", cpu::isa_name(isa), differ);
    CHECK_EQ(differ, size_t(0));
}

// fp32-activation paths differ from portable only in summation order; the bf16 paths round every
// matmul input to bf16 (2^-9 relative), which over the tiny model's layers moves logits by a few
// hundredths (measured: see the printed figures).
constexpr double kFp32Bound = 1e-4, kBf16Bound = 0.15;

}  // namespace

TEST(portable_matmul_matches_double_sum) { check_path(Isa::Portable); }
TEST(avx2_matmul_matches_double_sum_and_is_batch_invariant) { check_path(Isa::Avx2); }
TEST(avx512_matmul_matches_double_sum_and_is_batch_invariant) { check_path(Isa::Avx512); }
TEST(avx512_bf16_matmul_matches_double_sum_and_is_batch_invariant) { check_path(Isa::Avx512Bf16); }
TEST(amx_matmul_matches_double_sum_and_is_batch_invariant) { check_path(Isa::Amx); }

TEST(avx2_model_matches_portable) { check_model(Isa::Avx2, kFp32Bound); }
TEST(avx512_model_matches_portable) { check_model(Isa::Avx512, kFp32Bound); }
TEST(avx512_bf16_model_matches_portable) { check_model(Isa::Avx512Bf16, kBf16Bound); }
TEST(amx_model_matches_portable) { check_model(Isa::Amx, kBf16Bound); }

TEST(avx512_silu_matches_libm_within_3_ulp) {
    require(Isa::Avx512);
    std::vector<float> g, u;
    for (float v = -120.f; v <= 120.f; v += 0.0137f) g.push_back(v);
    for (float v : {0.f, -0.f, 1e-40f, -1e-40f, 1e-20f, 88.f, -88.f, 1e30f, -1e30f}) g.push_back(v);
    g.push_back(std::nanf(""));
    for (size_t i = 0; i < g.size(); ++i) u.push_back(0.5f + float(i % 7) * 0.25f);
    std::vector<float> want = g, got = g;
    cpu::silu_mul(want.data(), u.data(), want.size());
    cpu::silu_mul(got.data(), u.data(), got.size() - 3, Isa::Avx512);  // an odd length: the masked tail
    cpu::silu_mul(got.data() + got.size() - 3, u.data() + got.size() - 3, 3, Isa::Avx512);
    double worst = 0;
    for (size_t i = 0; i + 1 < g.size(); ++i) {
        const double err = std::fabs(double(got[i]) - want[i]) / (std::fabs(double(want[i])) * 0x1p-23 + 1e-38);
        worst = std::max(worst, err);
        if (!(err <= 3.0)) std::fprintf(stderr, "  silu(%.9g) * %.3g: %.9g, libm %.9g\n", g[i], u[i], got[i], want[i]);
        CHECK(err <= 3.0);
    }
    CHECK(std::isnan(got.back()));
    std::fprintf(stderr, "  silu: %zu inputs, worst %.2f ulp from libm\n", g.size(), worst);
}

TEST(avx512_rmsnorm_matches_the_portable_one) {
    require(Isa::Avx512);
    std::mt19937 rng(3);
    std::normal_distribution<float> nd(0.f, 3.f);
    double worst = 0;
    for (DType t : {DType::BF16, DType::F16, DType::F32})
        for (size_t n : {1, 15, 16, 17, 96, 1000, 3072}) {
            std::vector<float> x(n), w(n);
            for (auto& v : x) v = nd(rng);
            for (auto& v : w) v = nd(rng);
            const auto wb = encode(w, t);
            std::vector<float> want(n), got(n + 1, -5.f), inplace = x;
            cpu::rmsnorm(x.data(), wb.data(), t, n, 1e-6f, want.data());
            cpu::rmsnorm(x.data(), wb.data(), t, n, 1e-6f, got.data(), Isa::Avx512);
            cpu::rmsnorm(inplace.data(), wb.data(), t, n, 1e-6f, inplace.data(), Isa::Avx512);  // out == x
            CHECK(got[n] == -5.f);                                                             // nothing past n
            for (size_t i = 0; i < n; ++i) {
                const double err = std::fabs(double(got[i]) - want[i]) / (std::fabs(double(want[i])) * 0x1p-23 + 1e-38);
                worst = std::max(worst, err);
                CHECK(err <= 1.0);
                CHECK(inplace[i] == got[i]);
            }
        }
    std::fprintf(stderr, "  rmsnorm: worst %.2f ulp from the portable one\n", worst);
}

TEST(unknown_or_unsupported_kernels_are_refused_with_the_reason) {
    CHECK_THROWS_WITH(cpu::choose_isa("avx9"), "unknown CPU kernels 'avx9' (expected auto, fp32, portable, avx2, avx512");
    CHECK(cpu::choose_isa("fp32") == cpu::best_fp32_isa());
    CHECK(!cpu::isa_rounds_activations(cpu::best_fp32_isa()));
    CHECK(cpu::choose_isa("portable") == Isa::Portable);
    for (Isa isa : cpu::all_isas())
        if (!cpu::isa_supported(isa))
            CHECK_THROWS_WITH(cpu::choose_isa(cpu::isa_name(isa)), "cannot run on this CPU: they need",
                              cpu::isa_required_flags(isa));
    CHECK(cpu::choose_isa("") == cpu::best_isa() || std::getenv("CARBON_CPU_KERNELS"));
    // A bad value in the environment is named as coming from there.
    const char* before = std::getenv("CARBON_CPU_KERNELS");
    const std::string saved = before ? before : "";
    ::setenv("CARBON_CPU_KERNELS", "avx9", 1);
    CHECK_THROWS_WITH(cpu::choose_isa(""), "CARBON_CPU_KERNELS=avx9 (from the environment): unknown CPU kernels 'avx9'");
    CHECK(cpu::choose_isa("portable") == Isa::Portable);  // an explicit choice wins over the environment
    if (before) ::setenv("CARBON_CPU_KERNELS", saved.c_str(), 1);
    else ::unsetenv("CARBON_CPU_KERNELS");
}
CHECK_MAIN()
