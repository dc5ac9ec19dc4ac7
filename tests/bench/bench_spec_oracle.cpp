// Speculative decoding, speed-up against acceptance at the real shapes (docs/benchmarks.md; not a
// test). Random weights give no draft that agrees with its target at the 3B / 8B shapes, so the
// draft's *cost* and its *agreement* are set apart:
//   - cost: a real draft model runs every forward pass the generator asks of it (for the 3B
//     shape, the target's first 5 of 30 layers: 1/6 of the layer weights per token, as
//     Carbon-500M reads for Carbon-3B);
//   - agreement: after each of its passes, the DNA logits of the rows the generator reads are
//     replaced so that the proposal is the token the target itself chose at that step (recorded
//     from a target-alone run) with probability alpha, and another token otherwise; the draws are
//     a pure function of (design, step, alpha).
// Greedy decoding with identity verification, so every run's designs must equal the target
// alone (checked). Reported per alpha: measured acceptance, tokens per target pass, the in-run
// speed-up (speculative tokens/s over the target's own plain steps/s, from only two plain steps)
// and the wall-clock ratio against a target-alone run made after a warm-up run (the headline).
//   bench_spec_oracle TARGET_DIR DRAFT_DIR LENGTH BATCH THREADS ALPHA[,ALPHA...] [BACKEND]
// BACKEND: cpu (the default), cuda or auto; not cpu loads the CUDA backend plugin beside the program
// (or $CARBON_CUDA_PLUGIN), as carbon-cli does: the GPU proof (tests/gpu/prove.sh) runs it so.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "carbon/fns/sampling.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/gpu_provider.h"
#include "carbon/model.h"

using namespace carbon;

namespace {

class OracleDraft final : public Backend {
public:
    OracleDraft(Backend& inner, const std::vector<std::vector<int>>& reference, double alpha)
        : inner_(inner), ref_(reference), alpha_(alpha) {}
    std::string name() const override { return "oracle(" + inner_.name() + ")"; }
    std::string describe() const override { return inner_.describe(); }
    SeqId create_sequence() override {
        const SeqId s = inner_.create_sequence();
        design_[s] = next_design_++;
        return s;
    }
    void free_sequence(SeqId s) override { inner_.free_sequence(s); }
    SeqId fork_sequence(SeqId src) override {
        const SeqId s = inner_.fork_sequence(src);
        design_[s] = next_design_++;
        return s;
    }
    size_t sequence_length(SeqId s) const override { return inner_.sequence_length(s); }
    void truncate_sequence(SeqId s, size_t n) override { inner_.truncate_sequence(s, n); }
    MemoryPlan memory_plan() const override { return inner_.memory_plan(); }

    void forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) override {
        inner_.forward(items, head, out);  // the draft's real cost
        if (head == Head::None) {
            if (prompt_len_ == 0 && !items.empty()) prompt_len_ = inner_.sequence_length(items[0].seq);
            return;
        }
        for (size_t i = 0; i < items.size(); ++i) {
            const size_t len = inner_.sequence_length(items[i].seq);
            const size_t step = len - prompt_len_;  // the generated token this row predicts
            const size_t d = size_t(design_.at(items[i].seq));
            if (d >= ref_.size() || step >= ref_[d].size()) continue;
            const int truth = ref_[d][step];
            const bool agree = uniform01(77, d, step, 0) < float(alpha_);
            const int proposal = agree ? truth : (truth + 1 + int(uniform01(78, d, step, 0) * 4094)) % kNumKmers;
            const size_t rows = items[i].all_positions ? items[i].tokens.size() : 1;
            float* row = out.logits.data() + (out.row_begin[i] + rows - 1) * out.width;
            for (size_t v = 0; v < out.width; ++v) row[v] = 0.f;
            row[size_t(proposal)] = 20.f;
        }
    }

private:
    Backend& inner_;
    const std::vector<std::vector<int>>& ref_;
    double alpha_;
    std::map<SeqId, int> design_;
    int next_design_ = 0;
    size_t prompt_len_ = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 7 && argc != 8) {
        std::fprintf(stderr, "usage: bench_spec_oracle TARGET_DIR DRAFT_DIR LENGTH BATCH THREADS ALPHA[,ALPHA...] [cpu|cuda|auto]\n");
        return 2;
    }
    try {
        ModelOptions mo;
        mo.backend = argc == 8 ? parse_backend_kind(argv[7]) : BackendKind::Cpu;
        if (mo.backend != BackendKind::Cpu) std::fprintf(stderr, "%s\n", load_gpu_plugin().c_str());
        mo.threads = std::atoi(argv[5]);
        auto target = Model::load(argv[1], mo);
        auto draft = Model::load(argv[2], mo);
        DesignRequest r;
        r.left_context = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";  // 7 whole 6-mers: no pinned tail
        r.length = size_t(std::atoi(argv[3]));
        r.count = size_t(std::atoi(argv[4]));
        r.sampling.temperature = 0;
        std::vector<double> alphas;
        std::stringstream as(argv[6]);
        for (std::string a; std::getline(as, a, ',');) alphas.push_back(std::atof(a.c_str()));

        generate_designs(target->backend(), target->tokenizer(), r);  // warm-up: weights into the page cache
        const auto t0 = std::chrono::steady_clock::now();
        const GenerationResult plain = generate_designs(target->backend(), target->tokenizer(), r);
        const double t_plain = seconds_since(t0);
        std::vector<std::vector<int>> ref(r.count);
        std::vector<std::string> plain_bases(r.count);
        for (const Design& d : plain.designs) {
            plain_bases[d.index] = d.bases;
            for (size_t k = 0; k + 6 <= d.bases.size() + 5; k += 6) {
                std::string six = d.bases.substr(k, 6);
                six.resize(6, 'A');  // the last token's bases past the end are not returned; any agree
                ref[d.index].push_back(Tokenizer::kmer_index_of(six));
            }
        }
        std::printf("target %s, draft %s (%s), %zu x %zu bp greedy FNS, %d threads\n", argv[1], argv[2],
                    draft->backend().describe().c_str(), r.count, r.length, mo.threads);
        std::printf("target alone: %.2f s (%.1f bp/s)\n", t_plain, double(r.count * r.length) / t_plain);
        std::printf("| alpha | acceptance | tokens per target pass | speed-up in run | wall clock vs alone | designs identical |\n");
        for (double a : alphas) {
            OracleDraft od(draft->backend(), ref, a);
            SpeculativeConfig sc;
            sc.draft = &od;
            sc.draft_tokenizer = &draft->tokenizer();
            sc.draft_tokens = 4;
            sc.auto_disable = false;
            sc.verify = SpeculativeVerify::Identical;
            const auto t1 = std::chrono::steady_clock::now();
            const GenerationResult spec = generate_designs(target->backend(), target->tokenizer(), r, {}, &sc);
            const double t_spec = seconds_since(t1);
            bool same = spec.designs.size() == plain.designs.size();
            for (const Design& d : spec.designs) same = same && d.bases == plain_bases[d.index];
            const SpeculativeStats& s = spec.speculative;
            std::printf("| %.2f | %.1f%% | %.2f | %.2fx | %.2fx | %s |\n", a, 100 * s.acceptance_rate(), s.tokens_per_target_pass(),
                        s.speedup(), t_plain / t_spec, same ? "yes" : "NO");
            std::fflush(stdout);
            if (!same) return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
