// Philox-4x32-10 and the token choice shared by every backend (see sampling.h).
#include "carbon/fns/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "carbon/support/common.h"

namespace carbon {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        const uint64_t p0 = uint64_t(M0) * c[0], p1 = uint64_t(M1) * c[2];
        const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
        const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
        c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
        k[0] += W0;
        k[1] += W1;
    }
    return c;
}

float uniform01(uint64_t seed, uint64_t stream, uint64_t step, uint32_t lane) {
    const auto r = philox4x32({uint32_t(step), uint32_t(step >> 32), uint32_t(stream), uint32_t(stream >> 32)},
                              {uint32_t(seed), uint32_t(seed >> 32)});
    return float(r[lane & 3u] >> 8) * (1.0f / 16777216.0f);
}

size_t argmax(std::span<const float> v) {
    size_t best = 0;
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i] > v[best]) best = i;
    return best;
}

void log_softmax(std::span<const float> logits, std::span<float> out) {
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : logits) mx = std::max(mx, x);
    double sum = 0.0;
    for (float x : logits) sum += std::exp(double(x) - double(mx));
    const double lse = double(mx) + std::log(sum);
    for (size_t i = 0; i < logits.size(); ++i) out[i] = float(double(logits[i]) - lse);
}

namespace {

// Softmax weights at the temperature (unnormalised, fp64), their order for the nucleus (most
// likely first, ties by index; identity order without top-p) and how many of them the nucleus
// keeps. Shared by sample_index and sampling_distribution, so both describe the same sampler.
struct Nucleus {
    std::vector<double> p;
    std::vector<uint32_t> order;
    size_t keep = 0;
    double kept = 0;
};

void check_params(std::span<const float> logits, const SamplingParams& params) {
    if (logits.empty()) throw Error("sample_index: no candidates");
    if (!(params.temperature >= 0.0f) || !std::isfinite(params.temperature))
        throw Error("temperature must be a finite number >= 0");
    if (!(params.top_p > 0.0f && params.top_p <= 1.0f)) throw Error("top_p must be in (0, 1]");
}

Nucleus nucleus(std::span<const float> logits, const SamplingParams& params) {
    Nucleus z;
    const size_t n = logits.size();
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : logits) mx = std::max(mx, x);
    z.p.resize(n);
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        z.p[i] = std::exp((double(logits[i]) - double(mx)) / double(params.temperature));
        sum += z.p[i];
    }
    z.order.resize(n);
    std::iota(z.order.begin(), z.order.end(), 0u);
    z.keep = n;
    if (params.top_p < 1.0f) {
        std::stable_sort(z.order.begin(), z.order.end(), [&](uint32_t a, uint32_t b) { return z.p[a] > z.p[b]; });
        double acc = 0.0;
        const double target = double(params.top_p) * sum;
        for (z.keep = 0; z.keep < n;) {
            acc += z.p[z.order[z.keep++]];
            if (acc >= target) break;
        }
    }
    for (size_t i = 0; i < z.keep; ++i) z.kept += z.p[z.order[i]];
    return z;
}

}  // namespace

size_t sample_index(std::span<const float> logits, const SamplingParams& params, float u) {
    check_params(logits, params);
    if (params.temperature == 0.0f) return argmax(logits);
    const Nucleus z = nucleus(logits, params);
    const double target = double(u) * z.kept;
    double acc = 0.0;
    for (size_t i = 0; i < z.keep; ++i) {
        acc += z.p[z.order[i]];
        if (target < acc) return z.order[i];
    }
    return z.order[z.keep - 1];
}

std::vector<double> sampling_distribution(std::span<const float> logits, const SamplingParams& params) {
    check_params(logits, params);
    if (params.temperature == 0.0f) {
        std::vector<double> d(logits.size(), 0.0);
        d[argmax(logits)] = 1.0;
        return d;
    }
    const Nucleus z = nucleus(logits, params);
    std::vector<double> d(logits.size(), 0.0);
    for (size_t i = 0; i < z.keep; ++i) d[z.order[i]] = z.p[z.order[i]] / z.kept;
    return d;
}

size_t draw_from(std::span<const double> w, float u) {
    double sum = 0;
    for (double x : w) sum += x > 0 ? x : 0;
    if (!(sum > 0)) throw Error("draw_from: every weight is zero");
    const double target = double(u) * sum;
    double acc = 0;
    size_t last = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        if (!(w[i] > 0)) continue;
        acc += w[i];
        last = i;
        if (target < acc) return i;
    }
    return last;  // rounding ran past the end: the last index with weight
}

SpeculativeStep speculative_step(std::span<const double> p, std::span<const double> q, size_t x, float u_accept, float u_residual) {
    if (p.size() != q.size() || x >= p.size()) throw Error("speculative_step: distributions of different sizes or token out of range");
    if (double(u_accept) * q[x] < p[x]) return {true, x};
    std::vector<double> residual(p.size());
    double mass = 0;
    for (size_t v = 0; v < p.size(); ++v) mass += residual[v] = std::max(0.0, p[v] - q[v]);
    return {false, mass > 0 ? draw_from(residual, u_residual) : draw_from(p, u_residual)};
}

}  // namespace carbon
