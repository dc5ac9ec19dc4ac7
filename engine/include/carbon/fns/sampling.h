// Seeded, reproducible choice of tokens from logits. Random numbers come from Philox-4x32-10,
// a counter-based generator: the draw for (seed, stream, step, lane) is a pure function of those
// four numbers, so a run is reproducible bit for bit on one backend and a GPU backend can draw
// the same numbers in parallel without shared state.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace carbon {

// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// A uniform float in [0, 1) with 24 random bits, for draw `lane` (0..3) of (stream, step).
float uniform01(uint64_t seed, uint64_t stream, uint64_t step, uint32_t lane);

struct SamplingParams {
    float temperature = 0.0f;  // 0: greedy (arg-max); > 0: sample from softmax(logits / T)
    float top_p = 1.0f;        // nucleus: keep the smallest set of most likely tokens with mass >= top_p
    uint64_t seed = 0;
};

// Index of the largest value (the first one on ties, as torch.argmax).
size_t argmax(std::span<const float> values);

// Numerically stable log-softmax (fp64 sum), in place into `out`.
void log_softmax(std::span<const float> logits, std::span<float> out);

// Chooses an index from `logits` per `params`: arg-max when temperature is 0; otherwise softmax at
// the temperature, restricted to the top-p nucleus (ties broken by index), then inverse-CDF with
// the uniform draw u in [0, 1).
size_t sample_index(std::span<const float> logits, const SamplingParams& params, float u);

// The distribution sample_index draws from, normalised (zero outside the nucleus; one-hot at the
// arg-max for temperature 0): what speculative sampling compares target and draft by.
std::vector<double> sampling_distribution(std::span<const float> logits, const SamplingParams& params);

// Inverse CDF over non-negative weights in index order (normalised here), u in [0, 1): the index
// drawn. Error when every weight is zero.
size_t draw_from(std::span<const double> weights, float u);

// One step of speculative sampling (Leviathan et al. 2023; Chen et al. 2023): token x was drawn
// from the draft's distribution q; keep it when u_accept * q(x) < p(x) (probability
// min(1, p(x)/q(x))), else draw the replacement from the normalised positive part of p - q with
// u_residual (from p itself when p == q leaves nothing). Over x ~ q and both uniforms, the token
// returned is distributed exactly as p.
struct SpeculativeStep {
    bool accepted = false;
    size_t token = 0;
};
SpeculativeStep speculative_step(std::span<const double> p, std::span<const double> q, size_t x, float u_accept, float u_residual);

}  // namespace carbon
