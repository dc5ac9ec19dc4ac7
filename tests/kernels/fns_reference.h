// The CPU side of the FNS step tests: what the engine computes for one row of 4,096 DNA logits
// (dna_softmax, fns_marginals, fns_masked_marginals, then choose_fns's first leaf: per position
// adjust_base_distribution + pick_base with the design's Philox draw), and a runner that launches
// fns_step on a batch and downloads every output. Shared by the test_fns_step*.cpp programs.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "carbon/fns/fns.h"
#include "carbon/fns/sampling.h"
#include "carbon/kernels/fns_step.h"
#include "device_buffer.h"

namespace carbon::test {

using Mask6 = std::array<uint8_t, 6>;

// choose_fns's pick at one position (engine/src/generation/fns_generate.cpp), `left` the bases not yet tried:
// adjust + pick_base, and the most likely left base when nothing left has mass.
inline int cpu_pick(const std::array<float, 4>& marg, BaseMask left, float temperature, float top_p, float u) {
    const auto q = carbon::adjust_base_distribution(marg, left, temperature, top_p);
    int b = carbon::pick_base(q, u);
    if (b < 0)
        for (int c = 0; c < 4; ++c)
            if ((left >> c & 1) && (b < 0 || marg[size_t(c)] > marg[size_t(b)])) b = c;
    return b;
}

// The uniform choose_fns draws for base j of token `step` of design `stream` (0 when greedy).
inline float cpu_draw(const carbon::kern::FnsStepParams& p, uint64_t stream, uint64_t step, int j) {
    return p.temperature > 0 ? carbon::uniform01(p.seed, stream, 2 * step + uint64_t(j / 4), uint32_t(j % 4)) : 0.f;
}

struct CpuRow {
    carbon::Marginals plain{}, masked{};
    double masked_total = 0;
    int status = carbon::kern::kFnsCertified;  // kFnsNoAllowedKmer where the engine refuses
    int token = -1;
    std::array<double, 6> logp{};
};

// What the CPU backend's generation computes for one row (Generator::make_step and choose_fns
// without constraints; make_step throws where status is kFnsNoAllowedKmer).
inline CpuRow cpu_fns_row(std::span<const float> logits, const Mask6& mask, const carbon::kern::FnsStepParams& p,
                          uint64_t stream, uint64_t step) {
    CpuRow r;
    std::vector<float> probs(logits.size());
    carbon::dna_softmax(logits, probs);
    r.plain = carbon::fns_marginals(probs);
    std::array<carbon::BaseMask, 6> m;
    for (size_t j = 0; j < 6; ++j) m[j] = mask[j];
    r.masked_total = carbon::fns_masked_marginals(probs, m, r.masked);
    if (r.masked_total <= 0.0) {
        r.status = carbon::kern::kFnsNoAllowedKmer;
        return r;
    }
    r.token = 0;
    for (size_t j = 0; j < 6; ++j) {
        const int b = cpu_pick(r.masked[j], m[j], p.temperature, p.top_p, cpu_draw(p, stream, step, int(j)));
        r.token = r.token * 4 + b;
        r.logp[j] = std::log(double(r.plain[j][size_t(b)]));
    }
    return r;
}

struct KernelRows {
    std::vector<int32_t> status, token;
    std::vector<double> logp;          // [rows][6]
    std::vector<float> plain, masked;  // [rows][6][4]
    cudaError_t launched = cudaSuccess;
    std::array<float, 4> plain_at(int row, int j) const { return at(plain, row, j); }
    std::array<float, 4> masked_at(int row, int j) const { return at(masked, row, j); }

private:
    static std::array<float, 4> at(const std::vector<float>& v, int row, int j) {
        std::array<float, 4> a;
        for (size_t b = 0; b < 4; ++b) a[b] = v[size_t(row) * 24 + size_t(j) * 4 + b];
        return a;
    }
};

// Launches `kernel_launch(logits, masks, streams, steps, outputs)` (the real launcher or a test's
// buggy variant) on device copies and downloads every output.
template <class T, class Launch>
KernelRows run_fns_rows(const std::vector<T>& logits, int rows, const std::vector<Mask6>& masks,
                        const std::vector<uint64_t>& streams, const std::vector<uint64_t>& steps,
                        Launch&& kernel_launch) {
    DeviceBuffer<T> d_logits(logits);
    std::vector<uint8_t> flat;
    for (const Mask6& m : masks) flat.insert(flat.end(), m.begin(), m.end());
    DeviceBuffer<uint8_t> d_masks(flat);
    DeviceBuffer<uint64_t> d_streams(streams), d_steps(steps);
    const size_t n = size_t(rows);
    DeviceBuffer<int32_t> d_status(n), d_token(n);
    DeviceBuffer<double> d_logp(n * 6);
    DeviceBuffer<float> d_plain(n * 24), d_masked(n * 24);
    carbon::kern::FnsStepRows in;
    in.masks = masks.empty() ? nullptr : d_masks.get();
    in.streams = streams.empty() ? nullptr : d_streams.get();
    in.steps = steps.empty() ? nullptr : d_steps.get();
    carbon::kern::FnsStepOutputs out{d_status.get(), d_token.get(), d_logp.get(), d_plain.get(), d_masked.get()};
    KernelRows k;
    k.launched = kernel_launch(d_logits.get(), in, out);
    k.status = d_status.download();
    k.token = d_token.download();
    k.logp = d_logp.download();
    k.plain = d_plain.download();
    k.masked = d_masked.download();
    return k;
}

template <class T>
KernelRows run_fns_step(const std::vector<T>& logits, int rows, long long stride, const std::vector<Mask6>& masks,
                        const std::vector<uint64_t>& streams, const std::vector<uint64_t>& steps,
                        const carbon::kern::FnsStepParams& params) {
    return run_fns_rows(logits, rows, masks, streams, steps,
                        [&](const T* x, const carbon::kern::FnsStepRows& in, const carbon::kern::FnsStepOutputs& out) {
                            return carbon::kern::fns_step(x, rows, stride, in, params, out, nullptr);
                        });
}

}  // namespace carbon::test
