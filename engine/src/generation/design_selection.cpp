// Distances, near-duplicate removal and diverse selection of designs (design_selection.h).
#include "carbon/generation/design_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "carbon/support/common.h"

namespace carbon {

namespace {

char complement(char c) {
    switch (c) {
        case 'A': return 'T';
        case 'C': return 'G';
        case 'G': return 'C';
        case 'T': return 'A';
        default: return c;
    }
}

std::string reverse_complement(std::string_view s) {
    std::string r(s.rbegin(), s.rend());
    for (char& c : r) c = complement(c);
    return r;
}

size_t hamming(std::string_view a, std::string_view b) {
    size_t d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
}

// Levenshtein distance, one row of the table at a time.
size_t edit(std::string_view a, std::string_view b) {
    if (a.size() < b.size()) std::swap(a, b);
    std::vector<size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), size_t(0));
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

size_t distance_rc(std::string_view a, std::string_view b, std::string_view b_rc, SequenceDistance kind) {
    if (kind == SequenceDistance::Hamming) {
        if (a.size() != b.size())
            throw Error("Hamming distance between designs of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                        " bases: it needs one length (use the edit distance)");
        return std::min(hamming(a, b), hamming(a, b_rc));
    }
    return std::min(edit(a, b), edit(a, b_rc));
}

// Candidate order: better score first, then lower index.
std::vector<size_t> by_score(const std::vector<double>& scores) {
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        const double a = std::isnan(scores[x]) ? -std::numeric_limits<double>::infinity() : scores[x];
        const double b = std::isnan(scores[y]) ? -std::numeric_limits<double>::infinity() : scores[y];
        return a > b;
    });
    return order;
}

void check_sizes(const std::vector<std::string>& designs, const std::vector<double>& scores) {
    if (designs.size() != scores.size())
        throw Error(std::to_string(designs.size()) + " designs but " + std::to_string(scores.size()) + " scores");
}

}  // namespace

size_t design_distance(std::string_view a, std::string_view b, SequenceDistance kind) {
    const std::string rc = reverse_complement(b);
    return distance_rc(a, b, rc, kind);
}

DesignSelection select_diverse(const std::vector<std::string>& designs, const std::vector<double>& scores, size_t n,
                               SequenceDistance kind, std::optional<double> min_score) {
    check_sizes(designs, scores);
    DesignSelection sel;
    std::vector<size_t> order;
    for (size_t i : by_score(scores))
        if (!std::isnan(scores[i]) && (!min_score || scores[i] >= *min_score)) order.push_back(i);
    sel.eligible = order.size();
    sel.min_distance = std::numeric_limits<size_t>::max();
    if (n == 0 || order.empty()) {
        if (n > 0) sel.note = "no design scores at or above the threshold";
        return sel;
    }
    std::vector<std::string> rc(designs.size());
    for (size_t i : order) rc[i] = reverse_complement(designs[i]);
    // nearest[k]: candidate order[k]'s distance to the chosen set so far.
    std::vector<size_t> nearest(order.size(), std::numeric_limits<size_t>::max());
    std::vector<bool> taken(order.size(), false);
    size_t pick = 0;  // the best-scoring first
    while (true) {
        taken[pick] = true;
        const size_t c = order[pick];
        if (!sel.chosen.empty()) sel.min_distance = std::min(sel.min_distance, nearest[pick]);
        sel.chosen.push_back(c);
        if (sel.chosen.size() == n) break;
        size_t best = SIZE_MAX, best_d = 0;
        for (size_t k = 0; k < order.size(); ++k) {
            if (taken[k]) continue;
            nearest[k] = std::min(nearest[k], distance_rc(designs[order[k]], designs[c], rc[c], kind));
            if (best == SIZE_MAX || nearest[k] > best_d) {  // ties keep the earlier (better-scoring) one
                best = k;
                best_d = nearest[k];
            }
        }
        if (best == SIZE_MAX) break;
        pick = best;
    }
    if (sel.chosen.size() < n)
        sel.note = "chose " + std::to_string(sel.chosen.size()) + " of the " + std::to_string(n) + " asked for: only " +
                   std::to_string(sel.eligible) + " designs" + (min_score ? " score at or above the threshold" : " were given");
    return sel;
}

std::vector<size_t> remove_near_duplicates(const std::vector<std::string>& designs, const std::vector<double>& scores,
                                           size_t min_distance, SequenceDistance kind) {
    check_sizes(designs, scores);
    std::vector<size_t> kept;
    std::vector<std::string> kept_rc;
    for (size_t i : by_score(scores)) {
        bool near = false;
        for (size_t k = 0; k < kept.size() && !near; ++k) near = distance_rc(designs[i], designs[kept[k]], kept_rc[k], kind) < min_distance;
        if (near) continue;
        kept.push_back(i);
        kept_rc.push_back(reverse_complement(designs[i]));
    }
    return kept;
}

}  // namespace carbon
