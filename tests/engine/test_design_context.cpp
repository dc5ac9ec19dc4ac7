// The one rule that fits a design request into the model's context (fit_to_context): the design
// first, the right flank up to a quarter of the context (or what the left context leaves), the
// left context's nearest bases in whole 6-mers; nothing trimmed when everything fits; applied
// twice it trims nothing more; generate_designs applies it, so a request and its fitted copy give
// the same designs, and context positions in its notices count from the context as given.
#include <random>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

Model& tiny() { return testing_support::tiny_cpu_model(); }
const Tokenizer& tok() { return tiny().tokenizer(); }

std::string bases(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
}

size_t flank_tokens(size_t n) { return n ? (5 + n + 5) / 6 + 1 : 0; }

// Tokens the request's ranking pass reads: tags and <dna>, the context's whole 6-mers, the design
// after the context's last partial 6-mer, the flank and </dna>.
size_t tokens_read(const DesignRequest& r) {
    const size_t design = r.template_iupac.empty() ? r.length : r.template_iupac.size();
    return tok().encode_prompt(r.tags, "", false).ids.size() + r.left_context.size() / 6 +
           (r.left_context.size() % 6 + design + 5) / 6 + flank_tokens(r.right_flank.size());
}

DesignRequest request(size_t left, size_t right, size_t design, size_t context_tokens) {
    DesignRequest r;
    r.left_context = bases(left, 1);
    r.right_flank = bases(right, 2);
    r.length = design;
    r.context_tokens = context_tokens;
    r.sampling.temperature = 0.f;
    return r;
}

}  // namespace

TEST(everything_that_fits_is_left_as_it_is) {
    DesignRequest r = request(60, 30, 30, 100);
    const DesignRequest given = r;
    CHECK(fit_to_context(tok(), r).empty());
    CHECK(r.left_context == given.left_context);
    CHECK(r.right_flank == given.right_flank);
    CHECK(r.context_offset == size_t(0));
    DesignRequest unlimited = request(100000, 100000, 30, 0);  // context_tokens 0: not checked
    CHECK(fit_to_context(tok(), unlimited).empty());
    CHECK(unlimited.left_context.size() == size_t(100000));
}

TEST(when_both_are_too_long_the_flank_keeps_a_quarter_and_the_left_context_the_rest) {
    for (size_t context : {100, 257, 2048}) {
        DesignRequest r = request(20 * context, 20 * context, 30, context);
        const DesignRequest given = r;
        const auto notices = fit_to_context(tok(), r);
        CHECK_EQ(notices.size(), size_t(2));
        CHECK_EQ(flank_tokens(r.right_flank.size()), context / 4);       // the flank's share, used whole
        CHECK(given.right_flank.compare(0, r.right_flank.size(), r.right_flank) == 0);  // its start kept
        CHECK_EQ(r.left_context.size() % 6, given.left_context.size() % 6);  // whole 6-mers dropped
        CHECK(given.left_context.ends_with(r.left_context));                 // the nearest bases kept
        CHECK_EQ(r.context_offset, given.left_context.size() - r.left_context.size());
        CHECK_EQ(tokens_read(r), context);  // the context is used to its last token
        CHECK(notices[0].find("right flank trimmed to its first " + std::to_string(r.right_flank.size()) + " of " +
                              std::to_string(given.right_flank.size()) + " bp") == 0);
        CHECK(notices[1].find("left context trimmed to its nearest " + std::to_string(r.left_context.size()) + " of " +
                              std::to_string(given.left_context.size()) + " bp (positions " +
                              std::to_string(r.context_offset + 1) + "-") == 0);
        // Applied again, nothing more is trimmed.
        const DesignRequest once = r;
        CHECK(fit_to_context(tok(), r).empty());
        CHECK(r.left_context == once.left_context && r.right_flank == once.right_flank && r.context_offset == once.context_offset);
    }
}

TEST(a_short_context_leaves_the_flank_more_than_a_quarter_and_a_short_flank_stays_whole) {
    // A 60 bp context: the flank takes everything else.
    DesignRequest r = request(60, 6000, 30, 100);
    CHECK_EQ(fit_to_context(tok(), r).size(), size_t(1));
    CHECK_EQ(r.left_context.size(), size_t(60));
    CHECK(flank_tokens(r.right_flank.size()) > 100 / 4);
    CHECK(tokens_read(r) <= 100 && tokens_read(r) >= 99);  // a flank token holds 6 bases: at most one left over
    // A 30 bp flank: kept whole; the left context gives way.
    r = request(6000, 30, 30, 100);
    CHECK_EQ(fit_to_context(tok(), r).size(), size_t(1));
    CHECK_EQ(r.right_flank.size(), size_t(30));
    CHECK_EQ(tokens_read(r), size_t(100));
    // Tags take their tokens first.
    r = request(6000, 6000, 30, 100);
    r.tags = "<promoter>";
    fit_to_context(tok(), r);
    CHECK_EQ(tokens_read(r), size_t(100));
}

TEST(a_design_that_cannot_fit_is_refused_with_the_longest_that_can) {
    DesignRequest r = request(0, 0, 600, 100);
    CHECK_THROWS_WITH(fit_to_context(tok(), r), "a 600 bp design needs", "at most 100 tokens", "design at most 594 bp");
    r.template_iupac = std::string(700, 'N');  // the template's length is the design's
    CHECK_THROWS_WITH(fit_to_context(tok(), r), "a 700 bp design");
}

TEST(generation_applies_the_rule_and_counts_context_positions_as_given) {
    DesignRequest r = request(1200, 1200, 24, 64);
    r.count = 2;
    r.left_context[1190] = 'a';  // inside what is kept: reported at its place in the context as given
    DesignRequest fitted = r;
    const auto fit_notices = fit_to_context(tok(), fitted);
    CHECK_EQ(fit_notices.size(), size_t(2));
    const GenerationResult a = generate_designs(tiny().backend(), tok(), r);
    const GenerationResult b = generate_designs(tiny().backend(), tok(), fitted);
    CHECK_EQ(a.designs.size(), size_t(2));
    for (size_t i = 0; i < a.designs.size(); ++i) {
        CHECK(a.designs[i].bases == b.designs[i].bases);
        CHECK_EQ(a.designs[i].design_logp, b.designs[i].design_logp);
        CHECK_EQ(a.designs[i].ranking_logp, b.designs[i].ranking_logp);
    }
    size_t trims = 0, lowercase = 0;
    for (const auto& notices : {a.notices, b.notices})
        for (const std::string& n : notices) {
            trims += n.find("trimmed") != std::string::npos;
            lowercase += n == "context position 1191: lowercase, upper-cased";
        }
    CHECK_EQ(trims, size_t(2));      // said once, by the request that needed it
    CHECK_EQ(lowercase, size_t(2));  // the same position from both
}

CHECK_MAIN()
