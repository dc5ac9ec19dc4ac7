// Choosing designs to order (issue 33): distances between designs on both strands, near-duplicate
// removal, and a diverse selection of good designs (greedy max-min). The distance of a and b is
// the smaller of their distance and the distance of a to b's reverse complement, since a
// synthesised double strand is both.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace carbon {

enum class SequenceDistance {
    Hamming,  // substitutions only; both designs of one length (refused otherwise)
    Edit,     // Levenshtein: substitutions, insertions and deletions, each 1
};

// min(d(a, b), d(a, revcomp(b))), upper-case A C G T N (anything else compares as itself).
size_t design_distance(std::string_view a, std::string_view b, SequenceDistance kind);

struct DesignSelection {
    std::vector<size_t> chosen;  // indices into the candidates, in the order chosen
    // The smallest distance between two chosen designs (SIZE_MAX with fewer than two).
    size_t min_distance = 0;
    size_t eligible = 0;  // candidates at or above the score threshold
    std::string note;     // why fewer than asked for were chosen, or empty
};

// Greedy max-min: the best-scoring eligible candidate first, then again and again the eligible
// candidate farthest from every one chosen so far (ties: the better score, then the lower index),
// until n are chosen or none is left. Eligible: score >= min_score when given (NaN never is).
// Throws Error for mismatched lengths under Hamming, or sizes that disagree.
DesignSelection select_diverse(const std::vector<std::string>& designs, const std::vector<double>& scores, size_t n,
                               SequenceDistance kind, std::optional<double> min_score = std::nullopt);

// Near-duplicate removal: in score order (best first; ties by index), each design is kept unless
// it lies closer than min_distance to one already kept. The indices kept, in that order.
std::vector<size_t> remove_near_duplicates(const std::vector<std::string>& designs, const std::vector<double>& scores,
                                           size_t min_distance, SequenceDistance kind);

}  // namespace carbon
