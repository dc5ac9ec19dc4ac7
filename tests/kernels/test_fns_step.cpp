// fns_step against the engine's own FNS functions (dna_softmax, fns_marginals, fns_masked_marginals,
// adjust_base_distribution, pick_base, uniform01; tests/kernels/fns_reference.h): batches of 1, 3, 17
// rows, temperatures 0 / 0.7 / 1 / 1.5, top-p 1 / 0.9 / 0.5, masks N, fixed bases, R/Y/S/W and
// random IUPAC, fp32 and bf16 logits, padded rows; refusals; injected bugs the comparison catches.
// Built by g++ through the host layer and, with CUDA, by nvcc for the GPU.
//
// Tolerances. Choices: exact (a certified token must equal the CPU's; rows the kernel leaves
// undecided are counted and must be rare). Marginals (plain and masked): |GPU - CPU| <= 1e-6 * GPU +
// 2^-109 / total + 2^-123, the bound the certificate is built on (fns_certify.cuh derives it: three
// float roundings per probability, a ratio of two sums, one more float rounding; the absolute part
// covers subnormals). logp = log(marginal): 1.1e-6 absolute (the relative bound of the marginal,
// plus log's own rounding), plus the absolute part over the marginal.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "check.h"
#include "fns_reference.h"
#include "fns_step.cuh"

using carbon::kern::FnsStepParams;
using carbon::test::Mask6;

namespace {

// The thread build (TSan) runs every CUDA thread as an OS thread and the ucontext build (ASan) pays
// a system call per switch (about 0.5 s per row here): they run one small case of each kind.
#if defined(CARBON_HOST_EXECUTOR_THREADS) || defined(CARBON_HOST_EXECUTOR_UCONTEXT)
constexpr bool kSmall = true;
#else
constexpr bool kSmall = false;
#endif

Mask6 mask_of(const char* iupac) {
    Mask6 m;
    for (size_t j = 0; j < 6; ++j) m[j] = carbon::iupac_mask(iupac[j]);
    return m;
}

// All N, fixed bases, two-base codes, three-base codes, mixtures; then random IUPAC rows.
std::vector<Mask6> masks_for(int rows, std::mt19937_64& rng) {
    static const char* const patterns[] = {"NNNNNN", "ACGTAC", "RYSWRY", "WSKMYR",
                                           "NANTNN", "BDHVNG", "GGGGGG", "SNWNRN"};
    static const char letters[] = "ACGTRYSWKMBDHVN";
    std::vector<Mask6> m;
    for (int r = 0; r < rows; ++r) {
        if (r < 8) {
            m.push_back(mask_of(patterns[(r + rows) % 8]));
        } else {
            char t[6];
            for (char& c : t) c = letters[rng() % 15];
            m.push_back(mask_of(t));
        }
    }
    return m;
}

// Rows of 4,096 logits of varied shapes: nearly flat, unit, wide, peaked, one planted 6-mer; the
// padding after a row (stride > 4,096) is NaN, which the kernel must never read.
std::vector<float> random_logits(int rows, long long stride, std::mt19937_64& rng) {
    std::vector<float> x(size_t(rows) * size_t(stride), NAN);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const float scales[] = {0.05f, 1.0f, 3.0f, 8.0f, 1.0f};
    for (int r = 0; r < rows; ++r) {
        float* row = x.data() + size_t(r) * size_t(stride);
        const int style = int(rng() % 5);
        for (int i = 0; i < 4096; ++i) row[i] = scales[style] * normal(rng) - 2.0f;
        if (style == 4) row[rng() % 4096] += 12.0f;
    }
    return x;
}

std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& x) {
    std::vector<__nv_bfloat16> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = __float2bfloat16(x[i]);
    return y;
}
std::vector<float> to_float(const std::vector<__nv_bfloat16>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = __bfloat162float(x[i]);
    return y;
}

std::vector<uint64_t> random_u64(int n, std::mt19937_64& rng, uint64_t mod) {
    std::vector<uint64_t> v(static_cast<size_t>(n));
    for (auto& s : v) s = mod ? rng() % mod : rng();
    return v;
}

bool within_marginal_bound(float gpu, float cpu, double total) {
    return std::fabs(double(gpu) - double(cpu)) <=
           1e-6 * std::fabs(double(gpu)) + carbon::kern::fns_marginal_abs_bound(total);
}

struct Tally {
    int rows = 0, certified = 0, undecided = 0, refused = 0;
    int bad_status = 0, bad_token = 0, bad_logp = 0, bad_marginal = 0, bad_subset = 0;
    int failures() const { return bad_status + bad_token + bad_logp + bad_marginal + bad_subset; }
};

void note(int& counter, const std::string& what) {
    if (counter++ < 5) std::fprintf(stderr, "    %s\n", what.c_str());
}

// FNS_DEBUG=1: which position and set of bases left an undecided row undecided, and why (inputs).
void print_undecided(const carbon::test::KernelRows& k, const carbon::test::CpuRow& c, int r, const Mask6& mask,
                     const FnsStepParams& p, const std::vector<uint64_t>& streams, const std::vector<uint64_t>& steps) {
    for (int j = 0; j < 6; ++j) {
        const auto g = k.masked_at(r, j);
        const float u = carbon::test::cpu_draw(p, streams.empty() ? 0 : streams[size_t(r)],
                                               steps.empty() ? 0 : steps[size_t(r)], j);
        for (unsigned left = 1; left < 16; ++left) {
            if ((left & ~unsigned(mask[size_t(j)])) || (!p.certify_every_subset && left != mask[size_t(j)])) continue;
            const auto pick = carbon::kern::fns_certified_pick(
                g.data(), carbon::kern::fns_marginal_abs_bound(c.masked_total), left, p.temperature, p.top_p, u);
            if (!pick.decided)
                std::fprintf(stderr,
                             "    undecided: row %d position %d left %u g %.9g %.9g %.9g %.9g T %g top-p %g u %.9g\n",
                             r, j, left, g[0], g[1], g[2], g[3], double(p.temperature), double(p.top_p), double(u));
        }
    }
}

// Compares every row of a launch with the CPU's computation on the same (float) logits.
void compare(const std::vector<float>& logits, long long stride, const std::vector<Mask6>& masks,
             const std::vector<uint64_t>& streams, const std::vector<uint64_t>& steps, const FnsStepParams& p,
             const carbon::test::KernelRows& k, Tally& t) {
    using namespace carbon::kern;
    const int rows = int(k.status.size());
    for (int r = 0; r < rows; ++r) {
        const auto c = carbon::test::cpu_fns_row(
            std::span<const float>(logits.data() + size_t(r) * size_t(stride), 4096), masks[size_t(r)], p,
            streams.empty() ? 0 : streams[size_t(r)], steps.empty() ? 0 : steps[size_t(r)]);
        const std::string where = "row " + std::to_string(r) + " (T " + std::to_string(p.temperature) + ", top-p " +
                                  std::to_string(p.top_p) + ")";
        ++t.rows;
        for (int j = 0; j < 6; ++j)
            for (int b = 0; b < 4; ++b) {
                const float gp = k.plain_at(r, j)[size_t(b)], gm = k.masked_at(r, j)[size_t(b)];
                const float cp = c.plain[size_t(j)][size_t(b)], cm = c.masked[size_t(j)][size_t(b)];
                if (!within_marginal_bound(gp, cp, 0.5) || !within_marginal_bound(gm, cm, c.masked_total))
                    note(t.bad_marginal, where + ": marginal [" + std::to_string(j) + "][" + std::to_string(b) +
                                             "] plain " + std::to_string(gp) + " vs " + std::to_string(cp) +
                                             ", masked " + std::to_string(gm) + " vs " + std::to_string(cm));
            }
        const int s = k.status[size_t(r)];
        if (c.status == kFnsNoAllowedKmer) {
            ++t.refused;
            if (s != kFnsNoAllowedKmer || k.token[size_t(r)] != -1)
                note(t.bad_status, where + ": the CPU refuses, kernel status " + std::to_string(s));
            continue;
        }
        if (s == kFnsUndecided) {
            ++t.undecided;
            if (std::getenv("FNS_DEBUG")) print_undecided(k, c, r, masks[size_t(r)], p, streams, steps);
            if (k.token[size_t(r)] != -1) note(t.bad_status, where + ": undecided row with a token");
            continue;
        }
        if (s != kFnsCertified) {
            note(t.bad_status, where + ": status " + std::to_string(s));
            continue;
        }
        ++t.certified;
        if (k.token[size_t(r)] != c.token)
            note(t.bad_token,
                 where + ": token " + std::to_string(k.token[size_t(r)]) + ", the CPU's " + std::to_string(c.token));
        for (size_t j = 0; j < 6; ++j) {
            const double lg = k.logp[size_t(r) * 6 + j], lc = c.logp[j];
            const double m = std::exp(lc);
            if (!(std::fabs(lg - lc) <= 1.1e-6 + carbon::kern::fns_marginal_abs_bound(0.5) / m))
                note(t.bad_logp,
                     where + ": logp[" + std::to_string(j) + "] " + std::to_string(lg) + " vs " + std::to_string(lc));
        }
        if (!p.certify_every_subset) continue;
        // What the host's constraint search would pick from the kernel's marginals, for every set
        // of bases it may have left, against the CPU's picks from its own marginals.
        for (int j = 0; j < 6; ++j) {
            const float u = carbon::test::cpu_draw(p, streams.empty() ? 0 : streams[size_t(r)],
                                                   steps.empty() ? 0 : steps[size_t(r)], j);
            const unsigned allowed = masks[size_t(r)][size_t(j)];
            for (unsigned left = 1; left < 16; ++left) {
                if (left & ~allowed) continue;
                const int from_gpu =
                    carbon::test::cpu_pick(k.masked_at(r, j), carbon::BaseMask(left), p.temperature, p.top_p, u);
                const int from_cpu =
                    carbon::test::cpu_pick(c.masked[size_t(j)], carbon::BaseMask(left), p.temperature, p.top_p, u);
                if (from_gpu != from_cpu)
                    note(t.bad_subset, where + ": position " + std::to_string(j) + " left " + std::to_string(left) +
                                           ": from the kernel's marginals " + std::to_string(from_gpu) +
                                           ", the CPU's " + std::to_string(from_cpu));
            }
        }
    }
}

void check_tally(const Tally& t, const char* what) {
    std::printf("  %s: %d rows, %d certified, %d undecided, %d refused\n", what, t.rows, t.certified, t.undecided,
                t.refused);
    CHECK_EQ(t.bad_status, 0);
    CHECK_EQ(t.bad_token, 0);
    CHECK_EQ(t.bad_logp, 0);
    CHECK_EQ(t.bad_marginal, 0);
    CHECK_EQ(t.bad_subset, 0);
    CHECK(t.certified > 0);
    CHECK(t.undecided * 100 <= t.rows);  // near ties and boundary draws are rare on random logits
}

// One launch of `rows` random rows (float or bf16 logits) compared with the CPU.
template <class T>
void sweep_one(int rows, long long stride, const FnsStepParams& p, std::mt19937_64& rng, Tally& t) {
    const std::vector<float> x = random_logits(rows, stride, rng);
    std::vector<T> dev;
    std::vector<float> as_cpu_sees = x;
    if constexpr (std::is_same_v<T, float>) {
        dev = x;
    } else {
        dev = to_bf16(x);
        as_cpu_sees = to_float(dev);
    }
    const auto masks = masks_for(rows, rng);
    const auto streams = random_u64(rows, rng, rng() % 2 ? 100 : 0),
               steps = random_u64(rows, rng, rng() % 2 ? 5000 : 0);
    const auto k = carbon::test::run_fns_step(dev, rows, stride, masks, streams, steps, p);
    CHECK_EQ(k.launched, cudaSuccess);
    compare(as_cpu_sees, stride, masks, streams, steps, p, k, t);
}

template <class T>
void sweep(const std::vector<float>& temperatures, const std::vector<float>& top_ps, const std::vector<int>& batches,
           bool every_subset, uint64_t seed, const char* what) {
    std::mt19937_64 rng(seed);
    Tally t;
    for (float temperature : temperatures)
        for (float top_p : top_ps)
            for (int rows : batches) {
                FnsStepParams p;
                p.temperature = temperature;
                p.top_p = top_p;
                p.seed = rng();
                p.certify_every_subset = every_subset;
                sweep_one<T>(rows, rows == 3 ? 4096 + 37 : 4096, p, rng, t);
            }
    check_tally(t, what);
}

std::vector<float> temperatures() {
    return kSmall ? std::vector<float>{0.0f, 1.0f} : std::vector<float>{0.0f, 0.7f, 1.0f, 1.5f};
}
std::vector<float> top_ps() {
    return kSmall ? std::vector<float>{0.5f} : std::vector<float>{1.0f, 0.9f, 0.5f};
}
std::vector<int> batches() {
    return kSmall ? std::vector<int>{1, 3} : std::vector<int>{1, 3, 17};
}

}  // namespace

TEST(fp32_choices_and_marginals_equal_the_cpu) {
    sweep<float>(temperatures(), top_ps(), batches(), false, 11, "fp32");
}

TEST(bf16_logits_give_the_cpu_choices_on_their_float_values) {
    if (kSmall)
        sweep<__nv_bfloat16>({1.0f}, {0.9f}, {3}, false, 12, "bf16");
    else
        sweep<__nv_bfloat16>({0.0f, 1.0f}, {1.0f, 0.9f}, {1, 17}, false, 12, "bf16");
}

TEST(every_subset_certificate_covers_the_constraint_search) {
    if (kSmall)
        sweep<float>({1.0f}, {0.5f}, {3}, true, 13, "every subset");
    else
        sweep<float>(temperatures(), top_ps(), {3, 17}, true, 13, "every subset");
}

TEST(many_seeds_draw_exactly_what_the_cpu_draws) {
    std::mt19937_64 rng(14);
    Tally t;
    const int launches = kSmall ? 1 : 24;
    for (int i = 0; i < launches; ++i) {
        FnsStepParams p;
        p.temperature = i % 3 == 0 ? 1.0f : i % 3 == 1 ? 0.7f : 1.5f;
        p.top_p = i % 2 ? 0.9f : 1.0f;
        p.seed = i < 2 ? uint64_t(i) : rng();  // seeds 0 and 1, then 64-bit ones
        const int rows = kSmall ? 3 : 17;
        const auto x = random_logits(rows, 4096, rng);
        const std::vector<Mask6> masks(size_t(rows), mask_of("NNNNNN"));
        // Streams and steps above 2^32 exercise Philox's high counter words.
        const auto streams = random_u64(rows, rng, 0), steps = random_u64(rows, rng, 0);
        const auto k = carbon::test::run_fns_step(x, rows, 4096, masks, streams, steps, p);
        compare(x, 4096, masks, streams, steps, p, k, t);
    }
    check_tally(t, "seeds");
}

TEST(a_position_with_no_allowed_base_is_refused_like_the_cpu) {
    // The CPU: fns_masked_marginals gives total 0 and zero marginals; generation stops with an error.
    std::mt19937_64 rng(15);
    const int rows = 6;
    const auto x = random_logits(rows, 4096, rng);
    std::vector<Mask6> masks(rows, mask_of("NNNNNN"));
    for (int r = 0; r < rows; ++r) masks[size_t(r)][size_t(r)] = 0;  // position r allows nothing
    FnsStepParams p;
    p.temperature = 1.0f;
    const std::vector<uint64_t> streams(rows, 3), steps(rows, 4);
    const auto k = carbon::test::run_fns_step(x, rows, 4096, masks, streams, steps, p);
    Tally t;
    compare(x, 4096, masks, streams, steps, p, k, t);
    CHECK_EQ(t.refused, rows);
    CHECK_EQ(t.failures(), 0);
    for (int r = 0; r < rows; ++r) {
        for (float m : k.masked_at(r, 0)) CHECK_EQ(m, 0.0f);
        for (int j = 0; j < 6; ++j) CHECK(std::isnan(k.logp[size_t(r) * 6 + size_t(j)]));
    }
}

TEST(exact_ties_are_left_to_the_cpu_not_guessed) {
    // Equal logits: every marginal is exactly 0.25 and the CPU's greedy pick is the first code; a
    // kernel that guessed would be right by luck. Symmetric rows (the logit depends on bases 1-5
    // only) tie A, T, C, G at position 0. Greedy must leave both undecided; sampling may certify.
    const int rows = 2;
    std::vector<float> x(size_t(rows) * 4096, 0.5f);
    std::mt19937_64 rng(16);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    std::vector<float> by_suffix(1024);
    for (float& v : by_suffix) v = normal(rng);
    for (int i = 0; i < 4096; ++i) x[4096 + size_t(i)] = by_suffix[size_t(i) & 1023];
    const std::vector<Mask6> masks(rows, mask_of("NNNNNN"));
    const std::vector<uint64_t> streams = {0, 1}, steps = {0, 0};
    FnsStepParams p;
    auto k = carbon::test::run_fns_step(x, rows, 4096, masks, streams, steps, p);
    for (int r = 0; r < rows; ++r) {
        CHECK_EQ(k.status[size_t(r)], carbon::kern::kFnsUndecided);
        CHECK_EQ(k.token[size_t(r)], -1);
    }
    Tally t;
    compare(x, 4096, masks, streams, steps, p, k, t);
    CHECK_EQ(t.failures(), 0);
    p.temperature = 1.0f;
    k = carbon::test::run_fns_step(x, rows, 4096, masks, streams, steps, p);
    compare(x, 4096, masks, streams, steps, p, k, t);
    CHECK_EQ(t.failures(), 0);
}

TEST(non_finite_logits_are_flagged_and_other_rows_unaffected) {
    std::mt19937_64 rng(17);
    const int rows = 4;
    auto x = random_logits(rows, 4096, rng);
    x[4096 + 17] = NAN;
    x[2 * 4096 + 4095] = INFINITY;
    x[3 * 4096] = -INFINITY;
    const std::vector<Mask6> masks(rows, mask_of("NNNNNN"));
    FnsStepParams p;
    const auto k = carbon::test::run_fns_step(x, rows, 4096, masks, {}, {}, p);
    CHECK(k.status[0] == carbon::kern::kFnsCertified || k.status[0] == carbon::kern::kFnsUndecided);
    for (int r = 1; r < rows; ++r) {
        CHECK_EQ(k.status[size_t(r)], carbon::kern::kFnsNonFinite);
        CHECK_EQ(k.token[size_t(r)], -1);
        CHECK(std::isnan(k.plain_at(r, 0)[0]));
    }
    Tally t;
    compare(std::vector<float>(x.begin(), x.begin() + 4096), 4096, masks, {}, {}, p,
            carbon::test::KernelRows{{k.status[0]},
                                     {k.token[0]},
                                     std::vector<double>(k.logp.begin(), k.logp.begin() + 6),
                                     std::vector<float>(k.plain.begin(), k.plain.begin() + 24),
                                     std::vector<float>(k.masked.begin(), k.masked.begin() + 24)},
            t);
    CHECK_EQ(t.failures(), 0);
}

TEST(bad_arguments_are_refused_with_a_reason) {
    using carbon::kern::fns_step;
    using carbon::kern::fns_step_argument_error;
    carbon::test::DeviceBuffer<float> x(4096);
    carbon::test::DeviceBuffer<int32_t> status(1);
    carbon::kern::FnsStepRows in;
    carbon::kern::FnsStepOutputs out;
    out.status = status.get();
    FnsStepParams p;
    CHECK_EQ(fns_step(x.get(), 1, 4096, in, p, out, nullptr), cudaSuccess);
    CHECK_EQ(fns_step(static_cast<const float*>(nullptr), 0, 0, in, p, carbon::kern::FnsStepOutputs{}, nullptr),
             cudaSuccess);
    auto refused = [&](int rows, long long stride, const FnsStepParams& pp, const carbon::kern::FnsStepOutputs& o,
                       const char* why) {
        CHECK_EQ(fns_step(x.get(), rows, stride, in, pp, o, nullptr), cudaErrorInvalidValue);
        const char* said = fns_step_argument_error(x.get(), rows, stride, in, pp, o);
        CHECK(said != nullptr && std::string(said).find(why) != std::string::npos);
    };
    refused(-1, 4096, p, out, "negative");
    refused(1, 4095, p, out, "stride");
    refused(1, 4096, p, carbon::kern::FnsStepOutputs{}, "status");
    FnsStepParams q = p;
    q.temperature = -0.5f;
    refused(1, 4096, q, out, "temperature");
    q.temperature = NAN;
    refused(1, 4096, q, out, "temperature");
    q.temperature = INFINITY;
    refused(1, 4096, q, out, "temperature");
    q = p;
    q.top_p = 0.0f;
    refused(1, 4096, q, out, "top_p");
    q.top_p = 1.5f;
    refused(1, 4096, q, out, "top_p");
    q = p;
    q.temperature = 1.0f;
    refused(1, 4096, q, out, "stream");
}

TEST(philox_draws_equal_the_engine_uniform01) {
    std::mt19937_64 rng(18);
    int differ = 0;
    for (int i = 0; i < 20000; ++i) {
        const uint64_t seed = i % 4 == 0 ? uint64_t(i) : rng(), stream = i % 3 == 0 ? uint64_t(i % 7) : rng();
        const uint64_t step = i % 5 == 0 ? uint64_t(i) : rng();
        const uint32_t lane = uint32_t(i) & 3u;
        differ +=
            carbon::kern::philox_uniform01(seed, stream, step, lane) != carbon::uniform01(seed, stream, step, lane);
    }
    CHECK_EQ(differ, 0);
}

// The injected bugs: the same comparison must fail. Position 1's marginal summed over position 0's
// base (deterministic, so the GPU build runs it too), and, on the host, a dropped barrier.
namespace {
template <carbon::kern::FnsBug kBug>
Tally run_buggy(int rows, const FnsStepParams& p, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto x = random_logits(rows, 4096, rng);
    const std::vector<Mask6> masks(size_t(rows), mask_of("NNNNNN"));
    const auto streams = random_u64(rows, rng, 0), steps = random_u64(rows, rng, 0);
    const auto k = carbon::test::run_fns_rows(
        x, rows, masks, streams, steps,
        [&](const float* d, const carbon::kern::FnsStepRows& in, const carbon::kern::FnsStepOutputs& out) {
            return carbon::kern::launch(carbon::kern::fns_step_kernel<float, kBug>, dim3(unsigned(rows)),
                                        dim3(carbon::kern::kFnsThreads), 0, nullptr, d, 4096LL, in, p, out);
        });
    Tally t;
    compare(x, 4096, masks, streams, steps, p, k, t);
    return t;
}
}  // namespace

TEST(the_test_catches_a_marginal_over_the_wrong_position) {
    FnsStepParams p;
    p.temperature = 1.0f;
    const Tally t = run_buggy<carbon::kern::FnsBug::WrongPosition>(kSmall ? 3 : 5, p, 19);
    CHECK(t.bad_marginal > 0);
    CHECK(t.bad_token > 0);  // the wrong masked marginal changes what is chosen
    CHECK(t.bad_logp > 0);   // and the wrong plain one what is scored
}

#if CARBON_KERNEL_ON_HOST
TEST(the_test_catches_a_dropped_barrier) {
#if defined(CARBON_HOST_EXECUTOR_THREADS)
    SKIP(
        "the thread build leaves the race's outcome to the OS (TSan reports it: kernels.tsan_reports_missing_barrier)");
#endif
    FnsStepParams p;
    const Tally t = run_buggy<carbon::kern::FnsBug::NoBarrier>(kSmall ? 1 : 3, p, 20);
    CHECK(t.bad_marginal > 0);
}
#endif

CARBON_KERNEL_TEST_MAIN()
