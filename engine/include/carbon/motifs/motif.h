// Transcription-factor binding motifs: position frequency matrices read from the formats motif
// databases publish (JASPAR, MEME minimal, TRANSFAC), turned into log-odds scoring matrices
// against a background, and scanned over a sequence on both strands. p-values come from the
// distribution of the matrix's score under the background, computed by dynamic programming over
// a fine grid of scores (as FIMO and Biopython's Bio.motifs do), so a threshold can be stated as a
// p-value rather than a raw score.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace carbon {

// Base order everywhere in this header: A, C, G, T (not the 6-mer index's A, T, C, G), so the
// complement of base b is 3 - b.
using BaseWeights = std::array<double, 4>;

// 0..3 for A/C/G/T in either case, -1 for anything else.
inline int motif_base(char c) {
    switch (c) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': return 3;
        default: return -1;
    }
}

struct Motif {
    std::string id;    // the database's accession (MA0004.1), or the name where there is none
    std::string name;  // the factor's name (Arnt), or the id
    std::vector<BaseWeights> counts;  // one column per motif position: counts or probabilities
    std::string source;               // FILE:LINE of the motif's first line, for messages
    size_t length() const { return counts.size(); }
};

// Every motif in a file, in file order. The format is recognized from the content: JASPAR
// (">ID NAME" then four rows "A [ ... ]", or the bare four-row .pfm), MEME minimal ("MEME
// version" ... "MOTIF ID [NAME]" ... "letter-probability matrix:"), TRANSFAC ("AC"/"ID"/"P0"
// rows ending at "//"). Throws carbon::Error naming FILE:LINE for anything malformed: rows of
// different lengths, a negative, non-finite or non-numeric entry, an empty column, a matrix
// whose alphabet is not ACGT, a file with no motif, or one larger than 64 MiB.
std::vector<Motif> read_motifs(const std::filesystem::path& path);
// The same from text already in memory (`origin` names it in messages).
std::vector<Motif> parse_motifs(std::string_view text, const std::string& origin);

// Background base frequencies: uniform, or a sequence's own composition (A/C/G/T counted on both
// strands so the two strands score alike; other letters ignored).
BaseWeights uniform_background();
BaseWeights sequence_background(std::string_view bases);

// Log-odds scoring matrix in bits: score[j][b] = log2(p_j(b) / bg[b]) where p_j is column j plus
// `pseudocount` per base, normalized (Biopython's counts.normalize(pseudocounts).log_odds(bg)).
// A zero probability with pseudocount 0 is refused (its score would be -infinity).
struct Pssm {
    std::string id, name;
    std::vector<BaseWeights> score;  // [position][base]
    BaseWeights background{};
    size_t length() const { return score.size(); }
    double min_score() const;
    double max_score() const;
};
Pssm make_pssm(const Motif& motif, const BaseWeights& background, double pseudocount);

// The distribution of a PSSM's score under its background (independent bases), on a grid of
// `steps_per_bit` points per bit (fewer where the grid would pass 4 million points): each entry
// is rounded to the grid, so the distribution is exact for the rounded matrix, and a window's
// p-value is that of its rounded score. pvalue(s) = P(score >= s); threshold(p) = the smallest
// grid score whose p-value is at most p (forward strand). The reverse strand (the
// reverse-complement matrix) has its own rounded matrix and distribution.
class ScoreDistribution {
public:
    explicit ScoreDistribution(const Pssm& pssm, int steps_per_bit = 1000);
    double pvalue(double score) const;
    double threshold(double pvalue) const;
    double step() const { return step_; }

    // For scanning: the rounded matrices and the p-value of a window's rounded score.
    struct Strand {
        std::vector<std::array<long long, 4>> grid;  // [position][base], in steps
        long long offset = 0;                        // lowest achievable grid score
        std::vector<double> tail;                    // tail[i] = P(grid score >= offset + i)
        double pvalue(long long grid_score) const;
    };
    const Strand& forward() const { return fwd_; }
    const Strand& reverse() const { return rev_; }

private:
    double step_ = 0;
    Strand fwd_, rev_;
};

struct MotifHit {
    size_t start = 0;      // 0-based first base of the match on the forward strand
    char strand = '+';     // '+' the matrix read along the sequence, '-' its reverse complement
    double score = 0;      // bits
    double pvalue = 1;
};

// Every window (both strands) whose score is at least `min_score` and whose p-value is at most
// `max_pvalue`, in order of position, '+' before '-'. Windows holding a base other than A/C/G/T
// are skipped (no score is defined for them).
std::vector<MotifHit> scan_motif(const Pssm& pssm, const ScoreDistribution& dist, std::string_view bases,
                                 double max_pvalue, double min_score = -1e300);

}  // namespace carbon
