// Distances, near-duplicate removal and diverse selection of designs (design_selection.h).
#include "carbon/generation/design_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"

namespace carbon {

namespace {

size_t hamming(std::string_view a, std::string_view b) {
    size_t d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
}

// Levenshtein distance of a fixed pattern to any text, by Myers' bit-vector algorithm in blocks of
// 64 pattern positions (Myers 1999; Hyyro's global-distance form): one column of the table per
// text letter in a few word operations per block instead of one cell at a time. Equal to the
// table's value (test_design_selection checks it against the table on random pairs).
class EditPattern {
public:
    EditPattern() = default;
    explicit EditPattern(std::string_view p) : m_(p.size()), words_((p.size() + 63) / 64), peq_(256 * std::max<size_t>(words_, 1), 0) {
        for (size_t i = 0; i < m_; ++i) peq_[size_t(static_cast<unsigned char>(p[i])) * words_ + i / 64] |= uint64_t(1) << (i % 64);
    }
    size_t distance(std::string_view text) const {
        if (m_ == 0) return text.size();
        std::vector<uint64_t> pv(words_, ~uint64_t(0)), mv(words_, 0);
        const uint64_t last_high = uint64_t(1) << ((m_ - 1) % 64);
        size_t score = m_;
        for (const char ch : text) {
            const uint64_t* eq = &peq_[size_t(static_cast<unsigned char>(ch)) * words_];
            int hin = 1;  // the top row grows by one per text letter
            for (size_t b = 0; b < words_; ++b) {
                uint64_t e = eq[b];
                const uint64_t p = pv[b], m = mv[b];
                const uint64_t xv = e | m;
                if (hin < 0) e |= 1;
                const uint64_t xh = (((e & p) + p) ^ p) | e;
                uint64_t ph = m | ~(xh | p), mh = p & xh;
                const uint64_t high = b + 1 == words_ ? last_high : uint64_t(1) << 63;
                const int hout = (ph & high) ? 1 : (mh & high) ? -1 : 0;
                ph <<= 1;
                mh <<= 1;
                if (hin < 0) mh |= 1;
                else if (hin > 0) ph |= 1;
                pv[b] = mh | ~(xv | ph);
                mv[b] = ph & xv;
                hin = hout;
            }
            score = size_t(int64_t(score) + hin);
        }
        return score;
    }

private:
    size_t m_ = 0, words_ = 0;
    std::vector<uint64_t> peq_;  // [letter][word]: the pattern positions holding that letter
};

// A design prepared for comparisons: its reverse complement and, for the edit distance, both as
// bit-vector patterns.
struct Prepared {
    std::string seq, rc;
    EditPattern fwd, rev;
    Prepared(std::string_view s, SequenceDistance kind) : seq(s), rc(reverse_complement(s)) {
        if (kind == SequenceDistance::Edit) {
            fwd = EditPattern(seq);
            rev = EditPattern(rc);
        }
    }
};

// min(d(x, p), d(x, revcomp(p))).
size_t distance_to(std::string_view x, const Prepared& p, SequenceDistance kind) {
    if (kind == SequenceDistance::Hamming) {
        if (x.size() != p.seq.size())
            throw Error("Hamming distance between designs of " + std::to_string(x.size()) + " and " + std::to_string(p.seq.size()) +
                        " bases: it needs one length (use the edit distance)");
        return std::min(hamming(x, p.seq), hamming(x, p.rc));
    }
    return std::min(p.fwd.distance(x), p.rev.distance(x));
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
    return distance_to(a, Prepared(b, kind), kind);
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
        if (n > 0) sel.note = designs.empty() ? "no designs were given"
                              : min_score ? "no design scores at or above the threshold"
                                          : "no design has a score";
        return sel;
    }
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
        const Prepared chosen(designs[c], kind);
        size_t best = SIZE_MAX, best_d = 0;
        for (size_t k = 0; k < order.size(); ++k) {
            if (taken[k]) continue;
            nearest[k] = std::min(nearest[k], distance_to(designs[order[k]], chosen, kind));
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
                   std::to_string(sel.eligible) + " of the " + std::to_string(designs.size()) + " designs have a score" +
                   (min_score ? " at or above the threshold" : "");
    return sel;
}

std::vector<size_t> remove_near_duplicates(const std::vector<std::string>& designs, const std::vector<double>& scores,
                                           size_t min_distance, SequenceDistance kind) {
    check_sizes(designs, scores);
    std::vector<size_t> kept;
    std::vector<Prepared> prepared;
    for (size_t i : by_score(scores)) {
        bool near = false;
        for (size_t k = 0; k < kept.size() && !near; ++k) near = distance_to(designs[i], prepared[k], kind) < min_distance;
        if (near) continue;
        kept.push_back(i);
        prepared.emplace_back(designs[i], kind);
    }
    return kept;
}

}  // namespace carbon
