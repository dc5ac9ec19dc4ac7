// Choosing designs to order (design_selection.h): distances on both strands (Hamming and edit, a
// design and its reverse complement at distance 0); the greedy max-min selection's reported minimum
// distance equals a brute-force check of the chosen set, is within the greedy's factor of two of
// the best subset found by brute force on small cases, and is at least that of random selections
// of the same size on large ones; near-duplicate removal leaves no pair under the threshold and
// removes only designs near a better one kept; thresholds, shortfalls and bad input are reported.
#include "carbon/generation/design_selection.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "check.h"

using namespace carbon;

namespace {

std::string random_dna(std::mt19937& rng, size_t n) {
    static const char b[] = "ACGT";
    std::string s(n, 'A');
    for (char& c : s) c = b[rng() % 4];
    return s;
}

std::string revcomp(const std::string& s) {
    std::string r(s.rbegin(), s.rend());
    for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : c;
    return r;
}

size_t min_pairwise(const std::vector<std::string>& d, const std::vector<size_t>& set, SequenceDistance kind) {
    size_t m = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < set.size(); ++i)
        for (size_t j = i + 1; j < set.size(); ++j) m = std::min(m, design_distance(d[set[i]], d[set[j]], kind));
    return m;
}

}  // namespace

// The table, one cell at a time: the reference for the bit-vector edit distance.
size_t edit_table(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

TEST(edit_distance_equals_the_table) {
    std::mt19937 rng(13);
    size_t pairs = 0;
    for (int t = 0; t < 3000; ++t) {
        // Lengths across the 64-position blocks, letters beyond ACGT, near and far pairs.
        const size_t la = rng() % 200, lb = t % 3 == 0 ? la : rng() % 200;
        std::string a = random_dna(rng, la), b = t % 2 ? a.substr(0, std::min(la, lb)) : random_dna(rng, lb);
        b.resize(lb, 'A');
        for (size_t e = 0; e < rng() % 6 && !b.empty(); ++e) b[rng() % b.size()] = "ACGTN"[rng() % 5];
        const size_t want = std::min(edit_table(a, b), edit_table(a, revcomp(b)));
        CHECK_EQ(design_distance(a, b, SequenceDistance::Edit), want);
        ++pairs;
    }
    std::fprintf(stderr, "  %zu pairs: the bit-vector edit distance equals the table\n", pairs);
}

TEST(distances_count_both_strands) {
    CHECK_EQ(design_distance("AACGTT", "AACGTA", SequenceDistance::Hamming), size_t(1));
    CHECK_EQ(design_distance("AACGGT", revcomp("AACGGT"), SequenceDistance::Hamming), size_t(0));
    CHECK_EQ(design_distance("ACGTAC", "AGTAC", SequenceDistance::Edit), size_t(1));
    CHECK_EQ(design_distance("AAAACCC", revcomp("AAAACC"), SequenceDistance::Edit), size_t(1));
    CHECK_EQ(design_distance("", "ACG", SequenceDistance::Edit), size_t(3));
    CHECK_THROWS_WITH(design_distance("ACGT", "ACG", SequenceDistance::Hamming), "4 and 3 bases", "edit distance");
}

TEST(greedy_selection_against_brute_force) {
    std::mt19937 rng(5);
    for (int round = 0; round < 20; ++round)
        for (SequenceDistance kind : {SequenceDistance::Hamming, SequenceDistance::Edit}) {
            const size_t count = 12, n = 4;
            std::vector<std::string> d;
            std::vector<double> score;
            for (size_t i = 0; i < count; ++i) {
                d.push_back(random_dna(rng, 10));
                score.push_back(double(rng() % 5));
            }
            const DesignSelection sel = select_diverse(d, score, n, kind);
            CHECK_EQ(sel.chosen.size(), n);
            CHECK(sel.note.empty());
            CHECK_EQ(sel.min_distance, min_pairwise(d, sel.chosen, kind));
            // The first is the best score (the lowest index among equals).
            const size_t best = size_t(std::max_element(score.begin(), score.end()) - score.begin());
            CHECK_EQ(sel.chosen[0], best);
            // Every subset of n containing the first: greedy max-min is within a factor of two of the best.
            size_t opt = 0;
            for (unsigned mask = 0; mask < (1u << count); ++mask) {
                if (size_t(__builtin_popcount(mask)) != n || !(mask >> best & 1)) continue;
                std::vector<size_t> set;
                for (size_t i = 0; i < count; ++i)
                    if (mask >> i & 1) set.push_back(i);
                opt = std::max(opt, min_pairwise(d, set, kind));
            }
            CHECK(2 * sel.min_distance >= opt);
            CHECK(sel.min_distance <= opt);
        }
}

TEST(large_selection_beats_random_ones) {
    std::mt19937 rng(7);
    std::vector<std::string> d;
    std::vector<double> score;
    // 60 families of 30 near-identical designs (2 substitutions apart at most) plus their reverse
    // complements: picking at random lands in the same family often.
    for (size_t f = 0; f < 60; ++f) {
        const std::string root = random_dna(rng, 60);
        for (size_t k = 0; k < 30; ++k) {
            std::string v = root;
            v[rng() % v.size()] = "ACGT"[rng() % 4];
            d.push_back(k % 2 ? revcomp(v) : v);
            score.push_back(double(rng() % 1000) / 1000.0);
        }
    }
    const size_t n = 50;
    const DesignSelection sel = select_diverse(d, score, n, SequenceDistance::Hamming);
    CHECK_EQ(sel.chosen.size(), n);
    CHECK_EQ(sel.min_distance, min_pairwise(d, sel.chosen, SequenceDistance::Hamming));
    CHECK(sel.min_distance >= 10);  // one per family
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<size_t> all(d.size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = i;
        std::shuffle(all.begin(), all.end(), rng);
        all.resize(n);
        CHECK(min_pairwise(d, all, SequenceDistance::Hamming) <= sel.min_distance);
    }
    // Above a threshold only.
    const DesignSelection good = select_diverse(d, score, n, SequenceDistance::Hamming, 0.5);
    for (size_t i : good.chosen) CHECK(score[i] >= 0.5);
    // Fewer eligible than asked for: all of them, and a note with the numbers.
    const DesignSelection few = select_diverse(d, score, n, SequenceDistance::Hamming, 0.999);
    CHECK(few.chosen.size() == few.eligible && few.eligible < n);
    CHECK(few.note.find("chose " + std::to_string(few.eligible) + " of the 50") != std::string::npos);
}

TEST(near_duplicates_are_removed) {
    std::mt19937 rng(9);
    std::vector<std::string> d;
    std::vector<double> score;
    for (size_t f = 0; f < 15; ++f) {
        const std::string root = random_dna(rng, 40);
        for (size_t k = 0; k < 8; ++k) {
            std::string v = root;
            for (size_t e = 0; e < k % 3; ++e) v[rng() % v.size()] = "ACGT"[rng() % 4];
            d.push_back(k == 5 ? revcomp(v) : v);
            score.push_back(double(rng() % 100));
        }
    }
    for (SequenceDistance kind : {SequenceDistance::Hamming, SequenceDistance::Edit}) {
        const size_t threshold = 5;
        const auto kept = remove_near_duplicates(d, score, threshold, kind);
        CHECK(kept.size() >= 15 && kept.size() < d.size());
        CHECK(min_pairwise(d, kept, kind) >= threshold);
        for (size_t i = 0; i < d.size(); ++i) {
            if (std::find(kept.begin(), kept.end(), i) != kept.end()) continue;
            bool near_better = false;  // removed: near a kept design of at least its score
            for (size_t k : kept) near_better = near_better || (design_distance(d[i], d[k], kind) < threshold && score[k] >= score[i]);
            CHECK(near_better);
        }
    }
    CHECK_THROWS_WITH(remove_near_duplicates(d, {1.0}, 3, SequenceDistance::Hamming), "scores");
}

CHECK_MAIN()
