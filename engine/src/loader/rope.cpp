// RoPE frequencies, following transformers' modeling_rope_utils (default, linear, yarn, llama3):
// the same formulas and the same fp32/fp64 split, so the parity test can hold to 1e-3.
#include "carbon/loader/rope.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "carbon/support/common.h"

namespace carbon {

namespace {

std::vector<float> default_inv_freq(double base, int dim) {
    // transformers: 1.0 / (base ** (arange(0, dim, 2).float() / dim)), all in fp32.
    std::vector<float> inv(size_t(dim / 2));
    for (int i = 0; i < dim / 2; ++i) {
        float e = float(2 * i) / float(dim);
        inv[size_t(i)] = 1.0f / std::pow(float(base), e);
    }
    return inv;
}

double yarn_mscale(double scale, double mscale) {
    if (scale <= 1.0) return 1.0;
    return 0.1 * mscale * std::log(scale) + 1.0;
}

}  // namespace

RopeTable compute_rope(const ModelConfig& c) {
    RopeTable t;
    const int dim = c.rotary_dim();
    t.rotary_dim = dim;
    const double base = c.rope_theta;
    const RopeScaling& s = c.rope_scaling;
    switch (s.type) {
        case RopeType::Default: t.inv_freq = default_inv_freq(base, dim); break;
        case RopeType::Linear: {
            t.inv_freq = default_inv_freq(base, dim);
            for (float& f : t.inv_freq) f = f / float(s.factor);
            break;
        }
        case RopeType::Llama3: {
            std::vector<float> inv = default_inv_freq(base, dim);
            const double factor = s.factor, lo = s.low_freq_factor, hi = s.high_freq_factor;
            const double old_len = s.original_max_position_embeddings;
            const double low_wavelen = old_len / lo, high_wavelen = old_len / hi;
            for (float& f : inv) {
                // transformers does this on fp32 tensors with Python-float scalars.
                const float wavelen = float(2.0 * M_PI) / f;
                float llama = wavelen > float(low_wavelen) ? f / float(factor) : f;
                const float smooth = (float(old_len) / wavelen - float(lo)) / float(hi - lo);
                const float smoothed = (1.0f - smooth) * llama / float(factor) + smooth * llama;
                const bool medium = !(wavelen < float(high_wavelen)) && !(wavelen > float(low_wavelen));
                f = medium ? smoothed : llama;
            }
            t.inv_freq = std::move(inv);
            break;
        }
        case RopeType::Yarn: {
            const double factor = s.factor;
            const int orig = s.original_max_position_embeddings;
            double attention = 0.0;
            if (s.attention_factor) {
                attention = *s.attention_factor;
            } else if (s.mscale && s.mscale_all_dim && *s.mscale != 0.0 && *s.mscale_all_dim != 0.0) {
                attention = yarn_mscale(factor, *s.mscale) / yarn_mscale(factor, *s.mscale_all_dim);
            } else {
                attention = yarn_mscale(factor, 1.0);
            }
            auto correction_dim = [&](double rotations) {
                return (dim * std::log(double(orig) / (rotations * 2.0 * M_PI))) / (2.0 * std::log(base));
            };
            double low = correction_dim(s.beta_fast), high = correction_dim(s.beta_slow);
            if (s.truncate) {
                low = std::floor(low);
                high = std::ceil(high);
            }
            low = std::max(low, 0.0);
            high = std::min(high, double(dim - 1));
            if (low == high) high += 0.001;  // transformers: prevent the singularity
            const int half = dim / 2;
            t.inv_freq.resize(size_t(half));
            for (int i = 0; i < half; ++i) {
                const float pos_freq = std::pow(float(base), float(2 * i) / float(dim));
                const float extrapolation = 1.0f / pos_freq;
                const float interpolation = 1.0f / (float(factor) * pos_freq);
                float ramp = (float(i) - float(low)) / (float(high) - float(low));
                ramp = std::clamp(ramp, 0.0f, 1.0f);
                const float extrapolation_factor = 1.0f - ramp;
                t.inv_freq[size_t(i)] =
                    interpolation * (1.0f - extrapolation_factor) + extrapolation * extrapolation_factor;
            }
            t.attention_scaling = float(attention);
            break;
        }
    }
    // Parameters that pass every range check can still overflow here (rope_theta: 1e-300 makes
    // every frequency infinite, and then every logit NaN): refuse them now, naming the file.
    bool finite = std::isfinite(t.attention_scaling);
    for (float f : t.inv_freq) finite = finite && std::isfinite(f);
    if (!finite) {
        char theta[32];
        std::snprintf(theta, sizeof theta, "%g", c.rope_theta);
        throw Error(c.path.string() + ": the RoPE parameters (rope_theta " + theta + ", " +
                    rope_type_name(s.type) + " scaling) give non-finite rotary frequencies; the model would compute NaN");
    }
    return t;
}

void rope_cos_sin(const RopeTable& t, long position, float* cos_out, float* sin_out) {
    const size_t half = t.inv_freq.size();
    for (size_t i = 0; i < half; ++i) {
        const float angle = float(position) * t.inv_freq[i];
        const float c = std::cos(angle) * t.attention_scaling, s = std::sin(angle) * t.attention_scaling;
        cos_out[i] = cos_out[i + half] = c;
        sin_out[i] = sin_out[i + half] = s;
    }
}

void rope_apply(float* x, const float* cos, const float* sin, int rotary_dim) {
    const int half = rotary_dim / 2;
    for (int i = 0; i < half; ++i) {
        const float a = x[i], b = x[i + half];
        x[i] = a * cos[i] - b * sin[i];
        x[i + half] = b * cos[i + half] + a * sin[i + half];
    }
}

}  // namespace carbon
