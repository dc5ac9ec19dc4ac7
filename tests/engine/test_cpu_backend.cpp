// CPU backend tests: kernels against a double-precision reference at awkward sizes, and the
// backend's cache semantics (ragged batches, chunked prefill, fork, truncate) against a plain
// single-sequence forward. Parity with transformers is in tests/python/test_parity_transformers.py.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>

#include "carbon/backend.h"
#include "carbon/model.h"
#include "check.h"
#include "cpu/cpu_ops.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

using testing_support::encode;

double max_abs(const std::vector<float>& a, const float* b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
    return m;
}

}  // namespace

TEST(matmul_matches_double_reference_at_awkward_sizes) {
    ThreadPool pool(3);
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.f, 1.f);
    for (DType t : {DType::F32, DType::F16, DType::BF16})
        for (size_t m : {1, 2, 3, 5, 17})
            for (size_t n : {1, 7, 33, 100})
                for (size_t k : {1, 7, 8, 9, 100, 257}) {
                    for (bool use_rows : {false, true}) {
                        const size_t wrows = n + 5;
                        std::vector<float> w(wrows * k), x(m * k);
                        for (auto& v : w) v = nd(rng);
                        for (auto& v : x) v = nd(rng);
                        auto wb = encode(w, t);
                        std::vector<int32_t> rows(n);
                        for (size_t j = 0; j < n; ++j) rows[j] = int32_t((j * 7 + 3) % wrows);
                        cpu::WeightMatrix wm{wb.data(), t, wrows, k};
                        const size_t ldy = n + 2;
                        std::vector<float> y(m * ldy, -1.f);
                        cpu::matmul_wt(pool, x.data(), m, k, wm, use_rows ? rows.data() : nullptr, n, y.data(), ldy);
                        double worst = 0;
                        for (size_t i = 0; i < m; ++i)
                            for (size_t j = 0; j < n; ++j) {
                                const size_t r = use_rows ? size_t(rows[j]) : j;
                                double ref = 0, mag = 0;
                                for (size_t c = 0; c < k; ++c) {
                                    const double wv = load_as_f32(wb.data(), t, r * k + c);  // the stored weight
                                    ref += double(x[i * k + c]) * wv;
                                    mag += std::fabs(double(x[i * k + c]) * wv);
                                }
                                // fp32 accumulation: error grows like k * eps * sum |terms|.
                                worst = std::max(worst, std::fabs(ref - y[i * ldy + j]) / (mag * 1e-6 * double(k) + 1e-30));
                            }
                        if (worst > 1.0) {
                            CHECK(worst <= 1.0);
                            std::fprintf(stderr, "  dtype %s m %zu n %zu k %zu rows %d: error %.3g x bound\n", dtype_name(t), m, n, k,
                                         int(use_rows), worst);
                        }
                    }
                }
}

TEST(rmsnorm_matches_formula) {
    std::vector<float> x = {1.f, -2.f, 3.f, 0.5f, 0.f};
    std::vector<float> w = {1.f, 0.5f, 2.f, -1.f, 3.f};
    std::vector<float> out(5);
    cpu::rmsnorm(x.data(), w.data(), DType::F32, 5, 1e-6f, out.data());
    double ms = 0;
    for (float v : x) ms += v * v;
    ms /= 5;
    for (size_t i = 0; i < 5; ++i) CHECK_NEAR(out[i], w[i] * x[i] / std::sqrt(ms + 1e-6), 1e-6);
}

TEST(thread_pool_covers_every_index_once) {
    ThreadPool pool(4);
    for (size_t n : {1, 3, 17, 1000, 12345}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, 3, [&](size_t b, size_t e, int) {
            for (size_t i = b; i < e; ++i) hits[i]++;
        });
        bool ok = true;
        for (auto& h : hits) ok = ok && h.load() == 1;
        CHECK(ok);
    }
}

// Workers that the system refuses to start (an address-space limit: each thread reserves its
// stack) leave a smaller pool that still covers every index, and says so; it used to hang. Run
// in a child process, whose limit cannot disturb this one.
TEST(thread_pool_runs_with_the_threads_that_could_start) {
    const pid_t child = ::fork();
    if (child == 0) {
        rlimit lim{};
        std::ifstream status("/proc/self/status");
        std::string key;
        size_t vm_kb = 0;
        while (status >> key)
            if (key == "VmSize:") {
                status >> vm_kb;
                break;
            }
        lim.rlim_cur = lim.rlim_max = vm_kb * 1024 + (48u << 20);  // room for about five 8 MiB stacks
        ::setrlimit(RLIMIT_AS, &lim);
        ThreadPool pool(64);
        std::vector<std::atomic<int>> hits(1000);
        pool.parallel_for(hits.size(), 3, [&](size_t b, size_t e, int) {
            for (size_t i = b; i < e; ++i) hits[i]++;
        });
        bool ok = pool.size() < 64 && pool.size() >= 1 && pool.shortfall().find("of the 64 requested threads could start") != std::string::npos;
        for (auto& h : hits) ok = ok && h.load() == 1;
        std::_Exit(ok ? 0 : 3);
    }
    int status = 0;
    CHECK(::waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

namespace {

std::unique_ptr<Model> load_tiny(int threads = 2) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = threads;
    return Model::load(testing_support::tiny_model(), mo);
}

using testing_support::random_dna_prompt;

// Logits of every position of `ids`, run alone as one prefill.
std::vector<float> reference_logits(Backend& be, const std::vector<int32_t>& ids, Head head, size_t& width) {
    SeqId s = be.create_sequence();
    ForwardOutput out;
    ForwardItem item{s, ids, true};
    be.forward(std::span(&item, 1), head, out);
    be.free_sequence(s);
    width = out.width;
    return out.logits;
}

}  // namespace

TEST(chunked_prefill_and_decode_match_one_prefill) {
    auto m = load_tiny();
    Backend& be = m->backend();
    auto ids = random_dna_prompt(m->tokenizer(), 150, 1);
    size_t width = 0;
    auto ref = reference_logits(be, ids, Head::Full, width);
    SeqId s = be.create_sequence();
    size_t done = 0, worst_pos = 0;
    double worst = 0;
    for (size_t chunk : {70, 1, 1, 13, 64, 1, 1}) {
        ForwardOutput out;
        ForwardItem item{s, std::span<const int32_t>(ids.data() + done, std::min(chunk, ids.size() - done)), true};
        be.forward(std::span(&item, 1), Head::Full, out);
        for (size_t p = 0; p < item.tokens.size(); ++p) {
            double d = max_abs(std::vector<float>(ref.begin() + long((done + p) * width), ref.begin() + long((done + p + 1) * width)),
                               out.row(0, p), width);
            if (d > worst) worst = d, worst_pos = done + p;
        }
        done += item.tokens.size();
    }
    CHECK_EQ(done, ids.size());
    CHECK_EQ(be.sequence_length(s), ids.size());
    // Batch invariance: every dot product is summed in the same order whatever the batch, so
    // decode and prefill give bit-identical logits (speculative decoding relies on it).
    if (worst > 0) std::fprintf(stderr, "  worst |d| %.3g at position %zu\n", worst, worst_pos);
    CHECK(worst == 0.0);
}

TEST(ragged_batch_matches_sequences_run_alone) {
    auto m = load_tiny();
    Backend& be = m->backend();
    std::vector<std::vector<int32_t>> prompts;
    for (size_t i = 0; i < 5; ++i) prompts.push_back(random_dna_prompt(m->tokenizer(), 1 + i * 37 % 90, unsigned(10 + i)));
    std::vector<std::vector<float>> refs;
    size_t width = 0;
    for (auto& p : prompts) refs.push_back(reference_logits(be, p, Head::Dna, width));
    std::vector<SeqId> seqs;
    std::vector<ForwardItem> items;
    for (auto& p : prompts) {
        seqs.push_back(be.create_sequence());
        items.push_back({seqs.back(), p, true});
    }
    ForwardOutput out;
    be.forward(items, Head::Dna, out);
    CHECK_EQ(out.width, size_t(4096));
    for (size_t i = 0; i < prompts.size(); ++i) {
        CHECK_EQ(out.row_begin[i + 1] - out.row_begin[i], prompts[i].size());
        CHECK(max_abs(refs[i], out.row(i), prompts[i].size() * width) == 0.0);  // bit-identical
    }
}

TEST(dna_head_is_the_full_head_at_the_6mer_ids) {
    auto m = load_tiny();
    Backend& be = m->backend();
    auto ids = random_dna_prompt(m->tokenizer(), 20, 3);
    size_t wf = 0, wd = 0;
    auto full = reference_logits(be, ids, Head::Full, wf);
    auto dna = reference_logits(be, ids, Head::Dna, wd);
    CHECK_EQ(wd, size_t(4096));
    double worst = 0;
    for (size_t p = 0; p < ids.size(); ++p)
        for (int k = 0; k < 4096; ++k)
            worst = std::max(worst, std::fabs(double(dna[p * wd + size_t(k)]) - full[p * wf + size_t(m->tokenizer().kmer_id(k))]));
    CHECK(worst <= 1e-5);
}

TEST(fork_and_truncate_reproduce_the_cache) {
    auto m = load_tiny();
    Backend& be = m->backend();
    auto ids = random_dna_prompt(m->tokenizer(), 100, 4);
    size_t width = 0;
    auto ref = reference_logits(be, ids, Head::Dna, width);
    SeqId a = be.create_sequence();
    ForwardOutput out;
    ForwardItem first{a, std::span<const int32_t>(ids.data(), 60), false};
    be.forward(std::span(&first, 1), Head::Dna, out);
    SeqId b = be.fork_sequence(a);
    // Push garbage into a, then roll it back to 60 tokens: it must continue exactly like b.
    std::vector<int32_t> junk(30, m->tokenizer().kmer_id(5));
    ForwardItem j{a, junk, false};
    be.forward(std::span(&j, 1), Head::None, out);
    CHECK_EQ(be.sequence_length(a), size_t(90));
    be.truncate_sequence(a, 60);
    std::vector<ForwardItem> rest = {{a, std::span<const int32_t>(ids.data() + 60, 40), true},
                                     {b, std::span<const int32_t>(ids.data() + 60, 40), true}};
    be.forward(rest, Head::Dna, out);
    for (size_t i = 0; i < 2; ++i)
        CHECK(max_abs(std::vector<float>(ref.begin() + 60 * long(width), ref.end()), out.row(i), 40 * width) == 0.0);
    CHECK_THROWS_WITH(be.truncate_sequence(a, 1000), "cannot keep 1000");
}

TEST(bad_forward_input_is_rejected_before_any_change) {
    auto m = load_tiny();
    Backend& be = m->backend();
    SeqId s = be.create_sequence();
    ForwardOutput out;
    std::vector<int32_t> bad = {m->tokenizer().dna_open_id(), m->config().vocab_size};
    ForwardItem item{s, bad, false};
    CHECK_THROWS_WITH(be.forward(std::span(&item, 1), Head::Dna, out), "token id 155776", "position 1", "outside the vocabulary");
    CHECK_EQ(be.sequence_length(s), size_t(0));
    std::vector<ForwardItem> twice = {{s, std::span<const int32_t>(bad.data(), 1), false}, {s, std::span<const int32_t>(bad.data(), 1), false}};
    CHECK_THROWS_WITH(be.forward(twice, Head::Dna, out), "appears twice");
    ForwardItem unknown{12345, std::span<const int32_t>(bad.data(), 1), false};
    CHECK_THROWS_WITH(be.forward(std::span(&unknown, 1), Head::Dna, out), "unknown sequence id 12345");
}

CHECK_MAIN()
