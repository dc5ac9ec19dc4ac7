// Motif tests: the three file formats give the same matrix, malformed files are refused with
// FILE:LINE, the log-odds matrix follows Biopython's definition, p-values equal a brute-force
// enumeration of every word for short motifs (forward and reverse strand, uniform and skewed
// backgrounds), and the scan finds planted sites on both strands at their positions.
#include <cmath>
#include <random>
#include <string>

#include "carbon/motifs/motif.h"
#include "check.h"

using namespace carbon;

namespace {

// MA0004.1 (Arnt) as JASPAR publishes it, in its three formats.
const char* kJaspar =
    ">MA0004.1 Arnt\n"
    "A  [     4     19      0      0      0      0 ]\n"
    "C  [    16      0     20      0      0      0 ]\n"
    "G  [     0      1      0     20      0     20 ]\n"
    "T  [     0      0      0      0     20      0 ]\n";
const char* kMeme =
    "MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\nA 0.25 C 0.25 G 0.25 T 0.25\n\n"
    "MOTIF MA0004.1 Arnt\nletter-probability matrix: alength= 4 w= 6 nsites= 20 E= 0\n"
    " 0.200000  0.800000  0.000000  0.000000\n 0.950000  0.000000  0.050000  0.000000\n"
    " 0.000000  1.000000  0.000000  0.000000\n 0.000000  0.000000  1.000000  0.000000\n"
    " 0.000000  0.000000  0.000000  1.000000\n 0.000000  0.000000  1.000000  0.000000\n\nURL x\n";
const char* kTransfac =
    "AC MA0004.1\nXX\nID Arnt\nXX\nP0      A      C      G      T\n"
    "01      4     16      0      0      C\n02     19      0      1      0      A\n03      0     20      0      0      C\n"
    "04      0      0     20      0      G\n05      0      0      0     20      T\n06      0      0     20      0      G\n"
    "XX\n//\n";

int code(char c) { return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3; }

// P(score >= s) by enumerating all 4^L words, with the matrix rounded to the distribution's grid.
double brute_pvalue(const ScoreDistribution::Strand& s, const BaseWeights& bg, long long grid_score) {
    const size_t L = s.grid.size();
    double p = 0;
    size_t words = 1;
    for (size_t j = 0; j < L; ++j) words *= 4;
    for (size_t w = 0; w < words; ++w) {
        size_t x = w;
        long long g = 0;
        double prob = 1;
        for (size_t j = 0; j < L; ++j, x /= 4) {
            g += s.grid[j][x % 4];
            prob *= bg[x % 4];
        }
        if (g >= grid_score) p += prob;
    }
    return p;
}

}  // namespace

TEST(three_formats_give_one_matrix) {
    const auto j = parse_motifs(kJaspar, "arnt.jaspar");
    const auto m = parse_motifs(kMeme, "arnt.meme");
    const auto t = parse_motifs(kTransfac, "arnt.transfac");
    CHECK_EQ(j.size(), size_t(1));
    CHECK_EQ(m.size(), size_t(1));
    CHECK_EQ(t.size(), size_t(1));
    for (const auto* x : {&j[0], &m[0], &t[0]}) {
        CHECK_EQ(x->id, std::string("MA0004.1"));
        CHECK_EQ(x->name, std::string("Arnt"));
        CHECK_EQ(x->length(), size_t(6));
        for (size_t p = 0; p < 6; ++p)
            for (size_t b = 0; b < 4; ++b) CHECK_NEAR(x->counts[p][b], j[0].counts[p][b], 1e-9);
    }
    CHECK_EQ(j[0].counts[0][1], 16.0);
    CHECK_EQ(j[0].counts[1][2], 1.0);
    // The bare .pfm (four rows of numbers, no header) takes the file's name.
    const auto pfm = parse_motifs("4 19 0 0 0 0\n16 0 20 0 0 0\n0 1 0 20 0 20\n0 0 0 0 20 0\n", "/x/MA0004.1.pfm");
    CHECK_EQ(pfm[0].id, std::string("MA0004.1"));
    CHECK_EQ(pfm[0].counts[5][2], 20.0);
    // Several motifs per file, in order.
    const auto two = parse_motifs(std::string(kJaspar) + "\n" + ">MA9999.1 Other\nA [1 2]\nC [1 2]\nG [1 2]\nT [1 2]\n", "two.jaspar");
    CHECK_EQ(two.size(), size_t(2));
    CHECK_EQ(two[1].name, std::string("Other"));
}

// Issue 31, class 7: work bounded by the input's meaning. A matrix wider than any motif finder
// writes (10^5 columns took minutes in the p-value grid), a MEME width of 1e300, counts that
// would overflow a column's sum, are refused with the reason; 300 columns are read.
TEST(widths_and_counts_past_any_real_motif_are_refused_with_the_reason) {
    auto jaspar = [](size_t width, const std::string& entry) {
        std::string row;
        for (size_t j = 0; j < width; ++j) row += " " + entry;
        return ">M1 wide\nA [" + row + " ]\nC [" + row + " ]\nG [" + row + " ]\nT [" + row + " ]\n";
    };
    CHECK_EQ(parse_motifs(jaspar(300, "3"), "w300.jaspar").at(0).counts.size(), size_t(300));
    CHECK_THROWS_WITH(parse_motifs(jaspar(301, "3"), "w301.jaspar"), "w301.jaspar:1", "301 positions wide", "at most 300");
    CHECK_THROWS_WITH(parse_motifs(jaspar(100000, "1"), "w1e5.jaspar"), "w1e5.jaspar:1", "100000 positions wide");
    CHECK_THROWS_WITH(parse_motifs(jaspar(2, "1e308"), "big.jaspar"), "big.jaspar:2", "larger than any count", "overflow");
    const std::string meme = "MEME version 4\nALPHABET= ACGT\nMOTIF m1\nletter-probability matrix: alength= 4 w= ";
    CHECK_THROWS_WITH(parse_motifs(meme + "1e300 nsites= 20\n0.25 0.25 0.25 0.25\n", "w.meme"), "w.meme:4", "1e+300 positions wide");
    CHECK_THROWS_WITH(parse_motifs(meme + "1.5 nsites= 20\n0.25 0.25 0.25 0.25\n", "w.meme"), "w.meme:4", "not a whole number");
    CHECK_THROWS_WITH(parse_motifs(meme + "1 nsites= 1e300\n0.25 0.25 0.25 0.25\n", "n.meme"), "n.meme:4", "larger than any count");
}

TEST(malformed_files_are_refused_with_file_and_line) {
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1 2]\nC [1 2 3]\nG [1 2]\nT [1 2]\n", "f.jaspar"), "f.jaspar:3", "different lengths");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1 2]\nC [1 2]\nG [1 2]\n", "f.jaspar"), "f.jaspar:4", "needs four");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1 2]\nC [1 -2]\nG [1 2]\nT [1 2]\n", "f.jaspar"), "f.jaspar:3", ">= 0");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1 x2]\nC [1 2]\nG [1 2]\nT [1 2]\n", "f.jaspar"), "f.jaspar:2", "not a number");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1 nan]\nC [1 2]\nG [1 2]\nT [1 2]\n", "f.jaspar"), "f.jaspar:2", "finite");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [0 2]\nC [0 2]\nG [0 2]\nT [0 2]\n", "f.jaspar"), "f.jaspar:1", "position 1 holds no counts");
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nA [1]\nA [1]\nG [1]\nT [1]\n", "f.jaspar"), "f.jaspar:3", "twice");
    // A labelled row, then an unlabelled one that takes the same place (engine.fuzz_motifs found it).
    CHECK_THROWS_WITH(parse_motifs(">M1 x\nC [1 2]\n[3 4]\nG [1 2]\nT [1 2]\n", "g.jaspar"), "g.jaspar:3", "row C appears twice");
    CHECK_THROWS_WITH(parse_motifs("\n\n", "empty.txt"), "empty.txt", "no motif");
    CHECK_THROWS_WITH(parse_motifs(std::string("A\0B", 3), "bin"), "bin", "NUL");
    CHECK_THROWS_WITH(parse_motifs("MEME version 4\nALPHABET= ACDEFGHIKLMNPQRSTVWY\nMOTIF p\n", "p.meme"), "p.meme:2", "only DNA");
    CHECK_THROWS_WITH(parse_motifs("MEME version 4\nMOTIF m1\nletter-probability matrix: alength= 4 w= 3\n0.25 0.25 0.25 0.25\n", "w.meme"),
                      "w.meme:3", "w= 3", "1 rows");
    CHECK_THROWS_WITH(parse_motifs("MEME version 4\nMOTIF m1\nletter-probability matrix: alength= 4 w= 1\n0.5 0.5 0\n", "r.meme"),
                      "r.meme:4", "3 numbers");
    CHECK_THROWS_WITH(parse_motifs("AC M1\nP0 A C G T\n01 1 2 3 4 N\n", "open.transfac"), "open.transfac", "not closed");
    CHECK_THROWS_WITH(parse_motifs("AC M1\nP0 A C G G\n01 1 2 3 4\n//\n", "h.transfac"), "h.transfac:2", "once each");
    CHECK_THROWS_WITH(read_motifs("/nonexistent/m.jaspar"), "/nonexistent/m.jaspar");
}

TEST(log_odds_follow_biopythons_definition) {
    const Motif m = parse_motifs(kJaspar, "arnt.jaspar")[0];
    const Pssm p = make_pssm(m, uniform_background(), 0.5);
    // Column 1: counts 4, 16, 0, 0 (+0.5 each over 22): log2(p / 0.25); Biopython prints -0.29, 1.58, -3.46.
    CHECK_NEAR(p.score[0][0], std::log2((4.5 / 22) / 0.25), 1e-12);
    CHECK_NEAR(p.score[0][0], -0.29, 0.005);
    CHECK_NEAR(p.score[0][1], 1.58, 0.005);
    CHECK_NEAR(p.score[0][2], -3.46, 0.005);
    CHECK_NEAR(p.max_score(), 1.58 + 1.83 + 1.90 * 4, 0.02);
    CHECK_THROWS_WITH(make_pssm(m, uniform_background(), 0.0), "arnt.jaspar:1", "probability 0", "pseudocount");
    CHECK_THROWS_WITH(make_pssm(m, {0.5, 0.5, 0.0, 0.0}, 0.5), "background");
    const BaseWeights bg = sequence_background("AAAACG");  // both strands: A 4+... T 4, C 1+1, G 1+1, +1 each
    CHECK_NEAR(bg[0], bg[3], 1e-15);
    CHECK_NEAR(bg[1], bg[2], 1e-15);
    CHECK_NEAR(bg[0], 5.0 / 16, 1e-15);
}

TEST(pvalues_equal_brute_force_enumeration) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0, 10);
    for (int trial = 0; trial < 6; ++trial) {
        Motif m;
        m.id = m.name = "random" + std::to_string(trial);
        const size_t L = 3 + size_t(trial);  // 3..8: 4^8 words at most
        for (size_t j = 0; j < L; ++j) m.counts.push_back({u(rng), u(rng), u(rng), u(rng)});
        const BaseWeights bg = trial % 2 ? BaseWeights{0.1, 0.2, 0.3, 0.4} : uniform_background();
        const Pssm p = make_pssm(m, bg, 0.25);
        const ScoreDistribution d(p, trial < 3 ? 1000 : 37);
        for (const auto* strand : {&d.forward(), &d.reverse()}) {
            for (int k = 0; k < 25; ++k) {
                const long long g = strand->offset + k * (long long)(strand->tail.size() / 25);
                const double exact = brute_pvalue(*strand, p.background, g);
                CHECK_NEAR(strand->pvalue(g), exact, 1e-12 + 1e-9 * exact);
            }
        }
        // threshold(p) is the lowest grid score with p-value <= p.
        for (double q : {1e-1, 1e-2, 1e-3}) {
            const double t = d.threshold(q);
            CHECK(d.pvalue(t) <= q);
            CHECK(d.pvalue(t - d.step()) > q || t - d.step() < double(d.forward().offset) * d.step());
        }
        CHECK_NEAR(d.pvalue(p.min_score() - 1), 1.0, 1e-12);
        CHECK_EQ(d.pvalue(p.max_score() + 1), 0.0);
    }
}

TEST(scan_finds_planted_sites_on_both_strands) {
    const Pssm p = make_pssm(parse_motifs(kJaspar, "arnt.jaspar")[0], uniform_background(), 0.5);
    const ScoreDistribution d(p);
    std::mt19937 rng(3);
    std::string seq(2000, 'A');
    for (char& c : seq) c = "ACGT"[rng() % 4];
    // CACGTG is its own reverse complement: both strands. AACGTG scores 9.1 bits forward (p about
    // 2/4096) but 5.7 on the reverse strand; its reverse complement CACGTT the other way round.
    seq.replace(100, 6, "CACGTG");
    seq.replace(500, 6, "AACGTG");
    seq.replace(900, 6, "CACGTT");
    seq.replace(1500, 7, "CACNTGA");  // an N: that window is skipped
    const auto hits = scan_motif(p, d, seq, 1e-3);
    auto has = [&](size_t pos, char strand) {
        for (const auto& h : hits)
            if (h.start == pos && h.strand == strand) return true;
        return false;
    };
    CHECK(has(100, '+'));
    CHECK(has(100, '-'));
    CHECK(has(500, '+'));
    CHECK(has(900, '-'));
    CHECK(!has(500, '-'));
    CHECK(!has(900, '+'));
    for (const auto& h : hits) {
        CHECK(h.pvalue <= 1e-3);
        CHECK(!(h.start <= 1503 && h.start + 6 > 1503));
        // Every score is the matrix summed over the window, read on its strand.
        double s = 0;
        for (size_t j = 0; j < 6; ++j)
            s += h.strand == '+' ? p.score[j][size_t(code(seq[h.start + j]))]
                                 : p.score[5 - j][size_t(3 - code(seq[h.start + j]))];
        CHECK_NEAR(h.score, s, 1e-12);
    }
    // Ordered by position, '+' before '-'.
    for (size_t i = 1; i < hits.size(); ++i)
        CHECK(hits[i - 1].start < hits[i].start || (hits[i - 1].start == hits[i].start && hits[i - 1].strand == '+'));
    CHECK(scan_motif(p, d, "CACG", 1.0).empty());  // shorter than the motif
}

CHECK_MAIN()
