// score_alleles (alternative alleles of any length sharing the reference's KV prefix) against
// scoring every alternative sequence from scratch with score_sequence, on tiny models: SNVs,
// multi-base substitutions, insertions and deletions at the ends, at 6-mer boundaries and inside
// 6-mers, in one model window and across sliding windows; the forwarded-token saving; the plain
// method; cancellation.
#include <cmath>
#include <random>

#include "carbon/model.h"
#include "carbon/scoring/scoring.h"
#include "check.h"
#include "scoring_test_models.h"

using namespace carbon;
using testing_support::short_context;
using testing_support::tiny;

namespace {

std::string random_dna(size_t n, std::mt19937& rng) {
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
}

ScoreOptions base_level(Model& m) {
    ScoreOptions o;
    o.context_tokens = size_t(m.config().max_position_embeddings);
    o.token_score = false;
    o.chunk_tokens = 40;
    o.max_sequences = 4;
    return o;
}

// Changes of every kind over a reference of n bases.
std::vector<AlleleChange> changes_for(size_t n, std::mt19937& rng) {
    std::vector<AlleleChange> c = {
        {0, 1, "G"},                    // the first base
        {n - 1, n, "T"},                // the last base
        {n / 2, n / 2 + 1, "C"},        // an SNV in the middle
        {12, 12, "ACG"},                // an insertion at a 6-mer boundary
        {n, n, "TTTTTTT"},              // an insertion after the end
        {n / 3, n / 3 + 7, ""},         // a deletion across a 6-mer boundary
        {n - 4, n, ""},                 // a deletion of the tail (the alternative ends early)
        {0, 5, "A"},                    // a deletion at the start
        {n / 2 + 3, n / 2 + 5, "GA"},   // a two-base substitution
        {n / 2 + 3, n / 2 + 5, "GAAC"}, // a substitution that lengthens
        {7, 9, "NN"},                   // non-ACGT letters (<oov> 6-mer)
    };
    for (int i = 0; i < 6; ++i) {
        const size_t a = rng() % n, len = rng() % 9;
        std::string alt = random_dna(rng() % 9, rng);
        c.push_back({a, std::min(n, a + len), alt});
    }
    return c;
}

std::string applied(const std::string& ref, const AlleleChange& c) {
    return ref.substr(0, c.begin) + c.alt + ref.substr(c.end);
}

}  // namespace

TEST(alternatives_score_as_when_scored_alone) {
    std::mt19937 rng(17);
    for (Model* mp : {&tiny(), &short_context()}) {
        Model& m = *mp;
        const bool windowed = mp == &short_context();
        for (size_t n : {windowed ? size_t(400) : size_t(97), windowed ? size_t(61) : size_t(180)}) {
            const std::string ref = random_dna(n, rng);
            const std::vector<AlleleChange> changes = changes_for(n, rng);
            const ScoreOptions o = base_level(m);
            for (bool share : {true, false}) {
                const AlleleScores r = score_alleles(m.backend(), m.tokenizer(), ref, changes, o, {}, share);
                CHECK(!r.cancelled);
                CHECK_EQ(r.base_mean_logp.size(), changes.size());
                const SequenceScore rs = score_sequence(m.backend(), m.tokenizer(), ref, o);
                CHECK_NEAR(r.reference.base_mean_logp, rs.base_mean_logp, 1e-6);
                double worst = 0;
                for (size_t i = 0; i < changes.size(); ++i) {
                    const SequenceScore a = score_sequence(m.backend(), m.tokenizer(), applied(ref, changes[i]), o);
                    const double gap = std::fabs(r.base_mean_logp[i] - a.base_mean_logp);
                    if (!(gap < 2e-5))
                        std::fprintf(stderr, "  n=%zu windowed=%d share=%d change %zu [%zu,%zu)->'%s': %.9g vs %.9g\n", n,
                                     int(windowed), int(share), i, changes[i].begin, changes[i].end, changes[i].alt.c_str(),
                                     r.base_mean_logp[i], a.base_mean_logp);
                    worst = std::max(worst, gap);
                }
                CHECK(worst < 2e-5);
            }
        }
    }
}

TEST(sharing_the_prefix_forwards_fewer_tokens_than_the_plain_method) {
    Model& m = tiny();
    std::mt19937 rng(3);
    const std::string ref = random_dna(600, rng);
    // A site in the middle with three alternatives (as a multi-allelic VCF record).
    const std::vector<AlleleChange> changes = {{300, 301, "A"}, {300, 301, "C"}, {300, 303, "G"}};
    const ScoreOptions o = base_level(m);
    const AlleleScores shared = score_alleles(m.backend(), m.tokenizer(), ref, changes, o, {}, true);
    const AlleleScores plain = score_alleles(m.backend(), m.tokenizer(), ref, changes, o, {}, false);
    CHECK_EQ(shared.reference_tokens, plain.reference_tokens);
    // Plain: each alternative from its first token (about 100 tokens each); shared: from the site.
    CHECK(plain.alt_tokens >= 3 * 99);
    CHECK(shared.alt_tokens <= 3 * 52);
    for (size_t i = 0; i < changes.size(); ++i) CHECK_NEAR(shared.base_mean_logp[i], plain.base_mean_logp[i], 2e-5);
}

TEST(identical_alternative_and_bad_ranges) {
    Model& m = tiny();
    std::mt19937 rng(5);
    const std::string ref = random_dna(60, rng);
    const std::vector<AlleleChange> same = {{10, 12, ref.substr(10, 2)}};
    const AlleleScores r = score_alleles(m.backend(), m.tokenizer(), ref, same, base_level(m));
    CHECK_EQ(r.base_mean_logp[0], r.reference.base_mean_logp);
    CHECK_EQ(r.alt_tokens, size_t(0));
    const std::vector<AlleleChange> bad = {{50, 61, "A"}};
    CHECK_THROWS_WITH(score_alleles(m.backend(), m.tokenizer(), ref, bad, base_level(m)), "not a range of the sequence");
}

TEST(cancelling_stops_and_says_so) {
    Model& m = tiny();
    std::mt19937 rng(8);
    const std::string ref = random_dna(300, rng);
    const std::vector<AlleleChange> changes = {{100, 101, "A"}, {200, 200, "GG"}};
    ScoreOptions o = base_level(m);
    o.chunk_tokens = 8;
    size_t calls = 0;
    const AlleleScores r = score_alleles(m.backend(), m.tokenizer(), ref, changes, o, [&](size_t, size_t) { return ++calls < 9; });
    CHECK(r.cancelled);
    // The backend is left clean: the next call gives the plain answer.
    const AlleleScores again = score_alleles(m.backend(), m.tokenizer(), ref, changes, base_level(m));
    CHECK(!again.cancelled);
    const SequenceScore a = score_sequence(m.backend(), m.tokenizer(), applied(ref, changes[1]), base_level(m));
    CHECK_NEAR(again.base_mean_logp[1], a.base_mean_logp, 2e-5);
}

CHECK_MAIN()
