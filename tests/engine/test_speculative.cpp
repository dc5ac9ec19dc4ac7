// Speculative decoding on the CPU backend with drafts of controlled agreement (the target
// itself, a model with other weights, a short-context draft): the designs must be identical,
// base for base, to the target alone, greedy and sampled, with templates, constraints, tags and
// flanks; stats must add up; a draft with other DNA ids is refused.
#include "carbon/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

std::unique_ptr<Model> load(const std::filesystem::path& dir) {
    ModelOptions mo;
    mo.backend = BackendKind::Cpu;
    mo.threads = 2;
    return Model::load(dir, mo);
}

Model& target() {
    static auto m = load(testing_support::tiny_model());
    return *m;
}

Model& self_draft() {  // the target's own weights: full agreement
    static auto m = load(testing_support::tiny_model());
    return *m;
}

Model& other_draft() {  // other random weights, one layer: low agreement
    static auto m = [] {
        TestModelOptions o;
        o.seed = 99;
        o.layers = 1;
        return load(testing_support::tiny_model(o, "other"));
    }();
    return *m;
}

const std::string kContext = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";

std::vector<std::string> bases_of(const GenerationResult& r) {
    std::vector<std::string> out(r.designs.size());
    for (const Design& d : r.designs) out[d.index] = d.bases;
    return out;
}

GenerationResult with_draft(Model& draft, const DesignRequest& r, size_t k = 4, size_t window = 0,
                            bool auto_disable = false) {
    SpeculativeConfig sc;
    sc.draft = &draft.backend();
    sc.draft_tokenizer = &draft.tokenizer();
    sc.draft_tokens = k;
    sc.draft_context = window;
    sc.auto_disable = auto_disable;
    return generate_designs(target().backend(), target().tokenizer(), r, {}, &sc);
}

std::vector<DesignRequest> requests() {
    std::vector<DesignRequest> rs;
    DesignRequest r;
    r.left_context = kContext;
    r.length = 90;
    r.count = 3;
    r.sampling.temperature = 0;
    rs.push_back(r);  // greedy FNS
    r.sampling = {1.0f, 0.9f, 5};
    rs.push_back(r);  // sampled FNS
    r.mode = GenerationMode::Direct;
    rs.push_back(r);  // sampled direct
    r.mode = GenerationMode::Fns;
    r.left_context = kContext.substr(0, 40);
    r.template_iupac = "NNNNNNNNNNTATAAANNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN";
    r.length = 0;
    r.tags = "<plant>";
    r.right_flank = "ACGTTGCA";
    r.constraints.max_homopolymer = 3;
    r.constraints.forbidden_motifs = {"GAATTC", "GGATCC"};
    r.constraints.gc_min = 0.35;
    r.constraints.gc_max = 0.65;
    r.sampling = {0.8f, 0.95f, 11};
    rs.push_back(r);  // everything at once
    return rs;
}

}  // namespace

TEST(self_draft_is_identical_and_accepts_everything) {
    for (const DesignRequest& r : requests()) {
        const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
        const auto spec = with_draft(self_draft(), r);
        CHECK(bases_of(spec) == bases_of(plain));
        for (size_t i = 0; i < plain.designs.size(); ++i) {
            CHECK_EQ(spec.designs[i].design_logp, plain.designs[i].design_logp);
            CHECK_EQ(spec.designs[i].rank, plain.designs[i].rank);
        }
        const SpeculativeStats& s = spec.speculative;
        CHECK(s.used);
        CHECK(s.drafted > 0);
        // With constraints a draft may stop early (its search fails where the target backtracks),
        // but what it proposes is what the target chooses.
        CHECK_EQ(s.accepted, s.drafted);
        CHECK(s.tokens_per_target_pass() > 2.0);
    }
}

TEST(low_agreement_draft_is_still_identical) {
    for (const DesignRequest& r : requests()) {
        const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
        for (size_t k : {1, 3, 6}) {
            const auto spec = with_draft(other_draft(), r, k);
            CHECK(bases_of(spec) == bases_of(plain));
            CHECK(spec.speculative.acceptance_rate() < 1.0);
        }
    }
}

TEST(sampled_runs_match_target_alone_seed_for_seed) {
    // Verification by equality with the target's own draw makes sampled outputs identical, not just
    // equal in distribution: check many seeds, including first-token frequencies over 400 designs.
    DesignRequest r;
    r.left_context = kContext;
    r.length = 12;
    r.count = 400;
    r.template_iupac = "NNNSNNWNNNNN";
    r.length = 0;
    r.sampling = {1.0f, 1.0f, 21};
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(other_draft(), r, 2);
    CHECK(bases_of(spec) == bases_of(plain));
    for (uint64_t seed = 0; seed < 6; ++seed) {
        DesignRequest q = requests()[1];
        q.sampling.seed = seed;
        CHECK(bases_of(with_draft(other_draft(), q, 3)) == bases_of(generate_designs(target().backend(), target().tokenizer(), q)));
    }
}

TEST(short_draft_window_slides_and_stays_exact) {
    DesignRequest r = requests()[1];
    r.length = 400;  // ~75 tokens: far past a 24-token draft window
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(self_draft(), r, 4, 24);
    CHECK(bases_of(spec) == bases_of(plain));
    // The windowed draft sees less context than the target, so it agrees often, not always.
    CHECK(spec.speculative.accepted > 0);
    CHECK(spec.speculative.accepted < spec.speculative.drafted);
}

TEST(stats_add_up_and_auto_disable_keeps_output) {
    DesignRequest r = requests()[0];
    r.length = 240;
    const auto plain = generate_designs(target().backend(), target().tokenizer(), r);
    const auto spec = with_draft(other_draft(), r, 4, 0, true);
    CHECK(bases_of(spec) == bases_of(plain));
    const SpeculativeStats& s = spec.speculative;
    CHECK(s.plain_steps > 0);
    CHECK(s.accepted <= s.drafted);
    if (s.disabled) CHECK(!s.disabled_reason.empty());
}

TEST(draft_with_other_dna_ids_is_refused) {
    TestModelOptions o;
    o.compact_vocab = true;
    auto compact = load(testing_support::tiny_model(o, "compact"));
    CHECK_THROWS_WITH(with_draft(*compact, requests()[0]), "does not use the target's DNA token ids");
}

CHECK_MAIN()
