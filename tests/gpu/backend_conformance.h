// The CUDA backend's conformance script against the CPU backend, shared by test_cuda_backend (every
// checkpoint dtype) and test_cuda_int8 (int8 weights): the device (host seam, or device 0 with
// CARBON_BACKEND_TEST_REAL_GPU), the tiny checkpoints, the comparison of two runs' logits with a
// tolerance and the greedy-6-mer check, and the script of operations (see test_cuda_backend.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/loader/checkpoint.h"
#include "carbon/tokenizer/tokenizer.h"
#include "check.h"
#include "gpu/cuda_backend.h"
#include "test_model_dir.h"
#if defined(CARBON_BACKEND_TEST_REAL_GPU)
#include "gpu/cuda_device.h"
#else
#include "host_device.h"
#endif

namespace carbon::backend_conformance {

inline std::unique_ptr<gpu::Device> new_device() {
#if defined(CARBON_BACKEND_TEST_REAL_GPU)
    return gpu::make_cuda_device(0);
#else
    return std::make_unique<gpu::host_seam::HostDevice>();
#endif
}

struct Loaded {
    Checkpoint ckpt;
    Tokenizer tok;
};

inline Loaded load(DType dtype, const std::string& tag) {
    TestModelOptions o;
    o.seed = 11;
    o.dtype = dtype;
    if (dtype == DType::BF16) o.shard_bytes = 4 << 20;  // the bf16 checkpoint in shards, as the real ones
    const auto& dir = testing_support::tiny_model(o, tag);
    Checkpoint c = Checkpoint::open(dir);
    Tokenizer t = Tokenizer::load(dir, c.config().vocab_size);
    return {std::move(c), std::move(t)};
}


struct Comparison {
    double max_diff = 0;
    long long rows = 0, argmax_checked = 0, argmax_differs = 0;
};

inline void compare(const ForwardOutput& want, const ForwardOutput& got, double tol, Comparison& c, const std::string& what) {
    CHECK_EQ(got.width, want.width);
    CHECK(got.row_begin == want.row_begin);
    CHECK_EQ(got.logits.size(), want.logits.size());
    if (got.logits.size() != want.logits.size() || want.width == 0) return;
    double worst = 0;
    for (std::size_t r = 0; r < want.logits.size() / want.width; ++r) {
        const float* w = want.logits.data() + r * want.width;
        const float* g = got.logits.data() + r * want.width;
        std::size_t best = 0, second = 0;
        for (std::size_t v = 0; v < want.width; ++v) {
            worst = std::max(worst, std::fabs(double(w[v]) - double(g[v])));
            if (w[v] > w[best]) best = v;
        }
        second = best == 0 ? 1 : 0;
        for (std::size_t v = 0; v < want.width; ++v)
            if (v != best && w[v] > w[second]) second = v;
        ++c.rows;
        if (double(w[best]) - double(w[second]) > 2 * tol) {
            ++c.argmax_checked;
            const std::size_t gbest = std::size_t(std::max_element(g, g + want.width) - g);
            if (gbest != best) ++c.argmax_differs;
        }
    }
    c.max_diff = std::max(c.max_diff, worst);
    if (worst > tol) check::fail(__FILE__, __LINE__, what + ": logits differ by " + std::to_string(worst) + " > " + std::to_string(tol));
}

inline std::vector<std::int32_t> dna_tokens(const Tokenizer& tok, std::size_t n, unsigned seed) {
    std::vector<std::int32_t> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = tok.kmer_id(int((seed * 2654435761u + i * 40503u) % 4096));
    return t;
}

// The script, run on one backend; every output is handed to `seen` in order.
inline void script(Backend& be, const Tokenizer& tok, const std::function<void(const ForwardOutput&, const std::string&)>& seen) {
    ForwardOutput out;
    const SeqId a = be.create_sequence(), b = be.create_sequence(), c = be.create_sequence();
    const auto ta = dna_tokens(tok, 37, 1), tb = dna_tokens(tok, 5, 2), tc = dna_tokens(tok, 1, 3);
    std::vector<ForwardItem> items = {{a, ta, true}, {b, tb, true}, {c, tc, false}};
    be.forward(items, Head::Dna, out);
    seen(out, "ragged prefill 37/5/1");
    for (int step = 0; step < 4; ++step) {
        const auto na = dna_tokens(tok, 1, 10 + step), nb = dna_tokens(tok, 1, 20 + step), nc = dna_tokens(tok, 1, 30 + step);
        items = {{a, na, false}, {b, nb, false}, {c, nc, false}};
        be.forward(items, Head::Dna, out);
        seen(out, "decode step " + std::to_string(step));
    }
    // Fork a (41 tokens), roll the fork back to 18 and continue it beside a.
    const SeqId f = be.fork_sequence(a);
    CHECK_EQ(be.sequence_length(f), std::size_t(41));
    be.truncate_sequence(f, 18);
    const auto nf = dna_tokens(tok, 3, 40), na = dna_tokens(tok, 1, 41);
    items = {{f, nf, true}, {a, na, false}};
    be.forward(items, Head::Dna, out);
    seen(out, "fork + truncate");
    // A prefill without logits, then the full head on the next token.
    const SeqId d = be.create_sequence();
    const auto td = dna_tokens(tok, 23, 50);
    items = {{d, td, false}};
    be.forward(items, Head::None, out);
    CHECK_EQ(out.width, std::size_t(0));
    const auto nd = dna_tokens(tok, 1, 51);
    items = {{d, nd, false}, {b, nd, false}};
    be.forward(items, Head::Full, out);
    seen(out, "full head");
    // The final hidden states (what a sequence-regression head reads): a prefill of every position,
    // then a decode step.
    const auto th = dna_tokens(tok, 9, 55), nh = dna_tokens(tok, 1, 56);
    items = {{d, th, true}};
    be.forward(items, Head::Hidden, out);
    seen(out, "final hidden states, prefill");
    items = {{d, nh, false}, {b, nh, false}};
    be.forward(items, Head::Hidden, out);
    seen(out, "final hidden states, decode");
    // 20 new tokens after a cached prefix: the prefill kernel reading earlier pages.
    const auto more = dna_tokens(tok, 20, 60);
    items = {{c, more, true}};
    be.forward(items, Head::Dna, out);
    seen(out, "append 20 after a cached prefix");
    be.free_sequence(f);
    CHECK_EQ(be.sequence_length(a), std::size_t(42));
    CHECK_EQ(be.sequence_length(d), std::size_t(34));
}

}  // namespace carbon::backend_conformance
