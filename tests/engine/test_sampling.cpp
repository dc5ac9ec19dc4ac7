// Sampling tests: Philox-4x32-10 known-answer vectors (Random123's kat_vectors), the uniform
// draw, greedy/top-p/temperature semantics and the sampled frequencies.
#include <cmath>

#include "carbon/fns/sampling.h"
#include "check.h"

using namespace carbon;

TEST(philox_known_answers) {
    auto r = philox4x32({0, 0, 0, 0}, {0, 0});
    CHECK_EQ(r[0], 0x6627e8d5u);
    CHECK_EQ(r[1], 0xe169c58du);
    CHECK_EQ(r[2], 0xbc57ac4cu);
    CHECK_EQ(r[3], 0x9b00dbd8u);
    r = philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu});
    CHECK_EQ(r[0], 0x408f276du);
    CHECK_EQ(r[1], 0x41c83b0eu);
    CHECK_EQ(r[2], 0xa20bc7c6u);
    CHECK_EQ(r[3], 0x6d5451fdu);
    r = philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u});
    CHECK_EQ(r[0], 0xd16cfe09u);
    CHECK_EQ(r[1], 0x94fdccebu);
    CHECK_EQ(r[2], 0x5001e420u);
    CHECK_EQ(r[3], 0x24126ea1u);
}

TEST(uniform_draws_are_in_range_and_uniform) {
    const int n = 200000, bins = 20;
    std::vector<int> h(bins);
    for (int i = 0; i < n; ++i) {
        float u = uniform01(9, uint64_t(i % 7), uint64_t(i), uint32_t(i % 4));
        CHECK(u >= 0.f && u < 1.f);
        h[size_t(std::min(bins - 1, int(u * bins)))]++;
    }
    double chi2 = 0, e = double(n) / bins;
    for (int c : h) chi2 += (c - e) * (c - e) / e;
    CHECK(chi2 < 43.8);  // chi-square, 19 dof, p = 0.001
}

TEST(greedy_and_top_p_and_temperature) {
    std::vector<float> logits = {0.f, 3.f, 1.f, 3.f, -1.f};
    SamplingParams greedy;
    CHECK_EQ(sample_index(logits, greedy, 0.9f), size_t(1));  // first of the tied maxima, like torch.argmax
    SamplingParams nucleus{1.0f, 0.01f, 0};
    for (float u : {0.f, 0.5f, 0.999f}) CHECK_EQ(sample_index(logits, nucleus, u), size_t(1));
    SamplingParams bad{-1.f, 1.f, 0};
    CHECK_THROWS_WITH(sample_index(logits, bad, 0.5f), "temperature");
    SamplingParams bad_p{1.f, 0.f, 0};
    CHECK_THROWS_WITH(sample_index(logits, bad_p, 0.5f), "top_p");
}

TEST(sampled_frequencies_follow_softmax) {
    std::vector<float> logits = {1.0f, 2.0f, 0.5f, -1.0f};
    for (float temp : {1.0f, 0.5f}) {
        SamplingParams p{temp, 1.0f, 3};
        std::vector<double> expect(4);
        double z = 0;
        for (size_t i = 0; i < 4; ++i) z += expect[i] = std::exp(logits[i] / temp);
        std::vector<int> h(4);
        const int n = 100000;
        for (int i = 0; i < n; ++i) h[sample_index(logits, p, uniform01(3, 0, uint64_t(i), 0))]++;
        double chi2 = 0;
        for (size_t i = 0; i < 4; ++i) {
            double e = n * expect[i] / z;
            chi2 += (h[i] - e) * (h[i] - e) / e;
        }
        CHECK(chi2 < 16.27);  // 3 dof, p = 0.001
    }
    // top-p 0.75 over probabilities {0.5, 0.3, 0.15, 0.05}: keeps the first two, renormalized.
    std::vector<float> l2 = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
    SamplingParams p{1.0f, 0.75f, 0};
    std::vector<int> h(4);
    const int n = 80000;
    for (int i = 0; i < n; ++i) h[sample_index(l2, p, uniform01(5, 1, uint64_t(i), 2))]++;
    CHECK_EQ(h[2] + h[3], 0);
    CHECK_NEAR(double(h[0]) / n, 0.625, 0.01);
}

CHECK_MAIN()
