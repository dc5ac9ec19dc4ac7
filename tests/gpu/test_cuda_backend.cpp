// The CUDA backend against the CPU backend (the reference), end to end through the Backend interface
// (the conformance suite; built twice: test_cuda_backend on the host seam, in CI, and
// test_cuda_backend_gpu on device 0, label gpu, skipped without one). On the host seam: the code above the seam is the code a GPU runs, the kernels are the same source
// built by g++ through the host execution layer, the GEMMs the seam's reference. One script of
// operations drives both backends: a ragged prefill (37, 5 and 1 tokens, every position's logits),
// decode steps at batch 3, a fork, a truncation and new tokens after it (speculative rollback), a
// prefill without logits, the full-vocabulary head, and a 20-token append (the prefill attention
// kernel after a cached prefix).
//
// Tolerances, on the logits (|logit| up to about 30 on these models), from what the paths round:
//  - fp32 checkpoint (fp32 GEMMs, fp32 KV cache): only summation order differs: 2e-4 absolute.
//  - fp16 checkpoint: GEMM inputs rounded to fp16 (2^-11 relative): 0.05.
//  - bf16 checkpoint, fp32 KV cache: GEMM inputs rounded to bf16 (2^-8 relative) at 7 GEMMs a layer:
//    0.25; bf16 KV cache adds the rounding of q, k, v and the attention output: 0.35.
// Measured maxima are printed; the greedy 6-mer of every row must be the CPU's wherever the CPU's
// top two logits are further apart than twice the tolerance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/loader/checkpoint.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "carbon/tokenizer/tokenizer.h"
#include "check.h"
#include "gpu/cuda_backend.h"
#include "backend_conformance.h"  // the device: the host seam, or device 0 (test_cuda_backend_gpu, label gpu)
#include "test_model_dir.h"

using namespace carbon;
using namespace carbon::backend_conformance;

namespace {
std::unique_ptr<Backend> cuda_on_host(const Loaded& m, DType kv) {
    gpu::CudaBackendOptions o;
    o.kv_type = kv;
    return gpu::make_cuda_backend(new_device(), m.ckpt, m.tok.kmer_ids(), o);
}

Comparison conformance(const Loaded& m, DType kv, double tol) {
    auto cpu = make_cpu_backend(m.ckpt, m.tok.kmer_ids(), BackendOptions{1, "fp32", ""});
    auto gpu = cuda_on_host(m, kv);
    std::vector<ForwardOutput> want;
    script(*cpu, m.tok, [&](const ForwardOutput& o, const std::string&) { want.push_back(o); });
    Comparison c;
    std::size_t i = 0;
    script(*gpu, m.tok, [&](const ForwardOutput& o, const std::string& what) {
        if (i < want.size()) compare(want[i++], o, tol, c, what);
    });
    CHECK_EQ(i, want.size());
    CHECK_EQ(c.argmax_differs, 0LL);
    std::printf("  %s: largest logit difference %.3g (tolerance %.3g) over %lld rows; greedy 6-mer equal in %lld of %lld "
                "clear rows\n",
                gpu->describe().c_str(), c.max_diff, tol, c.rows,
                c.argmax_checked - c.argmax_differs, c.argmax_checked);
    return c;
}

}  // namespace

TEST(fp32_checkpoint_matches_the_cpu_backend_to_summation_order) {
    conformance(load(DType::F32, "f32"), DType::F32, 2e-4);
}

TEST(fp16_checkpoint_matches_within_fp16_input_rounding) {
    conformance(load(DType::F16, "f16"), DType::BF16, 0.05);  // an fp16 checkpoint gets an fp32 cache
}

TEST(bf16_checkpoint_matches_within_bf16_rounding_fp32_and_bf16_cache) {
    const Loaded m = load(DType::BF16, "bf16");
    const Comparison f32 = conformance(m, DType::F32, 0.25);
    const Comparison bf = conformance(m, DType::BF16, 0.35);
    CHECK(f32.max_diff > 0 && bf.max_diff > 0);  // the comparison sees the rounding (it is not comparing a backend with itself)
}

TEST(describes_itself_and_says_when_the_cache_is_not_bf16) {
    const Loaded m = load(DType::F16, "f16");
    auto be = cuda_on_host(m, DType::BF16);
    CHECK_EQ(be->name(), std::string("cuda"));
#if !defined(CARBON_BACKEND_TEST_REAL_GPU)
    CHECK(be->describe().find("host seam") != std::string::npos);
#endif
    CHECK(be->describe().find("float16 weights, fp32 activations, float32 KV cache") != std::string::npos);
    CHECK(be->notice().find("KV cache is fp32") != std::string::npos);
    const MemoryPlan p = be->memory_plan();
    CHECK(p.weights > 0);
    CHECK_EQ(p.kv_per_token, std::size_t(m.ckpt.config().num_hidden_layers) * 2 * std::size_t(m.ckpt.config().num_key_value_heads) *
                                 std::size_t(m.ckpt.config().head_dim) * 4);
}

TEST(bad_batches_are_refused_before_any_cache_changes) {
    const Loaded m = load(DType::F32, "f32");
    auto be = cuda_on_host(m, DType::F32);
    ForwardOutput out;
    const SeqId s = be->create_sequence();
    const auto t = dna_tokens(m.tok, 4, 1);
    std::vector<ForwardItem> twice = {{s, t, false}, {s, t, false}};
    CHECK_THROWS_WITH(be->forward(twice, Head::Dna, out), "appears twice");
    const std::vector<std::int32_t> bad = {t[0], m.ckpt.config().vocab_size};
    std::vector<ForwardItem> oov = {{s, bad, false}};
    CHECK_THROWS_WITH(be->forward(oov, Head::Dna, out), "outside the vocabulary", "position 1");
    CHECK_EQ(be->sequence_length(s), std::size_t(0));
    CHECK_THROWS_WITH(be->truncate_sequence(s, 3), "cannot keep 3");
    CHECK_THROWS_WITH(be->fork_sequence(999), "unknown sequence id 999");
}

TEST(odd_shapes_match_fp32_gqa_5_to_1_head_dim_24_untied_yarn_llama3_sharded_wide_split_k) {
    struct Shape {
        const char* tag;
        TestModelOptions o;
    };
    std::vector<Shape> shapes;
    TestModelOptions a;
    a.heads = 5, a.kv_heads = 1, a.head_dim = 24, a.hidden = 80, a.tie = false;
    shapes.push_back({"gqa5-d24-untied", a});
    TestModelOptions b;
    b.rope = "yarn", b.shard_bytes = 4 << 20;
    shapes.push_back({"yarn-sharded", b});
    TestModelOptions c;
    c.rope = "llama3", c.heads = 8, c.kv_heads = 8, c.hidden = 128, c.head_dim = 16;
    shapes.push_back({"llama3-mha", c});
    // Hidden 2048 with 8:1 GQA: the decode gemv splits k for q (2 slices over 512 tiles) and for
    // k, v, gate and up (64 tiles) on one workspace; the shape that found the shared-ticket bug on
    // an H200 (the carbon-3b shape gave NaN logits), small enough for the host seam.
    TestModelOptions d;
    d.hidden = 2048, d.heads = 16, d.kv_heads = 2, d.head_dim = 128, d.intermediate = 256, d.compact_vocab = true;
    shapes.push_back({"wide-split-k", d});
    for (Shape& s : shapes) {
        s.o.seed = 17;
        s.o.dtype = DType::F32;
        const auto& dir = testing_support::tiny_model(s.o, s.tag);
        Checkpoint ck = Checkpoint::open(dir);
        Tokenizer tk = Tokenizer::load(dir, ck.config().vocab_size);
        std::printf("  %s:\n", s.tag);
        conformance(Loaded{std::move(ck), std::move(tk)}, DType::F32, 2e-4);
    }
}

// Greedy generation through the whole engine (FNS and direct, constraints, backtracking, ranking):
// 200 tokens (1,200 bp) per design, identical on both backends for an fp32 checkpoint.
TEST(greedy_200_token_designs_equal_the_cpu_backend_s_on_an_fp32_checkpoint) {
    const Loaded m = load(DType::F32, "f32");
    auto cpu = make_cpu_backend(m.ckpt, m.tok.kmer_ids(), BackendOptions{1, "fp32", ""});
    auto gpu = cuda_on_host(m, DType::F32);
    for (GenerationMode mode : {GenerationMode::Fns, GenerationMode::Direct}) {
        DesignRequest r;
        r.left_context = "ACGTTGCAGGCTAGCTAGGATCCATGCAAGT";
        r.length = 1200;
        r.count = 2;
        r.mode = mode;
        r.right_flank = "TTGACA";
        r.constraints.forbidden_motifs = {"GAATTC"};
        r.constraints.max_homopolymer = 3;
        const GenerationResult x = generate_designs(*cpu, m.tok, r);
        const GenerationResult y = generate_designs(*gpu, m.tok, r);
        CHECK_EQ(x.designs.size(), y.designs.size());
        for (std::size_t i = 0; i < std::min(x.designs.size(), y.designs.size()); ++i) {
            CHECK_EQ(x.designs[i].bases, y.designs[i].bases);
            CHECK_NEAR(x.designs[i].design_logp, y.designs[i].design_logp, 1e-4);
            CHECK_NEAR(x.designs[i].ranking_logp, y.designs[i].ranking_logp, 1e-4);
        }
    }
}

// After a run, the backend gives back its KV pages and per-step buffers (what a cancelled large
// run leaves in the window): the device's free memory rises to what it was before the first run,
// a sequence held across the release keeps its cache, and the next run is the same, bit for bit.
TEST(released_memory_returns_to_the_device_and_the_next_run_is_the_same) {
    const Loaded m = load(DType::F32, "f32");
    auto gpu = cuda_on_host(m, DType::F32);
    const std::size_t free_at_start = gpu->memory_available();
    DesignRequest r;
    r.left_context = "ACGTTGCAGGCTAGCTAGGATCCATGCAAGT";
    r.length = 300;
    r.count = 12;
    const GenerationResult first = generate_designs(*gpu, m.tok, r);
    const std::size_t free_after_run = gpu->memory_available();
    gpu->release_cached_memory();
    const std::size_t free_after_release = gpu->memory_available();
    std::printf("  device memory free: at start %zu, after a run %zu, after release %zu bytes\n", free_at_start, free_after_run,
                free_after_release);
    CHECK(free_after_run < free_at_start);  // the run kept pages and buffers for reuse
#if defined(CARBON_BACKEND_TEST_REAL_GPU)
    // A real device's free memory also moves with other programs and the libraries' own pools.
    CHECK(free_after_release > free_after_run);
#else
    CHECK(free_after_release >= free_at_start);  // everything but what the backend sized once at load
#endif
    const GenerationResult second = generate_designs(*gpu, m.tok, r);
    CHECK_EQ(first.designs.size(), second.designs.size());
    for (std::size_t i = 0; i < std::min(first.designs.size(), second.designs.size()); ++i)
        CHECK_EQ(first.designs[i].bases, second.designs[i].bases);

    // A sequence held across a release: its next logits are those of one never released.
    auto other = cuda_on_host(m, DType::F32);
    const auto prompt = testing_support::random_dna_prompt(m.tok, 90, 5);
    const auto next = testing_support::random_dna_prompt(m.tok, 3, 6);
    SeqId a = gpu->create_sequence(), b = other->create_sequence();
    ForwardOutput oa, ob;
    ForwardItem pa{a, prompt, false}, pb{b, prompt, false};
    gpu->forward(std::span(&pa, 1), Head::Dna, oa);
    other->forward(std::span(&pb, 1), Head::Dna, ob);
    gpu->release_cached_memory();
    ForwardItem na{a, next, false}, nb{b, next, false};
    gpu->forward(std::span(&na, 1), Head::Dna, oa);
    other->forward(std::span(&nb, 1), Head::Dna, ob);
    CHECK_EQ(oa.width, ob.width);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < std::min(oa.width, ob.width); ++i) differ += oa.row(0)[i] != ob.row(0)[i];
    CHECK_EQ(differ, std::size_t(0));
    gpu->free_sequence(a);
    other->free_sequence(b);
}

std::string random_bases(std::size_t n, unsigned seed) {
    std::string s(n, 'A');
    unsigned x = seed;
    for (char& c : s) {
        x = x * 1103515245u + 12345u;
        c = "ACGT"[(x >> 16) & 3];
    }
    return s;
}

// Per-base tracks, token-level scores (the full head) and variant deltas within 1e-4 (fp32), over
// several windows with overlap so the cache is reused and rolled back.
TEST(scoring_tracks_and_variant_deltas_within_1e4_on_an_fp32_checkpoint) {
    const Loaded m = load(DType::F32, "f32");
    auto cpu = make_cpu_backend(m.ckpt, m.tok.kmer_ids(), BackendOptions{1, "fp32", ""});
    auto gpu = cuda_on_host(m, DType::F32);
    ScoreOptions so;
    so.context_tokens = std::size_t(m.ckpt.config().max_position_embeddings);
    so.window_tokens = 40;
    so.overlap_tokens = 10;
    so.chunk_tokens = 16;
    const std::string seq = random_bases(700, 3);
    const SequenceScore x = score_sequence(*cpu, m.tok, seq, so);
    const SequenceScore y = score_sequence(*gpu, m.tok, seq, so);
    CHECK(x.windows > 2);
    CHECK_EQ(x.track.size(), y.track.size());
    double worst = 0;
    for (std::size_t i = 0; i < std::min(x.track.size(), y.track.size()); ++i)
        worst = std::max(worst, std::fabs(double(x.track[i].logp) - double(y.track[i].logp)));
    CHECK(worst < 1e-4);
    CHECK_NEAR(x.base_mean_logp, y.base_mean_logp, 1e-4);
    CHECK_NEAR(x.token_mean_logp, y.token_mean_logp, 1e-4);
    VariantOptions vo;
    vo.scoring = so;
    vo.window_bp = 300;
    vo.reverse_complement = true;
    const char alt = seq[350] == 'A' ? 'G' : 'A';
    const VariantScore a = score_variant(*cpu, m.tok, seq, 350, seq[350], alt, vo);
    const VariantScore b = score_variant(*gpu, m.tok, seq, 350, seq[350], alt, vo);
    CHECK_NEAR(a.site_log_odds, b.site_log_odds, 1e-4);
    CHECK_NEAR(a.window_delta, b.window_delta, 1e-4);
    CHECK_NEAR(a.window_delta_rc, b.window_delta_rc, 1e-4);
    std::printf("  scoring: %zu windows, largest per-base difference %.3g; variant delta %.6f vs %.6f\n", x.windows, worst,
                a.window_delta, b.window_delta);
}

// The gemv path (passes of up to 8 rows) promises batch invariance: a token's logits are the same
// bits whether it is decoded alone, beside other sequences or inside a verification pass of several
// tokens. Checked on bf16 weights with the bf16 cache.
TEST(the_decode_path_is_batch_invariant_bit_for_bit) {
    const Loaded m = load(DType::BF16, "bf16");
    auto gpu = cuda_on_host(m, DType::BF16);
    const BackendGuarantees g = gpu->guarantees();
    CHECK_EQ(g.invariant_new_tokens, std::size_t(8));
    CHECK_EQ(g.invariant_rows, std::size_t(8));
    CHECK(g.batch_invariant(5, 8) && !g.batch_invariant(9, 9) && !g.batch_invariant(1, 9));
    const auto prompt = testing_support::random_dna_prompt(m.tok, 40, 8);
    const auto more = testing_support::random_dna_prompt(m.tok, 12, 9);
    // Reference: the prompt, then 5 tokens one at a time, alone.
    std::vector<float> alone;
    SeqId s = gpu->create_sequence();
    ForwardOutput out;
    ForwardItem first{s, prompt, false};
    gpu->forward(std::span(&first, 1), Head::Dna, out);
    for (std::size_t i = 1; i <= 5; ++i) {
        ForwardItem it{s, std::span<const std::int32_t>(more.data() + i, 1), false};
        gpu->forward(std::span(&it, 1), Head::Dna, out);
        alone.insert(alone.end(), out.row(0), out.row(0) + out.width);
    }
    gpu->free_sequence(s);
    // The same 5 tokens as one verification pass, beside 3 other sequences decoding a token each.
    SeqId v = gpu->create_sequence();
    std::vector<SeqId> others;
    std::vector<std::vector<std::int32_t>> other_prompts;
    for (int o = 0; o < 3; ++o) {
        others.push_back(gpu->create_sequence());
        other_prompts.push_back(testing_support::random_dna_prompt(m.tok, std::size_t(20 + 3 * o), unsigned(20 + o)));
        ForwardItem p{others.back(), other_prompts.back(), false};
        gpu->forward(std::span(&p, 1), Head::Dna, out);
    }
    {
        ForwardItem p{v, prompt, false};
        gpu->forward(std::span(&p, 1), Head::Dna, out);
    }
    std::vector<ForwardItem> items{{v, std::span<const std::int32_t>(more.data() + 1, 5), true}};
    for (int o = 0; o < 3; ++o) items.push_back({others[std::size_t(o)], std::span<const std::int32_t>(more.data() + o, 1), false});
    gpu->forward(items, Head::Dna, out);
    std::size_t differ = 0;
    for (std::size_t p = 0; p < 5; ++p)
        for (std::size_t c = 0; c < out.width; ++c) differ += out.row(0, p)[c] != alone[p * out.width + c];
    if (differ) std::printf("  %zu of %zu logits differ\n", differ, alone.size());
    CHECK_EQ(differ, std::size_t(0));
}

// Decode steps go through CUDA graphs: recorded once per shape (batch size, rows asked for, 256-position
// chunk of context, buffer addresses) and replayed. Against the same backend without graphs, every
// step's logits are the same bits: across page boundaries, a sequence crossing 256 positions (a new
// chunk: recorded again), a batch that shrinks and grows back (the earlier graph replayed), FNS
// steps, and a batch large enough to grow the buffers (recorded again at the new addresses).
TEST(decode_steps_replay_cuda_graphs_with_the_same_bits) {
    const Loaded m = load(DType::BF16, "bf16");
    auto with = cuda_on_host(m, DType::BF16);
    gpu::CudaBackendOptions o;
    o.kv_type = DType::BF16;
    o.graphs = false;
    auto without = gpu::make_cuda_backend(new_device(), m.ckpt, m.tok.kmer_ids(), o);
    CHECK(with->describe().find("decode steps as CUDA graphs") != std::string::npos);
    CHECK(without->describe().find("CUDA graphs") == std::string::npos);
    std::vector<SeqId> a, b;
    std::vector<std::vector<std::int32_t>> prompts;
    for (std::size_t i = 0; i < 3; ++i) prompts.push_back(testing_support::random_dna_prompt(m.tok, 236 + 7 * i, unsigned(40 + i)));
    ForwardOutput oa, ob;
    for (std::size_t i = 0; i < 3; ++i) {
        a.push_back(with->create_sequence());
        b.push_back(without->create_sequence());
        ForwardItem ia{a.back(), prompts[i], false}, ib{b.back(), prompts[i], false};
        with->forward(std::span(&ia, 1), Head::Dna, oa);
        without->forward(std::span(&ib, 1), Head::Dna, ob);
    }
    const gpu::GraphCounts before = gpu::graph_counts(*with);
    const auto tokens = testing_support::random_dna_prompt(m.tok, 64, 77);
    std::size_t steps = 0, differ = 0;
    auto step = [&](std::size_t n_seq, std::size_t s) {
        std::vector<ForwardItem> ia, ib;
        for (std::size_t i = 0; i < n_seq; ++i) {
            ia.push_back({a[i], std::span<const std::int32_t>(&tokens[(s + i) % tokens.size()], 1), false});
            ib.push_back({b[i], std::span<const std::int32_t>(&tokens[(s + i) % tokens.size()], 1), false});
        }
        with->forward(ia, Head::Dna, oa);
        without->forward(ib, Head::Dna, ob);
        CHECK(oa.row_begin == ob.row_begin);
        for (std::size_t k = 0; k < std::min(oa.logits.size(), ob.logits.size()); ++k) differ += oa.logits[k] != ob.logits[k];
        ++steps;
    };
    for (std::size_t s = 0; s < 24; ++s) step(3, s);   // sequence 1 and 2 cross 256 positions on the way
    for (std::size_t s = 24; s < 28; ++s) step(2, s);  // the third rests: another shape
    for (std::size_t s = 28; s < 32; ++s) step(3, s);  // back: the earlier graph
    // FNS steps take the same path.
    std::vector<FnsRowRequest> req(3);
    std::vector<FnsRow> fa, fb;
    std::vector<ForwardItem> ia, ib;
    for (std::size_t i = 0; i < 3; ++i) {
        ia.push_back({a[i], std::span<const std::int32_t>(&tokens[i], 1), false});
        ib.push_back({b[i], std::span<const std::int32_t>(&tokens[i], 1), false});
        req[i].stream = i;
        req[i].step = 1;
    }
    with->forward_fns(ia, req, SamplingParams{}, fa);
    without->forward_fns(ib, req, SamplingParams{}, fb);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 6; ++j)
            for (std::size_t c = 0; c < 4; ++c) differ += fa[i].plain[j][c] != fb[i].plain[j][c];
    const gpu::GraphCounts after = gpu::graph_counts(*with);
    const std::size_t captures = after.captures - before.captures, replays = after.replays - before.replays;
    std::printf("  %zu decode steps and 1 FNS step: %zu graphs recorded, %zu launched; %zu values differ\n", steps, captures,
                replays, differ);
    CHECK_EQ(differ, std::size_t(0));
    CHECK_EQ(replays, steps + 1);
    CHECK(captures >= 3 && captures <= 6);  // 3 sequences (before and after 256), 2 sequences; FNS
    CHECK_EQ(gpu::graph_counts(*without).replays, std::size_t(0));
    // A larger batch (past the gemv path: cuBLASLt GEMMs, also recorded) grows the step buffers:
    // recorded again at the new addresses, and replayed on the next steps; the same bits.
    std::vector<SeqId> more_a, more_b;
    std::vector<ForwardItem> wa, wb;
    for (std::size_t i = 0; i < 40; ++i) {
        more_a.push_back(with->create_sequence());
        more_b.push_back(without->create_sequence());
    }
    for (std::size_t i = 0; i < 40; ++i) {
        wa.push_back({more_a[i], std::span<const std::int32_t>(&tokens[i], 1), false});
        wb.push_back({more_b[i], std::span<const std::int32_t>(&tokens[i], 1), false});
    }
    differ = 0;
    const std::size_t wide_before = gpu::graph_counts(*with).replays;
    for (int rep = 0; rep < 3; ++rep) {
        with->forward(wa, Head::Dna, oa);
        without->forward(wb, Head::Dna, ob);
        for (std::size_t k = 0; k < oa.logits.size(); ++k) differ += oa.logits[k] != ob.logits[k];
    }
    CHECK_EQ(differ, std::size_t(0));
    CHECK_EQ(gpu::graph_counts(*with).replays - wide_before, std::size_t(3));
    step(3, 40);
    CHECK_EQ(differ, std::size_t(0));
    CHECK(gpu::graph_counts(*with).captures > after.captures);
}

// Speculative decoding with the CUDA backend as target and draft (another model). Greedy requests
// are verified by identity, which needs batch-invariant logits: the generator keeps the passes
// inside what the backend promises (8 rows), drafting fewer tokens per pass when the count asks for
// it and turning speculation off when even one would not fit, and says so; the designs are the
// target's own either way. Sampled requests use speculative sampling.
TEST(speculative_decoding_on_the_cuda_backend_stays_inside_its_guarantees) {
    const Loaded m = load(DType::F32, "f32");
    TestModelOptions o;
    o.seed = 99;
    o.dtype = DType::F32;
    const auto& ddir = testing_support::tiny_model(o, "draft");
    const Checkpoint dck = Checkpoint::open(ddir);
    const Tokenizer dtk = Tokenizer::load(ddir, dck.config().vocab_size);
    auto target = cuda_on_host(m, DType::F32);
    auto draft = gpu::make_cuda_backend(new_device(), dck, dtk.kmer_ids(), gpu::CudaBackendOptions{DType::F32});
    auto self = gpu::make_cuda_backend(new_device(), m.ckpt, m.tok.kmer_ids(), gpu::CudaBackendOptions{DType::F32});
    auto said = [](const GenerationResult& g, const char* what) {
        for (const std::string& n : g.notices)
            if (n.find(what) != std::string::npos) return true;
        return false;
    };
    auto same = [](const GenerationResult& a, const GenerationResult& b) {
        if (a.designs.size() != b.designs.size()) return false;
        for (std::size_t i = 0; i < a.designs.size(); ++i)
            if (a.designs[i].bases != b.designs[i].bases) return false;
        return true;
    };
    DesignRequest r;
    r.left_context = "ACGTTGCAGGCTAGCTAGGATCCATGCAAGT";
    r.length = 120;
    r.count = 3;
    SpeculativeConfig sc;
    sc.draft_tokenizer = &dtk;
    sc.auto_disable = false;
    r.count = 2;  // at most 8 / 2 - 1 = 3 drafted tokens per pass
    const GenerationResult plain = generate_designs(*target, m.tok, r);
    for (Backend* d : {draft.get(), self.get()}) {
        sc.draft = d;
        sc.draft_tokenizer = d == self.get() ? &m.tok : &dtk;
        const GenerationResult spec = generate_designs(*target, m.tok, r, {}, &sc);
        CHECK(spec.speculative.used);
        CHECK(spec.speculative.drafted > 0);
        CHECK(same(plain, spec));
        CHECK(said(spec, "drafts at most 3 tokens per pass"));
        std::printf("  %s draft: %zu of %zu drafted tokens accepted, designs identical to the target alone\n",
                    d == self.get() ? "self" : "other", spec.speculative.accepted, spec.speculative.drafted);
        if (d == self.get()) CHECK_EQ(spec.speculative.accepted, spec.speculative.drafted);
    }
    sc.draft = draft.get();
    sc.draft_tokenizer = &dtk;
    // 4 designs: at most 8 / 4 - 1 = 1 drafted token per pass.
    r.count = 4;
    r.length = 36;
    const GenerationResult plain4 = generate_designs(*target, m.tok, r);
    const GenerationResult spec4 = generate_designs(*target, m.tok, r, {}, &sc);
    CHECK(spec4.speculative.used);
    CHECK(said(spec4, "drafts at most 1 token per pass"));
    CHECK(same(plain4, spec4));
    // 5 designs: not even one drafted token fits.
    r.count = 5;
    r.length = 12;
    const GenerationResult spec5 = generate_designs(*target, m.tok, r, {}, &sc);
    CHECK(!spec5.speculative.used);
    CHECK(said(spec5, "speculative decoding is off for this run"));
    // Sampled, unconstrained: speculative sampling, which needs no invariance.
    r.count = 3;
    r.length = 120;
    r.sampling = {1.0f, 1.0f, 7};
    const GenerationResult sampled = generate_designs(*target, m.tok, r, {}, &sc);
    CHECK(sampled.speculative.used);
    CHECK(sampled.speculative.verify == SpeculativeVerify::Distribution);
    CHECK(sampled.speculative.drafted > 0);
    CHECK_EQ(sampled.designs.size(), std::size_t(3));
    for (const Design& d : sampled.designs) CHECK_EQ(d.bases.size(), std::size_t(120));
}

// FNS steps run on the device (the fns_step kernel beside the logits), and the designs are those of
// the host functions on the same logits: greedy and sampled, with a template and constraints.
TEST(fns_on_the_device_chooses_what_the_host_functions_choose) {
    const Loaded m = load(DType::BF16, "bf16");
    auto gpu = cuda_on_host(m, DType::BF16);
    for (float t : {0.0f, 1.0f}) {
        DesignRequest r;
        r.left_context = "ACGTTGCAGGCTAGCTAGGATCCATGCAAGT";
        r.template_iupac = "NNNNNNNNNNTATAAANNNNNNNNNNNNNNSSSSNNNNNNNNNNNNNNNNNNNNWWNNNNNNNN";
        r.count = 4;
        r.sampling = {t, 0.9f, 3};
        r.constraints.max_homopolymer = 3;
        const gpu::FnsRowCounts before = gpu::fns_row_counts(*gpu);
        const GenerationResult on_device = generate_designs(*gpu, m.tok, r);
        const gpu::FnsRowCounts after = gpu::fns_row_counts(*gpu);
        CHECK(after.device > before.device);
        // The reference: the same backend's logits through the host functions (Backend's default
        // forward_fns), by a wrapper that hides the override.
        struct HostFns final : Backend {
            Backend& b;
            explicit HostFns(Backend& x) : b(x) {}
            std::string name() const override { return b.name(); }
            std::string describe() const override { return b.describe(); }
            SeqId create_sequence() override { return b.create_sequence(); }
            void free_sequence(SeqId s) override { b.free_sequence(s); }
            SeqId fork_sequence(SeqId s) override { return b.fork_sequence(s); }
            std::size_t sequence_length(SeqId s) const override { return b.sequence_length(s); }
            void truncate_sequence(SeqId s, std::size_t n) override { b.truncate_sequence(s, n); }
            void forward(std::span<const ForwardItem> i, Head h, ForwardOutput& o) override { b.forward(i, h, o); }
            MemoryPlan memory_plan() const override { return b.memory_plan(); }
        } host(*gpu);
        const GenerationResult on_host = generate_designs(host, m.tok, r);
        CHECK_EQ(on_device.designs.size(), on_host.designs.size());
        for (std::size_t i = 0; i < std::min(on_device.designs.size(), on_host.designs.size()); ++i) {
            CHECK_EQ(on_device.designs[i].bases, on_host.designs[i].bases);
            CHECK_NEAR(on_device.designs[i].design_logp, on_host.designs[i].design_logp, 1e-5);
        }
        std::printf("  T = %g: %zu FNS rows on the device, %zu sent to the host functions\n", double(t),
                    after.device - before.device, after.host - before.host);
    }
}

int main() {
#if defined(CARBON_BACKEND_TEST_REAL_GPU)
    if (const std::string why = gpu::cuda_unavailable_reason(0); !why.empty()) {
        std::printf("SKIP the CUDA backend conformance suite on a GPU: %s\n", why.c_str());
        return 0;
    }
#endif
    return check::run_all();
}
