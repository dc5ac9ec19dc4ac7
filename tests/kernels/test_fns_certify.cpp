// The certificate behind fns_step's exact choices (kernels/fns_certify.cuh), checked against the
// engine's adjust_base_distribution + pick_base: whenever it says "decided, base b", every marginal
// vector within the stated CPU-GPU bound must make the CPU pick b too. Probed where it is hardest:
// draws u at the exact boundaries of the cumulative mass, top-p at the edge of the nucleus, marginals
// tied to the last ulp, and perturbations at the very edge of the bound. The injected bug (the same
// certificate with no slack, trusting the GPU's marginals as the CPU's) must be caught here.
// The certificate runs in a kernel (one thread per probe), so the GPU build checks the device's own
// pow and rounding against the CPU's picks; the host builds run it through the host layer.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "device_buffer.h"
#include "fns_certify.cuh"
#include "fns_reference.h"

namespace carbon::test {

struct CertifyProbe {
    float g[4];
    unsigned left;
    float temperature, top_p, u;
    double abs_bound;
};

// picked[i]: the certified base of probe i, or -1 when undecided.
template <bool kNoSlack>
__global__ void certify_probes_kernel(const CertifyProbe* probes, int* picked, int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    const CertifyProbe p = probes[i];
    const carbon::kern::FnsPick pick =
        carbon::kern::fns_certified_pick<kNoSlack>(p.g, p.abs_bound, p.left, p.temperature, p.top_p, p.u);
    picked[i] = pick.decided ? pick.base : -1;
}

}  // namespace carbon::test

namespace {

#if defined(CARBON_HOST_EXECUTOR_THREADS) || defined(CARBON_HOST_EXECUTOR_UCONTEXT)
constexpr int kTrials = 8000;  // sanitizer builds: one probe per thread is slow there
#else
constexpr int kTrials = 200000;
#endif

const float kTemperatures[] = {0.0f, 0.25f, 0.7f, 1.0f, 1.5f, 3.0f};
const float kTopPs[] = {1.0f, 0.95f, 0.9f, 0.5f, 0.3f};

struct Probe {
    std::array<float, 4> g{};
    unsigned left = 0xF;
    float temperature = 0, top_p = 1, u = 0;
    double total = 1;  // the masked total the bound's absolute part depends on
};

// Marginals that sum to 1 (as masked marginals do), sometimes with an exact or near tie, a zero,
// or a tiny entry.
std::array<float, 4> random_marginals(std::mt19937_64& rng, bool plain = false) {
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    std::array<double, 4> w;
    for (double& x : w) x = -std::log(unif(rng) + 1e-300);
    const int kind = plain ? 0 : int(rng() % 6);
    const int a = int(rng() % 4), b = (a + 1 + int(rng() % 3)) % 4;
    if (kind == 1) w[size_t(b)] = w[size_t(a)];
    if (kind == 2) w[size_t(a)] = 0.0;
    if (kind == 3) w[size_t(a)] = 1e-30 * w[size_t(a)];
    double s = 0;
    for (double x : w) s += x;
    std::array<float, 4> g;
    for (size_t i = 0; i < 4; ++i) g[i] = float(w[i] / s);
    if (kind == 4) {  // a few ulps apart
        g[size_t(b)] = g[size_t(a)];
        for (int k = int(rng() % 4); k > 0; --k) g[size_t(b)] = std::nextafter(g[size_t(b)], 1.0f);
    }
    return g;
}

// A draw u = k / 2^24 (what uniform01 gives) within a few steps of where pick_base's answer
// changes for these marginals, or a random one.
float boundary_draw(const Probe& p, std::mt19937_64& rng) {
    const auto q = carbon::adjust_base_distribution(p.g, carbon::BaseMask(p.left), p.temperature, p.top_p);
    double total = 0;
    for (float x : q) total += x;
    if (total <= 0 || rng() % 4 == 0) return float(rng() >> 40) * (1.0f / 16777216.0f);
    const int b = int(rng() % 3);
    double acc = 0;
    for (int c = 0; c <= b; ++c) acc += q[size_t(c)];
    const double k = std::floor(acc / total * 16777216.0) + double(int(rng() % 5) - 2);
    return float(std::clamp(k, 0.0, 16777215.0)) * (1.0f / 16777216.0f);
}

// top-p at the edge of the nucleus: the mass of the most likely bases, moved by a few ulps.
float boundary_top_p(const Probe& p, std::mt19937_64& rng) {
    if (rng() % 3 == 0 || p.temperature <= 0) return kTopPs[rng() % 5];
    std::array<float, 4> q = carbon::adjust_base_distribution(p.g, carbon::BaseMask(p.left), p.temperature, 1.0f);
    std::sort(q.begin(), q.end(), [](float x, float y) { return x > y; });
    const int k = 1 + int(rng() % 2);
    double acc = 0;
    for (int i = 0; i < k; ++i) acc += q[size_t(i)];
    float t = float(acc);
    for (int s = int(rng() % 5) - 2; s != 0; s += s > 0 ? -1 : 1) t = std::nextafter(t, s > 0 ? 2.0f : 0.0f);
    return t > 0.0f && t < 1.0f ? t : 0.5f;
}

// A CPU marginal vector at most the bound away from g: each entry at the edge or inside, rounded
// to a float that stays within the bound.
std::array<float, 4> perturbed(const Probe& p, std::mt19937_64& rng) {
    std::array<float, 4> c = p.g;
    const double abs_bound = carbon::kern::fns_marginal_abs_bound(p.total);
    for (size_t b = 0; b < 4; ++b) {
        const double d = 1e-6 * double(p.g[b]) + abs_bound;
        const int mode = int(rng() % 4);
        double target = mode == 0   ? double(p.g[b]) - d
                        : mode == 1 ? double(p.g[b]) + d
                                    : double(p.g[b]) + d * (2.0 * double(rng() % 1001) / 1000.0 - 1.0);
        if (target < 0) target = 0;
        float f = float(target);
        while (std::fabs(double(f) - double(p.g[b])) > d) f = std::nextafter(f, p.g[b]);
        c[b] = f;
    }
    return c;
}

struct Result {
    int decided = 0, wrong = 0, random_draws = 0, random_undecided = 0;
};

// plain: marginals not built to tie, top-p from the list, random draws (what real rows look like).
template <bool kNoSlack>
Result probe_certificate(uint64_t seed, int trials, bool plain = false) {
    std::mt19937_64 rng(seed);
    std::vector<Probe> probes(static_cast<size_t>(trials));
    std::vector<carbon::test::CertifyProbe> flat(static_cast<size_t>(trials));
    std::vector<bool> random_u(static_cast<size_t>(trials));
    for (int t = 0; t < trials; ++t) {
        Probe& p = probes[size_t(t)];
        p.g = random_marginals(rng, plain);
        do p.left = unsigned(rng() % 16);
        while (p.left == 0);
        p.temperature = kTemperatures[rng() % 6];
        p.total = std::pow(10.0, -double(rng() % 4));
        p.top_p = plain ? kTopPs[rng() % 5] : boundary_top_p(p, rng);
        random_u[size_t(t)] = plain || rng() % 2 == 0;
        p.u = p.temperature <= 0    ? 0.0f
              : random_u[size_t(t)] ? float(rng() >> 40) * (1.0f / 16777216.0f)
                                    : boundary_draw(p, rng);
        carbon::test::CertifyProbe& f = flat[size_t(t)];
        for (size_t b = 0; b < 4; ++b) f.g[b] = p.g[b];
        f.left = p.left, f.temperature = p.temperature, f.top_p = p.top_p, f.u = p.u;
        f.abs_bound = carbon::kern::fns_marginal_abs_bound(p.total);
    }
    carbon::test::DeviceBuffer<carbon::test::CertifyProbe> d_probes(flat);
    carbon::test::DeviceBuffer<int> d_picked(static_cast<size_t>(trials));
    CHECK_EQ(carbon::kern::launch(carbon::test::certify_probes_kernel<kNoSlack>, dim3(unsigned(trials + 255) / 256),
                                  dim3(256), 0, nullptr, static_cast<const carbon::test::CertifyProbe*>(d_probes.get()),
                                  d_picked.get(), trials),
             cudaSuccess);
    const std::vector<int> picked = d_picked.download();
    Result res;
    for (int t = 0; t < trials; ++t) {
        const Probe& p = probes[size_t(t)];
        const int base = picked[size_t(t)];
        if (random_u[size_t(t)] && (p.left & (p.left - 1))) {
            ++res.random_draws;
            res.random_undecided += base < 0;
        }
        if (base < 0) continue;
        ++res.decided;
        bool wrong = carbon::test::cpu_pick(p.g, carbon::BaseMask(p.left), p.temperature, p.top_p, p.u) != base;
        for (int k = 0; k < 16 && !wrong; ++k)
            wrong = carbon::test::cpu_pick(perturbed(p, rng), carbon::BaseMask(p.left), p.temperature, p.top_p, p.u) !=
                    base;
        if (wrong && res.wrong++ < 3 && !kNoSlack)
            std::fprintf(stderr, "    wrong: g %.9g %.9g %.9g %.9g left %u T %g top-p %.9g u %.9g -> %d\n", p.g[0],
                         p.g[1], p.g[2], p.g[3], p.left, double(p.temperature), double(p.top_p), double(p.u), base);
    }
    return res;
}

}  // namespace

TEST(a_certified_pick_is_the_cpu_pick_for_every_marginal_within_the_bound) {
    const Result r = probe_certificate<false>(1, kTrials);
    std::printf("  %d probes (built ties, tiny entries, boundary draws and top-p), %d certified, %d wrong\n", kTrials,
                r.decided, r.wrong);
    CHECK_EQ(r.wrong, 0);
    CHECK(r.decided > kTrials / 2);
}

TEST(random_marginals_and_draws_are_almost_always_decided) {
    const Result r = probe_certificate<false>(3, kTrials, true);
    std::printf("  %d of %d random probes undecided, %d wrong\n", r.random_undecided, r.random_draws, r.wrong);
    CHECK_EQ(r.wrong, 0);
    CHECK(r.random_undecided * 1000 < r.random_draws);  // the bound is ~1e-6 wide: about 1e-5 per pick
}

TEST(the_test_catches_a_certificate_without_slack) {
    // The injected bug: trust the GPU's marginals as if they were the CPU's. At the boundaries some
    // marginal vector an ulp or a few away makes the CPU pick another base.
    const Result r = probe_certificate<true>(2, kTrials);
    std::printf("  without slack: %d certified, %d wrong\n", r.decided, r.wrong);
    CHECK(r.wrong > 0);
}

TEST(a_single_left_base_is_always_decided) {
    const std::array<float, 4> g = {0.0f, 0.0f, 1.0f, 0.0f};
    for (unsigned b = 0; b < 4; ++b)
        for (float t : kTemperatures) {
            const auto pick = carbon::kern::fns_certified_pick(g.data(), 0.0, 1u << b, t, 0.5f, 0.999f);
            CHECK(pick.decided);
            CHECK_EQ(pick.base, int(b));
            CHECK_EQ(carbon::test::cpu_pick(g, carbon::BaseMask(1u << b), t, 0.5f, 0.999f), int(b));
        }
}

CARBON_KERNEL_TEST_MAIN()
