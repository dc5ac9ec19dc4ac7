// Philox-4x32-10 and the token choice shared by every backend (see sampling.h).
#include "carbon/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "carbon/common.h"

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

size_t sample_index(std::span<const float> logits, const SamplingParams& params, float u) {
    if (logits.empty()) throw Error("sample_index: no candidates");
    if (!(params.temperature >= 0.0f) || !std::isfinite(params.temperature))
        throw Error("temperature must be a finite number >= 0");
    if (!(params.top_p > 0.0f && params.top_p <= 1.0f)) throw Error("top_p must be in (0, 1]");
    if (params.temperature == 0.0f) return argmax(logits);
    const size_t n = logits.size();
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : logits) mx = std::max(mx, x);
    std::vector<double> p(n);
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        p[i] = std::exp((double(logits[i]) - double(mx)) / double(params.temperature));
        sum += p[i];
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    size_t keep = n;
    if (params.top_p < 1.0f) {
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return p[a] > p[b]; });
        double acc = 0.0;
        const double target = double(params.top_p) * sum;
        for (keep = 0; keep < n;) {
            acc += p[order[keep++]];
            if (acc >= target) break;
        }
    }
    double kept = 0.0;
    for (size_t i = 0; i < keep; ++i) kept += p[order[i]];
    const double target = double(u) * kept;
    double acc = 0.0;
    for (size_t i = 0; i < keep; ++i) {
        acc += p[order[i]];
        if (target < acc) return order[i];
    }
    return order[keep - 1];
}

}  // namespace carbon
