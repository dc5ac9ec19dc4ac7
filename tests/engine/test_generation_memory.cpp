// A generation's memory, before and after: the estimate a caller can ask for first is the plan
// generate_designs refuses by (the same bytes, the same message), and a large run that was
// cancelled gives its memory back once the backend releases what it keeps for reuse, after
// which the same request gives the same designs.
#include <cstdio>
#include <span>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "carbon/support/host_memory.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

// The CPU backend with a stated amount of memory available: what a smaller machine would report.
class LimitedBackend final : public Backend {
public:
    LimitedBackend(Backend& inner, size_t available) : inner_(inner), available_(available) {}
    std::string name() const override { return inner_.name(); }
    std::string describe() const override { return inner_.describe(); }
    SeqId create_sequence() override { return inner_.create_sequence(); }
    void free_sequence(SeqId s) override { inner_.free_sequence(s); }
    SeqId fork_sequence(SeqId s) override { return inner_.fork_sequence(s); }
    size_t sequence_length(SeqId s) const override { return inner_.sequence_length(s); }
    void truncate_sequence(SeqId s, size_t n) override { inner_.truncate_sequence(s, n); }
    void forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) override { inner_.forward(items, head, out); }
    void forward_fns(std::span<const ForwardItem> items, std::span<const FnsRowRequest> rows, const SamplingParams& sampling,
                     std::vector<FnsRow>& out) override {
        inner_.forward_fns(items, rows, sampling, out);
    }
    BackendGuarantees guarantees() const override { return inner_.guarantees(); }
    MemoryPlan memory_plan() const override { return inner_.memory_plan(); }
    size_t memory_available() const override { return available_; }

private:
    Backend& inner_;
    size_t available_;
};

DesignRequest request(size_t count, size_t length) {
    DesignRequest r;
    r.left_context = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";
    r.right_flank = "GATTACAGATTACA";
    r.length = length;
    r.count = count;
    r.sampling.temperature = 0.8f;
    r.sampling.seed = 7;
    return r;
}

// Eight layers of the tiny shape: 2 KiB of KV cache per token, so a large request is large.
Model& model() {
    static std::unique_ptr<Model> m = [] {
        TestModelOptions o;
        o.layers = 8;
        ModelOptions mo;
        mo.backend = BackendKind::Cpu;
        mo.threads = 2;
        return Model::load(testing_support::tiny_model(o, "eight-layers"), mo);
    }();
    return *m;
}

}  // namespace

TEST(the_estimate_is_what_a_request_is_refused_by) {
    Model& m = model();
    const DesignRequest r = request(40, 300);
    const GenerationMemory est = generation_memory(m.backend(), m.tokenizer(), r);
    CHECK(est.designs == 40 && est.design_bases == 300);
    CHECK(est.context_bases == r.left_context.size() && est.flank_bases == r.right_flank.size());
    // At least every design's KV cache for its context and bases; linear in the count.
    CHECK(est.need >= 40.0 * (342.0 / 6.0) * double(m.backend().memory_plan().kv_per_token));
    CHECK(std::abs(generation_memory(m.backend(), m.tokenizer(), request(80, 300)).need - 2 * est.need) < 1.0);
    // What the backend says is available (a fixed amount here: the machine's own changes while
    // other programs run, between two calls).
    LimitedBackend fixed(m.backend(), size_t(1) << 40);
    CHECK(generation_memory(fixed, m.tokenizer(), r).available == size_t(1) << 40);

    // One byte short: refused before any work, with the estimate's own message.
    LimitedBackend short_of(m.backend(), size_t(est.need) - 1);
    CHECK(!generation_memory(short_of, m.tokenizer(), r).fits());
    std::string message;
    try {
        generate_designs(short_of, m.tokenizer(), r);
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK(message == memory_refusal(generation_memory(short_of, m.tokenizer(), r)));
    CHECK(message.find("40 design(s) of 300 bp") != std::string::npos);
    // Enough: it runs.
    LimitedBackend enough(m.backend(), size_t(est.need) + 1);
    CHECK(generation_memory(enough, m.tokenizer(), r).fits());
    CHECK(generate_designs(enough, m.tokenizer(), r).designs.size() == 40);
    // A request the engine refuses for what it asks is refused by the estimate too, with the same reason.
    DesignRequest bad = r;
    bad.length = 0;
    auto refusal = [&](auto&& call) {
        try {
            call();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string by_estimate = refusal([&] { generation_memory(m.backend(), m.tokenizer(), bad); });
    CHECK(!by_estimate.empty());
    CHECK(by_estimate == refusal([&] { generate_designs(m.backend(), m.tokenizer(), bad); }));
}

TEST(a_cancelled_large_run_gives_its_memory_back) {
    Model& m = model();
    const DesignRequest small = request(8, 120);
    const std::vector<Design> before = generate_designs(m.backend(), m.tokenizer(), small).designs;
    m.backend().release_cached_memory();
    const size_t baseline = resident_host_memory();
    if (baseline == 0) {
        SKIP("resident memory cannot be read here (/proc/self/status)");
    }
    // A large run, cancelled half-way (as the window's Cancel does, at a progress callback).
    const DesignRequest large = request(1500, 900);
    const GenerationMemory est = generation_memory(m.backend(), m.tokenizer(), large);
    size_t peak = baseline;
    GenerationCallbacks cb;
    cb.progress = [&](const GenerationProgress& p) {
        peak = std::max(peak, resident_host_memory());
        return p.bases_done * 2 < p.bases_total;
    };
    const GenerationResult cancelled = generate_designs(m.backend(), m.tokenizer(), large, cb);
    CHECK(cancelled.cancelled);
    const size_t after_run = resident_host_memory();
    m.backend().release_cached_memory();
    const size_t after_release = resident_host_memory();
    const double grown = double(peak) - double(baseline);
    std::printf("estimate %s; resident: before %s, peak %s, after the cancelled run %s, after release %s\n",
                human_bytes(est.need).c_str(), human_bytes(double(baseline)).c_str(), human_bytes(double(peak)).c_str(),
                human_bytes(double(after_run)).c_str(), human_bytes(double(after_release)).c_str());
    // The run really was large (else the check below proves nothing), within the estimate,
    CHECK(grown > 150.0 * 1024 * 1024);
    CHECK(grown < 1.25 * est.need + 64.0 * 1024 * 1024);
    // and what it took is back: at most a quarter of its growth still resident.
    CHECK(double(after_release) < double(baseline) + 0.25 * grown);
    // The backend grows its buffers again: the same request gives the same designs.
    const std::vector<Design> again = generate_designs(m.backend(), m.tokenizer(), small).designs;
    CHECK(again.size() == before.size());
    for (size_t i = 0; i < again.size() && i < before.size(); ++i) CHECK(again[i].bases == before[i].bases);
}

CHECK_MAIN()
