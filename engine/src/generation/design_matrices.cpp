// Matrix design constraints on the scan's grid (see design_matrices.h).
#include "design_matrices.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

namespace {

// The best grid entry of column j on strand s among the bases a template mask allows.
long long best_allowed(const MatrixGrid& m, int s, size_t j, BaseMask allowed) {
    long long best = LLONG_MIN / 4;
    for (int b = 0; b < 4; ++b) {
        const int code = base_code("ACGT"[b]);
        if (code >= 0 && (allowed & base_bit(code))) best = std::max(best, m.grid[size_t(s)][j][size_t(b)]);
    }
    return best;
}

}  // namespace

bool MatrixGrid::matches(const char* w) const {
    for (int s = 0; s < 2; ++s) {
        long long sum = 0;
        for (size_t j = 0; j < length; ++j) sum += grid[size_t(s)][j][size_t(motif_base(w[j]))];
        if (sum >= min_sum[size_t(s)]) return true;
    }
    return false;
}

MatrixGrid matrix_grid(const Pssm& pssm, double min_score, double max_pvalue, const std::string& what) {
    const size_t L = pssm.length();
    if (L == 0 || L > 64) throw Error(what + " must have 1-64 positions");
    const ScoreDistribution dist(pssm);
    MatrixGrid g;
    g.length = L;
    for (int s = 0; s < 2; ++s) {
        const ScoreDistribution::Strand& st = s == 0 ? dist.forward() : dist.reverse();
        g.grid[size_t(s)] = st.grid;
        long long best = 0, worst = 0;
        for (const auto& col : st.grid) {
            best += *std::max_element(col.begin(), col.end());
            worst += *std::min_element(col.begin(), col.end());
        }
        g.best[size_t(s)] = best;
        g.worst[size_t(s)] = worst;
        long long t = min_score < -1e299 ? worst : (long long)std::ceil(min_score / dist.step() - 1e-6);
        if (max_pvalue < 1.0) {  // the lowest sum whose p-value (monotone in the sum) is at most max_pvalue
            long long lo = worst, hi = best + 1;
            while (lo < hi) {
                const long long mid = lo + (hi - lo) / 2;
                if (st.pvalue(mid) <= max_pvalue) hi = mid;
                else lo = mid + 1;
            }
            t = std::max(t, lo);
        }
        g.min_sum[size_t(s)] = t;
    }
    return g;
}

bool matrix_hit_ends_at(const MatrixGrid& m, const std::string& s, const std::string& flank, size_t a, bool last) {
    const size_t L = m.length;
    auto at = [&](size_t i) { return i < s.size() ? s[i] : flank[i - s.size()]; };
    const size_t known = last ? s.size() + flank.size() : a + 1;
    const size_t last_end = last ? std::min(known - 1, a + L - 1) : a;
    char w[64];
    for (size_t end = a; end <= last_end; ++end) {
        if (end + 1 < L) continue;
        bool scored = true;
        for (size_t j = 0; j < L && scored; ++j) {
            w[j] = at(end + 1 - L + j);
            scored = motif_base(w[j]) >= 0;  // an N in the context: no score is defined for this window
        }
        if (scored && m.matches(w)) return true;
    }
    return false;
}

RequiredSpan plan_required(const RequiredMatrix& f, const std::vector<BaseMask>& design) {
    const std::string what = "required matrix " + f.label;
    RequiredSpan r;
    r.m = matrix_grid(f.pssm, f.min_score, f.max_pvalue, what);
    const size_t L = r.m.length, n = design.size();
    r.from = f.from;
    r.to = f.to ? f.to : n;
    if (r.from >= r.to || r.to > n || r.to - r.from < L)
        throw Error(what + ": its span, design positions " + std::to_string(r.from + 1) + "-" + std::to_string(r.to) +
                    ", must lie inside the " + std::to_string(n) + " bp design and hold its " + std::to_string(L) +
                    " positions");
    if (r.m.best[0] < r.m.min_sum[0] && r.m.best[1] < r.m.min_sum[1])
        throw Error(what + ": its threshold is above the highest score the matrix gives, so no window can match");
    r.open_from.assign(r.to + 1, 0);
    for (size_t w = r.to - L + 1; w-- > r.from;) {
        bool could = false;
        for (int s = 0; s < 2 && !could; ++s) {
            long long sum = 0;
            for (size_t j = 0; j < L; ++j) sum += best_allowed(r.m, s, j, design[w + j]);
            could = sum >= r.m.min_sum[size_t(s)];
        }
        r.open_from[w] = r.open_from[w + 1] || could;
    }
    if (!r.open_from[r.from])
        throw Error(what + ": the template allows no window of design positions " + std::to_string(r.from + 1) + "-" +
                    std::to_string(r.to) + " to reach its threshold");
    return r;
}

bool required_still_possible(const RequiredSpan& r, std::span<const BaseMask> design_masks, const std::string& s,
                             size_t i, size_t a) {
    if (i < r.from || i >= r.to || r.open_from[i + 1]) return true;
    const size_t L = r.m.length, first_design = a - i;
    for (size_t w = std::min(i, r.to - L) + 1; w-- > r.from;) {
        for (int st = 0; st < 2; ++st) {
            long long sum = 0;
            bool scored = true;
            for (size_t j = 0; j < L && scored; ++j) {
                if (w + j <= i) {  // a base already chosen
                    const int b = motif_base(s[first_design + w + j]);
                    scored = b >= 0;
                    if (scored) sum += r.m.grid[size_t(st)][j][size_t(b)];
                } else {  // the best the template allows there
                    sum += best_allowed(r.m, st, j, design_masks[w + j]);
                }
            }
            if (scored && sum >= r.m.min_sum[size_t(st)]) return true;
        }
    }
    return false;
}

}  // namespace carbon
