// fns_step against the engine's real generation loop: generate_designs (FNS mode, no constraints) on
// a tiny random model with the CPU backend, through a backend that records every row of DNA logits
// it hands out. Given each recorded row with the design's Philox stream, token step and template
// masks, the kernel must choose the very token the design took, and its log-probabilities must
// average to the design's design_logp. This checks fns_step.h's account of choose_fns (masks per
// token, draws at (2t + j/4, lane j%4), first leaf) on the engine itself, not on a restatement.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "fns_reference.h"
#include "test_model_dir.h"

namespace {

// Passes everything to the CPU backend and keeps a copy of each DNA-head row, with its sequence.
class RecordingBackend : public carbon::Backend {
public:
    struct Row {
        carbon::SeqId seq;
        std::vector<float> logits;
    };
    explicit RecordingBackend(carbon::Backend& inner) : inner_(inner) {}
    std::string name() const override { return "recording " + inner_.name(); }
    std::string describe() const override { return inner_.describe(); }
    carbon::SeqId create_sequence() override { return inner_.create_sequence(); }
    void free_sequence(carbon::SeqId s) override { inner_.free_sequence(s); }
    carbon::SeqId fork_sequence(carbon::SeqId src) override {
        forks.push_back(inner_.fork_sequence(src));
        return forks.back();
    }
    size_t sequence_length(carbon::SeqId s) const override { return inner_.sequence_length(s); }
    void truncate_sequence(carbon::SeqId s, size_t n) override { inner_.truncate_sequence(s, n); }
    carbon::MemoryPlan memory_plan() const override { return inner_.memory_plan(); }
    void forward(std::span<const carbon::ForwardItem> items, carbon::Head head, carbon::ForwardOutput& out) override {
        inner_.forward(items, head, out);
        if (head != carbon::Head::Dna) return;
        for (size_t i = 0; i < items.size(); ++i)
            for (size_t r = out.row_begin[i]; r < out.row_begin[i + 1]; ++r)
                rows.push_back({items[i].seq, std::vector<float>(out.row(i, r - out.row_begin[i]),
                                                                 out.row(i, r - out.row_begin[i]) + out.width)});
    }
    std::vector<Row> rows;
    std::vector<carbon::SeqId> forks;  // design i > 0 is the (i - 1)-th fork

private:
    carbon::Backend& inner_;
};

carbon::Model& tiny() {
    static std::unique_ptr<carbon::Model> m = [] {
        carbon::ModelOptions mo;
        mo.backend = carbon::BackendKind::Cpu;
        mo.threads = 1;
        return carbon::Model::load(testing_support::tiny_model(), mo);
    }();
    return *m;
}

// Generates `count` designs on `tmpl` after a 24 bp context, then replays every step on the kernel.
void replay(const std::string& tmpl, size_t count, float temperature, float top_p, uint64_t seed) {
    carbon::Model& model = tiny();
    RecordingBackend rec(model.backend());
    carbon::DesignRequest req;
    req.left_context = "ATGCGCTAGCTACGATCGATCGTA";  // whole 6-mers: no tail pinned into the first token
    req.template_iupac = tmpl;
    req.count = count;
    req.sampling.temperature = temperature;
    req.sampling.top_p = top_p;
    req.sampling.seed = seed;
    const auto result = carbon::generate_designs(rec, model.tokenizer(), req);
    const size_t n_tokens = tmpl.size() / 6;
    CHECK_EQ(result.designs.size(), count);
    CHECK_EQ(rec.forks.size(), count - 1);

    // Rows in the kernel's batch: (design, step), with the row the design saw at that step.
    const auto masks_all = carbon::parse_template(tmpl);
    std::vector<float> logits;
    std::vector<carbon::test::Mask6> masks;
    std::vector<uint64_t> streams, steps;
    std::vector<size_t> steps_seen(count, 0);
    for (size_t k = 0; k < rec.rows.size(); ++k) {
        const auto& row = rec.rows[k];
        CHECK_EQ(row.logits.size(), size_t(4096));
        for (size_t d = 0; d < count; ++d) {
            // Step 0 is the shared prompt's row (recorded once); later rows belong to one sequence.
            if (k > 0 && row.seq != (d == 0 ? rec.rows[0].seq : rec.forks[d - 1])) continue;
            carbon::test::Mask6 m;
            for (size_t j = 0; j < 6; ++j) m[j] = masks_all[steps_seen[d] * 6 + j];
            logits.insert(logits.end(), row.logits.begin(), row.logits.end());
            masks.push_back(m);
            streams.push_back(d);
            steps.push_back(steps_seen[d]++);
        }
    }
    for (size_t d = 0; d < count; ++d) CHECK_EQ(steps_seen[d], n_tokens);

    carbon::kern::FnsStepParams p;
    p.temperature = temperature;
    p.top_p = top_p;
    p.seed = seed;
    const int rows = int(masks.size());
    const auto k = carbon::test::run_fns_step(logits, rows, 4096, masks, streams, steps, p);
    CHECK_EQ(k.launched, cudaSuccess);
    std::vector<double> logp_sum(count, 0.0);
    int undecided = 0;
    for (int r = 0; r < rows; ++r) {
        const size_t d = streams[size_t(r)], t = steps[size_t(r)];
        const carbon::Design* design = nullptr;
        for (const auto& x : result.designs)
            if (x.index == d) design = &x;
        if (design == nullptr) {
            CHECK(design != nullptr);
            return;
        }
        int token = 0;
        for (size_t j = 0; j < 6; ++j) token = token * 4 + carbon::base_code(design->bases[t * 6 + j]);
        if (k.status[size_t(r)] == carbon::kern::kFnsUndecided) {
            ++undecided;  // the backend would take the CPU's functions for this row: nothing to compare
            const auto c = carbon::test::cpu_fns_row(std::span<const float>(logits.data() + size_t(r) * 4096, 4096),
                                                     masks[size_t(r)], p, d, t);
            CHECK_EQ(c.token, token);
            for (double l : c.logp) logp_sum[d] += l;
            continue;
        }
        CHECK_EQ(k.status[size_t(r)], carbon::kern::kFnsCertified);
        CHECK_EQ(k.token[size_t(r)], token);
        for (size_t j = 0; j < 6; ++j) logp_sum[d] += k.logp[size_t(r) * 6 + j];
    }
    for (const auto& x : result.designs) CHECK_NEAR(logp_sum[x.index] / double(tmpl.size()), x.design_logp, 1.1e-6);
    std::printf("  T %.2f top-p %.2f: %d steps replayed, %d undecided\n", double(temperature), double(top_p), rows,
                undecided);
    CHECK(undecided * 20 <= rows);
}

#if defined(CARBON_HOST_EXECUTOR_THREADS) || defined(CARBON_HOST_EXECUTOR_UCONTEXT)
constexpr bool kShort = true;  // sanitizer builds: one small request
#else
constexpr bool kShort = false;
#endif

}  // namespace

TEST(greedy_designs_are_the_kernel_choices) {
    replay("NNNNNNRYSWNNACGTNNNNNNNNWWSSNN", 2, 0.0f, 1.0f, 0);
}

TEST(sampled_designs_are_the_kernel_choices) {
    if (kShort) SKIP("the sanitizer builds replay the greedy request only");
    replay(
        "NNNNNNNNNNNNRYRYRYNNNNNNSWSWNNNNNNNNNNNN"
        "NNNNNNNNNNNNNNNNNNNN",
        3, 1.0f, 1.0f, 7);
    replay(
        "NNNNNNKMKMNNNNNNNNNNNNBDHVNNNNNNNNNNNN"
        "NNNNNNNNNN",
        3, 0.7f, 0.9f, 123456789);
    replay("NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN", 4, 1.5f, 0.5f, 42);
}

CARBON_KERNEL_TEST_MAIN()
