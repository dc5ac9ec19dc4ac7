// Rotary position embedding tables exactly as transformers computes them (default, linear,
// YaRN, llama3), shared by every backend so they rotate with the same frequencies.
#pragma once

#include <vector>

#include "carbon/loader/config.h"

namespace carbon {

struct RopeTable {
    std::vector<float> inv_freq;    // rotary_dim / 2 inverse frequencies (fp32, as transformers)
    float attention_scaling = 1.0f;  // multiplies cos and sin (YaRN's mscale)
    int rotary_dim = 0;
};

RopeTable compute_rope(const ModelConfig& config);

// cos/sin for one position in the "rotate half" layout: cos[i] = cos[i + half] =
// cos(pos * inv_freq[i]) * attention_scaling, i < half, computed in fp32 like transformers.
void rope_cos_sin(const RopeTable& table, long position, float* cos_out, float* sin_out);

// Rotates one head vector x[0..rotary_dim) in place: x' = x*cos + rotate_half(x)*sin.
void rope_apply(float* x, const float* cos, const float* sin, int rotary_dim);

}  // namespace carbon
