// Log-odds matrices, their score distribution under the background, and the two-strand scan.
#include <algorithm>
#include <cmath>
#include <string>

#include "carbon/motifs/motif.h"
#include "carbon/support/common.h"

namespace carbon {

namespace {

constexpr char kBases[] = "ACGT";
constexpr double kMaxGridPoints = 4e6;

std::vector<BaseWeights> reverse_complement(const std::vector<BaseWeights>& m) {
    std::vector<BaseWeights> rc(m.size());
    for (size_t j = 0; j < m.size(); ++j)
        for (int b = 0; b < 4; ++b) rc[j][size_t(b)] = m[m.size() - 1 - j][size_t(3 - b)];
    return rc;
}

ScoreDistribution::Strand distribution(const std::vector<BaseWeights>& score, const BaseWeights& bg, double step) {
    ScoreDistribution::Strand s;
    long long lo_total = 0, hi_total = 0;
    for (const BaseWeights& col : score) {
        std::array<long long, 4> g{};
        for (int b = 0; b < 4; ++b) g[size_t(b)] = std::llround(col[size_t(b)] / step);
        lo_total += *std::min_element(g.begin(), g.end());
        hi_total += *std::max_element(g.begin(), g.end());
        s.grid.push_back(g);
    }
    s.offset = lo_total;
    // P(grid score = offset + i), position by position over the scores reachable so far.
    std::vector<double> p(size_t(hi_total - lo_total + 1), 0.0), next(p.size());
    p[0] = 1.0;
    long long reach = 0;  // highest index reachable so far
    for (const auto& g : s.grid) {
        const long long lo = *std::min_element(g.begin(), g.end());
        const long long span = *std::max_element(g.begin(), g.end()) - lo;
        std::fill(next.begin(), next.begin() + (reach + span + 1), 0.0);
        for (int b = 0; b < 4; ++b) {
            const long long d = g[size_t(b)] - lo;
            const double w = bg[size_t(b)];
            for (long long i = 0; i <= reach; ++i) next[size_t(i + d)] += p[size_t(i)] * w;
        }
        reach += span;
        std::swap(p, next);
    }
    s.tail.assign(p.size() + 1, 0.0);
    for (size_t i = p.size(); i-- > 0;) s.tail[i] = std::min(1.0, s.tail[i + 1] + p[i]);
    return s;
}

}  // namespace

BaseWeights uniform_background() { return {0.25, 0.25, 0.25, 0.25}; }

BaseWeights sequence_background(std::string_view bases) {
    // Both strands (an A counts for T too), plus one of each so no base has probability 0.
    std::array<double, 4> n{1, 1, 1, 1};
    for (char c : bases) {
        const int b = motif_base(c);
        if (b < 0) continue;
        n[size_t(b)] += 1;
        n[size_t(3 - b)] += 1;
    }
    const double total = n[0] + n[1] + n[2] + n[3];
    return {n[0] / total, n[1] / total, n[2] / total, n[3] / total};
}

double Pssm::min_score() const {
    double s = 0;
    for (const auto& c : score) s += *std::min_element(c.begin(), c.end());
    return s;
}

double Pssm::max_score() const {
    double s = 0;
    for (const auto& c : score) s += *std::max_element(c.begin(), c.end());
    return s;
}

Pssm make_pssm(const Motif& motif, const BaseWeights& background, double pseudocount) {
    if (!(pseudocount >= 0) || !std::isfinite(pseudocount))
        throw Error("pseudocount " + std::to_string(pseudocount) + ": must be a finite number >= 0");
    double bg_total = 0;
    for (double b : background) {
        if (!(b > 0) || !std::isfinite(b)) throw Error("background frequencies must all be > 0 (A, C, G, T)");
        bg_total += b;
    }
    Pssm p;
    p.id = motif.id;
    p.name = motif.name;
    for (int b = 0; b < 4; ++b) p.background[size_t(b)] = background[size_t(b)] / bg_total;
    for (size_t j = 0; j < motif.counts.size(); ++j) {
        const BaseWeights& c = motif.counts[j];
        const double total = c[0] + c[1] + c[2] + c[3] + 4 * pseudocount;
        BaseWeights col{};
        for (int b = 0; b < 4; ++b) {
            const double prob = (c[size_t(b)] + pseudocount) / total;
            if (!(prob > 0))
                throw Error(motif.source + ": motif '" + motif.id + "' gives base " + kBases[b] + " at position " +
                            std::to_string(j + 1) + " probability 0, so its score would be minus infinity; use a pseudocount > 0");
            col[size_t(b)] = std::log2(prob / p.background[size_t(b)]);
        }
        p.score.push_back(col);
    }
    if (p.score.empty()) throw Error(motif.source + ": motif '" + motif.id + "' has no positions");
    return p;
}

double ScoreDistribution::Strand::pvalue(long long grid_score) const {
    const long long i = grid_score - offset;
    if (i <= 0) return 1.0;
    if (i >= static_cast<long long>(tail.size())) return 0.0;
    return tail[size_t(i)];
}

ScoreDistribution::ScoreDistribution(const Pssm& pssm, int steps_per_bit) {
    if (steps_per_bit < 1) throw Error("score grid: steps_per_bit must be >= 1");
    const double span = pssm.max_score() - pssm.min_score();
    double per_bit = steps_per_bit;
    if (span * per_bit > kMaxGridPoints) per_bit = std::max(1.0, std::floor(kMaxGridPoints / span));
    step_ = 1.0 / per_bit;
    fwd_ = distribution(pssm.score, pssm.background, step_);
    // The reverse strand reads the reverse-complement matrix over the same background: the same
    // distribution where the background is strand-symmetric, its own otherwise.
    rev_ = distribution(reverse_complement(pssm.score), pssm.background, step_);
}

double ScoreDistribution::pvalue(double score) const {
    return fwd_.pvalue(static_cast<long long>(std::ceil(score / step_ - 1e-9)));
}

double ScoreDistribution::threshold(double pvalue) const {
    for (size_t i = 0; i < fwd_.tail.size(); ++i)
        if (fwd_.tail[i] <= pvalue) return double(fwd_.offset + static_cast<long long>(i)) * step_;
    return double(fwd_.offset + static_cast<long long>(fwd_.tail.size())) * step_;
}

std::vector<MotifHit> scan_motif(const Pssm& pssm, const ScoreDistribution& dist, std::string_view bases, double max_pvalue,
                                 double min_score) {
    std::vector<MotifHit> hits;
    const size_t L = pssm.length();
    if (L == 0 || bases.size() < L) return hits;
    const std::vector<BaseWeights> rc = reverse_complement(pssm.score);
    size_t bad_until = 0;  // windows starting before this hold a non-ACGT base
    for (size_t i = 0; i < L - 1; ++i)
        if (motif_base(bases[i]) < 0) bad_until = i + 1;
    for (size_t start = 0; start + L <= bases.size(); ++start) {
        if (motif_base(bases[start + L - 1]) < 0) bad_until = start + L;
        if (start < bad_until) continue;
        for (int strand = 0; strand < 2; ++strand) {
            const auto& m = strand == 0 ? pssm.score : rc;
            const ScoreDistribution::Strand& d = strand == 0 ? dist.forward() : dist.reverse();
            double s = 0;
            long long g = 0;
            for (size_t j = 0; j < L; ++j) {
                const int b = motif_base(bases[start + j]);
                s += m[j][size_t(b)];
                g += d.grid[j][size_t(b)];
            }
            if (s < min_score) continue;
            const double p = d.pvalue(g);
            if (p > max_pvalue) continue;
            hits.push_back({start, strand == 0 ? '+' : '-', s, p});
        }
    }
    return hits;
}

}  // namespace carbon
