// The CUDA backend with int8 weights (CudaBackendOptions::int8_weights, BackendOptions::weights
// "int8") against the CPU backend with the same int8 weights: both quantise the weights by one rule
// (cpu::quantize_weight_row) and the activations by one rule (quantize_rows_int8 is the CPU's to the
// bit: kernels.quantize_rows_int8), and every product is an exact int32 dot product with the same
// scales (kernels.gemv_int8, kernels.scale_int32_products), so what differs is the rest of the
// network's fp32 summation order, and the activations' roundings to int8 it can tip: where no
// rounding tips, the logits agree to about 1e-6 (measured on the fp32 checkpoint); one that tips
// (an activation within a few ulps of a half step) moves that row's int8 value by one and the
// logits downstream by up to ~0.2 on these random tiny models, a tenth of int8's own mean
// difference from native weights. Part of test_cuda_backend's program (its main), so built twice
// with it: on the host seam (gpu_seam.cuda_backend, CI) and on device 0 (gpu.cuda_backend).
//
// Tolerances on the logits (|logit| up to about 30): largest difference 0.3 with an fp32 KV cache
// (measured 0.18), 0.6 with a bf16 cache (its own rounding, 0.35 in test_cuda_backend; measured
// 0.36); mean difference per output 0.02 with an fp32 cache and at most a quarter of the CPU's own
// int8-vs-native mean difference at that output (measured 0.003-0.010 against 0.02-0.07, at most
// 0.19 of it), 0.1 with a bf16 cache (measured 0.06). The measured figures are printed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend_conformance.h"

using namespace carbon;
using namespace carbon::backend_conformance;

namespace {

std::unique_ptr<Backend> cuda_int8(const Loaded& m, DType kv, bool gemm = true) {
    gpu::CudaBackendOptions o;
    o.kv_type = kv;
    o.int8_weights = true;
    o.int8_gemm = gemm;
    return gpu::make_cuda_backend(new_device(), m.ckpt, m.tok.kmer_ids(), o);
}

std::unique_ptr<Backend> cpu_int8(const Loaded& m) {
    return make_cpu_backend(m.ckpt, m.tok.kmer_ids(), BackendOptions{1, "fp32", "int8"});
}

std::vector<ForwardOutput> run_script(Backend& be, const Tokenizer& tok) {
    std::vector<ForwardOutput> outs;
    script(be, tok, [&](const ForwardOutput& o, const std::string&) { outs.push_back(o); });
    return outs;
}

double mean_difference(const ForwardOutput& a, const ForwardOutput& b) {
    double sum = 0;
    for (std::size_t j = 0; j < std::min(a.logits.size(), b.logits.size()); ++j) sum += std::fabs(double(a.logits[j]) - double(b.logits[j]));
    return a.logits.empty() ? 0.0 : sum / double(a.logits.size());
}

// The script on the CPU backend with int8 weights (the reference), on it with native weights (int8's
// own noise, for scale) and on the CUDA backend with int8 weights. Every output: the largest logit
// difference within `tol`, the mean within `mean_tol` and within a quarter of int8's own mean
// noise at that output, the greedy 6-mer the CPU's wherever its top two are clear.
void against_cpu(const Loaded& m, DType kv, double tol, double mean_tol, bool relative) {
    auto cpu = cpu_int8(m);
    auto native = make_cpu_backend(m.ckpt, m.tok.kmer_ids(), BackendOptions{1, "fp32", ""});
    auto gpu = cuda_int8(m, kv);
    const std::vector<ForwardOutput> want = run_script(*cpu, m.tok), noise = run_script(*native, m.tok);
    Comparison c;
    std::size_t i = 0;
    double worst_mean = 0, worst_ratio = 0;
    script(*gpu, m.tok, [&](const ForwardOutput& o, const std::string& what) {
        if (i >= want.size()) return;
        compare(want[i], o, tol, c, what);
        const double mean = mean_difference(want[i], o), own = mean_difference(want[i], noise[i]);
        worst_mean = std::max(worst_mean, mean);
        worst_ratio = std::max(worst_ratio, mean / own);
        if (mean > mean_tol || (relative && mean > 0.25 * own))
            check::fail(__FILE__, __LINE__, what + ": mean logit difference " + std::to_string(mean) + " (int8 against native: " +
                                                std::to_string(own) + ")");
        ++i;
    });
    CHECK_EQ(i, want.size());
    CHECK_EQ(c.argmax_differs, 0LL);
    std::printf("  %s\n    against %s: largest logit difference %.3g (tolerance %.3g), largest mean %.3g (tolerance %.3g; at most "
                "%.2f of int8's own mean difference from native weights, %s) over %lld rows; greedy 6-mer equal in %lld of %lld "
                "clear rows\n",
                gpu->describe().c_str(), cpu->describe().c_str(), c.max_diff, tol, worst_mean, mean_tol, worst_ratio,
                relative ? "bound 0.25" : "not bounded with a bf16 cache", c.rows, c.argmax_checked - c.argmax_differs,
                c.argmax_checked);
}

}  // namespace

TEST(int8_weights_match_the_cpu_backend_s_int8_weights) {
    const Loaded m = load(DType::BF16, "bf16");
    against_cpu(m, DType::F32, 0.3, 0.02, true);
    against_cpu(m, DType::BF16, 0.6, 0.1, false);
}

TEST(int8_weights_from_an_fp32_checkpoint_match_too) {
    const Loaded m = load(DType::F32, "f32");
    against_cpu(m, DType::F32, 0.3, 0.02, true);
}

TEST(prefill_through_the_int8_gemm_equals_prefill_through_gemv_int8_bit_for_bit) {
    // Exact integer sums either way and one epilogue order: a GPU without cuBLASLt's int8 GEMM gets
    // the same logits, only slower.
    const Loaded m = load(DType::BF16, "bf16");
    auto with_gemm = cuda_int8(m, DType::F32, true);
    auto with_gemv = cuda_int8(m, DType::F32, false);
    CHECK(with_gemm->describe().find("cuBLASLt's int8 GEMM") != std::string::npos);
    CHECK(with_gemv->describe().find("gemv_int8") != std::string::npos);
    const std::vector<ForwardOutput> a = run_script(*with_gemm, m.tok), b = run_script(*with_gemv, m.tok);
    CHECK_EQ(a.size(), b.size());
    std::size_t differ = 0, total = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        CHECK_EQ(a[i].logits.size(), b[i].logits.size());
        for (std::size_t j = 0; j < std::min(a[i].logits.size(), b[i].logits.size()); ++j, ++total)
            differ += std::memcmp(&a[i].logits[j], &b[i].logits[j], 4) != 0;
    }
    std::printf("  %zu of %zu logits differ\n", differ, total);
    CHECK_EQ(differ, std::size_t(0));
}

TEST(the_decode_path_is_batch_invariant_bit_for_bit_with_int8_weights) {
    const Loaded m = load(DType::BF16, "bf16");
    auto gpu = cuda_int8(m, DType::BF16);
    CHECK_EQ(gpu->guarantees().invariant_rows, std::size_t(8));
    const auto prompt = testing_support::random_dna_prompt(m.tok, 40, 8);
    const auto more = testing_support::random_dna_prompt(m.tok, 6, 9);
    ForwardOutput out;
    std::vector<float> alone;
    const SeqId s = gpu->create_sequence();
    ForwardItem first{s, prompt, false};
    gpu->forward(std::span(&first, 1), Head::Dna, out);
    for (std::size_t i = 0; i < 4; ++i) {
        ForwardItem it{s, std::span<const std::int32_t>(more.data() + i, 1), false};
        gpu->forward(std::span(&it, 1), Head::Dna, out);
        alone.insert(alone.end(), out.row(0), out.row(0) + out.width);
    }
    // The same 4 tokens as one verification pass beside two other sequences decoding.
    const SeqId v = gpu->create_sequence(), o1 = gpu->create_sequence(), o2 = gpu->create_sequence();
    const auto p1 = testing_support::random_dna_prompt(m.tok, 17, 20), p2 = testing_support::random_dna_prompt(m.tok, 29, 21);
    for (auto [id, p] : {std::pair{v, &prompt}, std::pair{o1, &p1}, std::pair{o2, &p2}}) {
        ForwardItem it{id, *p, false};
        gpu->forward(std::span(&it, 1), Head::Dna, out);
    }
    std::vector<ForwardItem> items{{v, std::span<const std::int32_t>(more.data(), 4), true},
                                   {o1, std::span<const std::int32_t>(more.data() + 4, 1), false},
                                   {o2, std::span<const std::int32_t>(more.data() + 5, 1), false}};
    gpu->forward(items, Head::Dna, out);
    std::size_t differ = 0;
    for (std::size_t p = 0; p < 4; ++p)
        for (std::size_t c = 0; c < out.width; ++c) differ += out.row(0, p)[c] != alone[p * out.width + c];
    CHECK_EQ(differ, std::size_t(0));
}

TEST(int8_weights_hold_one_byte_per_projection_weight_and_a_scale_per_row) {
    const Loaded m = load(DType::BF16, "bf16");
    gpu::CudaBackendOptions native;
    auto bf16 = gpu::make_cuda_backend(new_device(), m.ckpt, m.tok.kmer_ids(), native);
    auto int8 = cuda_int8(m, DType::BF16);
    const ModelConfig& c = m.ckpt.config();
    // Per layer: q, k, v, o, gate, up, down as [rows, cols]; and the DNA head's 4,096 rows.
    const std::size_t H = std::size_t(c.hidden_size), F = std::size_t(c.intermediate_size),
                      q = std::size_t(c.num_attention_heads * c.head_dim), kv = std::size_t(c.num_key_value_heads * c.head_dim);
    std::size_t saved = 0;  // bf16 (2 bytes a weight) minus int8 (1 byte a weight, 4 a row)
    for (auto [rows, cols] : {std::pair{q, H}, {kv, H}, {kv, H}, {H, q}, {F, H}, {F, H}, {H, F}}) saved += rows * cols - 4 * rows;
    saved *= std::size_t(c.num_hidden_layers);
    saved += 4096 * H - 4 * 4096;
    const std::size_t a = bf16->memory_plan().weights, b = int8->memory_plan().weights;
    std::printf("  device weights: bf16 %zu bytes, int8 %zu bytes (the embedding, norms and full head stay bf16)\n", a, b);
    CHECK_EQ(a - b, saved);
}

TEST(what_the_gpu_cannot_run_in_int8_is_refused_by_name) {
    CHECK_THROWS_WITH(gpu::cuda_backend_options(BackendOptions{1, "", "q8_0"}), "run on the CPU backend");
    CHECK_THROWS_WITH(gpu::cuda_backend_options(BackendOptions{1, "", "int4"}), "unknown weights 'int4'");
    CHECK(gpu::cuda_backend_options(BackendOptions{1, "", "int8"}).int8_weights);
    CHECK(!gpu::cuda_backend_options(BackendOptions{1, "", "native"}).int8_weights);
    // Widths that are not multiples of 16 (the int8 kernels' 128-bit rows).
    TestModelOptions o;
    o.seed = 5;
    o.hidden = 72;
    o.heads = 3;
    o.kv_heads = 1;
    o.head_dim = 24;
    const auto& dir = testing_support::tiny_model(o, "int8-odd-width");
    Checkpoint c = Checkpoint::open(dir);
    Tokenizer t = Tokenizer::load(dir, c.config().vocab_size);
    gpu::CudaBackendOptions io;
    io.int8_weights = true;
    CHECK_THROWS_WITH(gpu::make_cuda_backend(new_device(), c, t.kmer_ids(), io), "multiples of 16");
}
