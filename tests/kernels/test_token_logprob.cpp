// token_logprob against carbon::log_softmax (sampling.h: max, double sum of exp, double lse) at the
// target, and the row's logsumexp against the same computation in double: the full vocabulary
// (155,776), the compact test vocabulary (6,144), odd sizes (6,007: the scalar path; 1; 9), rows 1, 3,
// 17, padded rows (ld > vocab), fp32 and bf16 logits, logits spread, shifted by +-1,000 and peaked,
// -inf entries; out-of-range targets; non-finite logits; argument checks; the injected bugs (no
// max shift, a dropped barrier). Tolerance, for fp32 and bf16 logits alike (the reference sees the
// same fp32 values; the outputs are fp32), for lse and for logp against the reference value r:
//   1e-6 + 2^-23 * |r|: the kernel's sum of exp is fp32 (Kahan per thread, a 9-level tree across the
//   block, expf within 2 ulp on the GPU) against the CPU's double sum: ~16 ulp = 1e-6 relative of the
//   sum, which is 1e-6 absolute in its log; plus the final fp32 rounding of each side.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "carbon/fns/sampling.h"
#include "carbon/kernels/token_logprob.h"
#include "check.h"
#include "device_buffer.h"
#include "row_test_data.h"
#include "token_logprob.cuh"

using carbon::test::DeviceBuffer;
using namespace carbon::test;

namespace {

double tolerance(double r) {
    return 1e-6 + 0x1p-23 * std::fabs(r);
}
double g_max_err[2] = {0, 0};  // |error| of logp and lse, relative to 1 + |r|

// Logits of one row in one of several shapes.
std::vector<float> logit_row(int vocab, int kind, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, kind == 1 ? 5.0f : 1.5f);
    std::vector<float> x(static_cast<std::size_t>(vocab));
    for (auto& v : x) v = normal(rng);
    switch (kind) {
        case 2: for (auto& v : x) v += 1000.0f; break;    // exp overflows without the max shift
        case 3: for (auto& v : x) v -= 1000.0f; break;    // ... and underflows to 0 everywhere
        case 4: x[rng() % x.size()] += 40.0f; break;      // one token holds almost all the mass
        case 5:  // masked entries (a row that is all -inf is undefined: NaN on the CPU)
            if (vocab > 3)
                for (std::size_t i = 0; i < x.size(); i += 3) x[i] = -std::numeric_limits<float>::infinity();
            break;
        default: break;
    }
    return x;
}

struct Expect {
    double lse, logp;
};

// The CPU's value: carbon::log_softmax at the target; lse as sampling.cpp computes it, in double.
Expect reference(const float* row, int vocab, int target) {
    std::vector<float> out(static_cast<std::size_t>(vocab));
    carbon::log_softmax({row, static_cast<std::size_t>(vocab)}, out);
    float mx = -std::numeric_limits<float>::infinity();
    for (int v = 0; v < vocab; ++v) mx = std::max(mx, row[v]);
    double sum = 0;
    for (int v = 0; v < vocab; ++v) sum += std::exp(double(row[v]) - double(mx));
    return {double(mx) + std::log(sum), out[static_cast<std::size_t>(target)]};
}

// Runs rows x vocab logits (row stride ld, `offset` elements into the buffer) and returns the number
// of rows whose lse or logp is outside the tolerance.
template <class T>
int check_rows(int rows, int vocab, long long ld, int offset, unsigned seed) {
    std::vector<float> all(static_cast<std::size_t>(offset + rows * ld), 0.5f);
    std::vector<int> targets(static_cast<std::size_t>(rows));
    std::mt19937 rng(seed);
    for (int r = 0; r < rows; ++r) {
        const auto row = logit_row(vocab, r % 6, seed + 7 * r);
        std::copy(row.begin(), row.end(), all.begin() + offset + r * ld);
        targets[static_cast<std::size_t>(r)] = static_cast<int>(rng() % static_cast<unsigned>(vocab));
        if (r % 6 == 4) {  // the peaked row: take the peak itself as the target
            targets[static_cast<std::size_t>(r)] = static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin());
        } else if (r % 6 == 5 && vocab > 3) {  // the masked row: a finite target
            targets[static_cast<std::size_t>(r)] = 1;
        }
    }
    const Typed<T> logits = typed<T>(all);
    const std::vector<float> seen = to_floats(logits.dev);  // what the kernel reads
    DeviceBuffer<T> dlogits(logits.dev);
    DeviceBuffer<int> dtargets(targets);
    DeviceBuffer<float> dlse(static_cast<std::size_t>(rows)), dlogp(static_cast<std::size_t>(rows));
    CHECK_EQ(carbon::kern::token_logprob(dlogits.get() + offset, ld, rows, vocab, dtargets.get(), dlse.get(), dlogp.get(),
                                         nullptr, nullptr),
             cudaSuccess);
    const auto lse = dlse.download(), logp = dlogp.download();
    int wrong = 0;
    for (int r = 0; r < rows; ++r) {
        const Expect e = reference(seen.data() + offset + r * ld, vocab, targets[static_cast<std::size_t>(r)]);
        const double got_lse = lse[static_cast<std::size_t>(r)], got_logp = logp[static_cast<std::size_t>(r)];
        const bool ok = within(got_lse, e.lse, tolerance(e.lse)) && within(got_logp, e.logp, tolerance(e.logp));
        if (!ok)
            std::fprintf(stderr, "  vocab %d row %d (kind %d): lse %.9g want %.9g, logp %.9g want %.9g\n", vocab, r, r % 6,
                         got_lse, e.lse, got_logp, e.logp);
        wrong += ok ? 0 : 1;
        if (ok) {
            g_max_err[0] = std::max(g_max_err[0], std::fabs(got_logp - e.logp) / (1 + std::fabs(e.logp)));
            g_max_err[1] = std::max(g_max_err[1], std::fabs(got_lse - e.lse) / (1 + std::fabs(e.lse)));
        }
    }
    return wrong;
}

template <class T>
void check_all(unsigned seed) {
    struct Case {
        int vocab;
        long long ld;
        int offset;
    };
    // Full and compact vocabularies (vector path), padded rows, odd sizes and a misaligned start
    // (scalar path), a vocabulary of 1 and one of 9 (one chunk and a scalar tail).
    std::vector<Case> cases = {{155776, 155776, 0}, {6144, 6144, 0}, {6144, 6160, 0}, {6007, 6007, 0},
                               {6144, 6144, 1},     {1, 1, 0},       {9, 9, 0},       {155776, 155780, 1}};
    std::vector<int> row_counts = {1, 3, 17};
    if (kSanitizerBuild) cases = {{6144, 6160, 0}, {6007, 6007, 0}}, row_counts = {3};
    int wrong = 0;
    for (const Case& c : cases)
        for (int rows : row_counts) wrong += check_rows<T>(rows, c.vocab, c.ld, c.offset, seed++);
    CHECK_EQ(wrong, 0);
}

}  // namespace

TEST(fp32_logits_match_cpu_log_softmax) {
    check_all<float>(1);
}

TEST(bf16_logits_match_cpu_log_softmax) {
    check_all<__nv_bfloat16>(100);
}

TEST(out_of_range_targets_give_nan_and_are_counted_lse_stays_right) {
    const int rows = 4, vocab = 6144;
    std::vector<float> x;
    for (int r = 0; r < rows; ++r) {
        const auto row = logit_row(vocab, 0, 50 + r);
        x.insert(x.end(), row.begin(), row.end());
    }
    const std::vector<int> targets = {-1, vocab, 0, std::numeric_limits<int>::min()};
    DeviceBuffer<float> dx(x), dlse(rows), dlogp(rows);
    DeviceBuffer<int> dt(targets), dbad(std::vector<int>{0});
    CHECK_EQ(carbon::kern::token_logprob(dx.get(), vocab, rows, vocab, dt.get(), dlse.get(), dlogp.get(), dbad.get(), nullptr),
             cudaSuccess);
    const auto lse = dlse.download(), logp = dlogp.download();
    CHECK_EQ(dbad.download()[0], 3);
    for (int r = 0; r < rows; ++r) {
        const Expect e = reference(x.data() + r * vocab, vocab, 0);
        CHECK(within(lse[static_cast<std::size_t>(r)], e.lse, tolerance(e.lse)));
        if (r == 2) CHECK(within(logp[2], e.logp, tolerance(e.logp)));
        else CHECK(std::isnan(logp[static_cast<std::size_t>(r)]));
    }
}

TEST(lse_only_without_targets) {
    const int vocab = 6007;
    const auto x = logit_row(vocab, 1, 60);
    DeviceBuffer<float> dx(x), dlse(1);
    CHECK_EQ(carbon::kern::token_logprob(dx.get(), vocab, 1, vocab, nullptr, dlse.get(), nullptr, nullptr, nullptr),
             cudaSuccess);
    const Expect e = reference(x.data(), vocab, 0);
    CHECK(within(dlse.download()[0], e.lse, tolerance(e.lse)));
}

// A NaN or +inf logit anywhere makes lse non-finite: the backend's finiteness check reads B floats.
TEST(non_finite_logits_give_a_non_finite_lse) {
    const int vocab = 6144;
    std::vector<float> x;
    for (int r = 0; r < 3; ++r) {
        auto row = logit_row(vocab, 0, 70 + r);
        if (r == 0) row[4321] = std::numeric_limits<float>::quiet_NaN();
        if (r == 1) row[17] = std::numeric_limits<float>::infinity();
        if (r == 2) std::fill(row.begin(), row.end(), -std::numeric_limits<float>::infinity());
        x.insert(x.end(), row.begin(), row.end());
    }
    DeviceBuffer<float> dx(x), dlse(3);
    CHECK_EQ(carbon::kern::token_logprob(dx.get(), vocab, 3, vocab, nullptr, dlse.get(), nullptr, nullptr, nullptr),
             cudaSuccess);
    for (float v : dlse.download()) CHECK(!std::isfinite(v));
}

TEST(bad_arguments_are_refused) {
    DeviceBuffer<float> x(16), lse(2), logp(2);
    DeviceBuffer<int> t(std::vector<int>{0, 0});
    using carbon::kern::token_logprob;
    CHECK_EQ(token_logprob(x.get(), 8, -1, 8, t.get(), lse.get(), logp.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 8, 1, 0, t.get(), lse.get(), logp.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 7, 1, 8, t.get(), lse.get(), logp.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 8, 1, 8, t.get(), lse.get(), nullptr, nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 8, 1, 8, nullptr, lse.get(), logp.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(static_cast<const float*>(nullptr), 8, 1, 8, t.get(), lse.get(), logp.get(), nullptr, nullptr),
             cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 8, 1, 8, t.get(), nullptr, logp.get(), nullptr, nullptr), cudaErrorInvalidValue);
    CHECK_EQ(token_logprob(x.get(), 8, 0, 8, t.get(), lse.get(), logp.get(), nullptr, nullptr), cudaSuccess);
}

// The injected bugs, each through the same comparison on rows that include logits near +-1,000.
template <carbon::kern::LogprobBug kBug>
int wrong_rows_with_bug(int rows) {
    const int vocab = 6144;
    std::vector<float> x;
    std::vector<int> targets;
    for (int r = 0; r < rows; ++r) {
        const auto row = logit_row(vocab, r % 6, 90 + r);
        x.insert(x.end(), row.begin(), row.end());
        targets.push_back(r * 1000);
    }
    DeviceBuffer<float> dx(x), dlse(rows), dlogp(rows);
    DeviceBuffer<int> dt(targets);
    CHECK_EQ(carbon::kern::launch(carbon::kern::token_logprob_kernel<float, true, kBug>, dim3(rows),
                                  dim3(carbon::kern::kTokenLogprobThreads), 0, nullptr, static_cast<const float*>(dx.get()),
                                  static_cast<long long>(vocab), vocab, static_cast<const int*>(dt.get()), dlse.get(),
                                  dlogp.get(), static_cast<int*>(nullptr)),
             cudaSuccess);
    const auto lse = dlse.download(), logp = dlogp.download();
    int wrong = 0;
    for (int r = 0; r < rows; ++r) {
        const Expect e = reference(x.data() + r * vocab, vocab, targets[static_cast<std::size_t>(r)]);
        wrong += within(lse[static_cast<std::size_t>(r)], e.lse, tolerance(e.lse)) &&
                         within(logp[static_cast<std::size_t>(r)], e.logp, tolerance(e.logp))
                     ? 0
                     : 1;
    }
    return wrong;
}

// Without the max shift exp(x) overflows at +1,000 (lse inf) and underflows at -1,000 (lse -inf):
// rows 2 and 3 of the four (rows 0 and 1, logits within +-30, come out right). Deterministic: runs
// on the GPU build too.
TEST(the_test_catches_a_sum_without_the_max_shift) {
    CHECK_EQ(wrong_rows_with_bug<carbon::kern::LogprobBug::None>(4), 0);
    CHECK_EQ(wrong_rows_with_bug<carbon::kern::LogprobBug::NoMaxShift>(4), 2);
}

#if CARBON_KERNEL_ON_HOST
TEST(the_test_catches_a_dropped_barrier) {
#if defined(CARBON_HOST_EXECUTOR_THREADS)
    SKIP("the thread build leaves the race's outcome to the OS (TSan reports it: kernels.tsan_reports_missing_barrier)");
#endif
    // In the forward and reverse orders every warp happens to write its value before warp 0 reads it
    // (and a lost maximum alone does not change lse: the sums are rescaled to whatever maximum the
    // block agrees on). Shuffled orders run warp 0's readers early: every row's sum takes junk.
    using carbon::host::Schedule;
    for (unsigned seed : {1u, 2u}) {
        carbon::host::set_schedule(Schedule::Shuffled, seed);
        const int wrong = wrong_rows_with_bug<carbon::kern::LogprobBug::DroppedBarrier>(3);
        const int clean = wrong_rows_with_bug<carbon::kern::LogprobBug::None>(3);
        carbon::host::set_schedule(Schedule::Forward);
        CHECK_EQ(clean, 0);
        CHECK_EQ(wrong, 3);
    }
}
#endif

int main() {
    if (const std::string why = carbon::test::gpu_missing(); !why.empty()) {
        std::printf("SKIP %s\n", why.c_str());
        return 0;
    }
    const int failed = check::run_all();
    std::printf("largest |error| / (1 + |r|) against the CPU: logp %.3g, lse %.3g\n", g_max_err[0], g_max_err[1]);
    return failed;
}
