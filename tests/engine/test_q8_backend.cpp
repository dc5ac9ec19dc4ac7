// 8-bit weights in the CPU backend (issue 34; BackendOptions::weights "int8": one scale per row,
// "q8_0": groups of 32): the model runs with its projections and DNA head quantised at load, says
// which in its description, gives each sequence the same bits alone and in a batch (the guarantee
// speculative decoding and "the same design whatever the batch" rely on; a 40-bp sequence alone
// takes the vector kernel, in the batch the AMX tiles where the CPU has them), and stays close to
// the checkpoint's own weights: on 24 random 300-bp sequences of the tiny random checkpoint the
// per-base log-likelihood differs from the native (fp32-activation) backend's by at most, int8:
// 0.03 nats on average and 0.17 at the 99th percentile (measured 2026-11-28: 0.022 and 0.13);
// q8_0: 0.025 and 0.15 (0.018 and 0.096). A random checkpoint's weights are harder to quantise
// than trained ones; the carbon-500m bounds are python.test_int8_fidelity's. Other weights values
// are refused, and 8-bit weights on the GPU are refused until they have a kernel there.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "carbon/scoring/scoring.h"
#include "check.h"
#include "cpu/cpu_q8.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

std::unique_ptr<Model> load(const std::string& weights, const std::string& kernels = "") {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    mo.weights = weights;
    mo.cpu_kernels = kernels;
    return Model::load(testing_support::tiny_model(), mo);
}

std::vector<std::string> random_sequences(size_t n, size_t len, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::string> out(n);
    for (std::string& s : out)
        for (size_t i = 0; i < len; ++i) s += "ACGT"[rng() % 4];
    return out;
}

ScoreOptions options(const Model& m) {
    ScoreOptions o;
    o.context_tokens = size_t(m.config().max_position_embeddings);
    o.token_score = false;
    return o;
}

std::string cpu_kernel_name_here() { return std::string(cpu::q8_kernel_name(cpu::best_q8_kernel())) + " int8 kernels"; }

}  // namespace

TEST(int8_weights_are_described_and_bad_values_refused) {
    auto m = load("int8");
    const std::string d = m->backend().describe();
    CHECK(d.find("int8 weights (one scale per output row, activations per row") != std::string::npos);
    CHECK(load("q8_0")->backend().describe().find("int8 weights (groups of 32 with fp16 scales, activations per group") != std::string::npos);
    CHECK_THROWS_WITH(load("int4"), "weights 'int4'", "native", "int8", "q8_0");
    ModelOptions gpu;
    gpu.backend = BackendKind::Cuda;
    gpu.weights = "q8_0";  // the groups scheme is the CPU's alone (int8 runs on either: gpu_seam.cuda_int8)
    CHECK_THROWS_WITH(Model::load(testing_support::tiny_model(), gpu), "q8_0 weights (groups of 32) run on the CPU backend");
    CHECK(d.find(cpu_kernel_name_here()) != std::string::npos);  // which int8 kernel ran
}

TEST(a_sequence_gives_the_same_bits_alone_and_in_a_batch) {
  for (const char* weights : {"int8", "q8_0"}) {
    auto m = load(weights);
    std::vector<std::string> seqs = random_sequences(6, 250, 3);
    seqs[2].resize(40);  // 9 tokens: alone under kQ8AmxMinRows
    ScoreOptions o = options(*m);
    const std::vector<SequenceScore> batch = score_sequences(m->backend(), m->tokenizer(), seqs, o);
    for (size_t i = 0; i < seqs.size(); ++i) {
        const SequenceScore alone = score_sequence(m->backend(), m->tokenizer(), seqs[i], o);
        CHECK_EQ(alone.track.size(), batch[i].track.size());
        bool same = alone.track.size() == batch[i].track.size();
        for (size_t b = 0; same && b < alone.track.size(); ++b)
            same = std::memcmp(&alone.track[b].logp, &batch[i].track[b].logp, sizeof(float)) == 0;
        CHECK(same);
    }
  }
}

TEST(per_base_likelihood_stays_close_to_the_native_weights) {
  auto f = load("native", "fp32");
  for (const char* weights : {"int8", "q8_0"}) {
    auto q = load(weights);
    const std::vector<std::string> seqs = random_sequences(24, 300, 11);
    const auto a = score_sequences(q->backend(), q->tokenizer(), seqs, options(*q));
    const auto b = score_sequences(f->backend(), f->tokenizer(), seqs, options(*f));
    std::vector<double> diffs;
    for (size_t i = 0; i < seqs.size(); ++i)
        for (size_t p = 0; p < a[i].track.size(); ++p) diffs.push_back(std::fabs(double(a[i].track[p].logp) - b[i].track[p].logp));
    std::sort(diffs.begin(), diffs.end());
    double mean = 0;
    for (double d : diffs) mean += d;
    mean /= double(diffs.size());
    const double p99 = diffs[diffs.size() * 99 / 100];
    std::printf("%s vs native per-base log p over %zu bases: mean |diff| %.4g nats, 99th percentile %.4g, max %.4g\n", weights,
                diffs.size(), mean, p99, diffs.back());
    const bool rows = std::string(weights) == "int8";
    CHECK(diffs.size() == 24 * 300);
    CHECK(mean <= (rows ? 0.03 : 0.025));
    CHECK(p99 <= (rows ? 0.17 : 0.15));
    CHECK(mean > 0);  // the weights really are 8-bit: some base differs
  }
}

int main() { return check::run_all(); }
