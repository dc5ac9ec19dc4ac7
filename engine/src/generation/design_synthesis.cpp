// Synthesis rules enforced while generating (design_plan.h: synthesis_windows_allow). Each check
// looks at what the base just placed completes: the run it extends, the GC windows, k-mers and
// hairpin stems that end at it (at the design's last base also those reaching into the right
// flank), judged as check_synthesis (synthesis_check.cpp) judges the whole sequence, so a design
// made under a rule set passes that rule set's check.
#include <algorithm>
#include <utility>
#include <vector>
#include <string_view>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"
#include "design_plan.h"

namespace carbon {

namespace {

bool is_gc(char c) { return c == 'G' || c == 'C'; }

double gc_fraction(size_t count, size_t n) { return 1.0 * double(count) / double(n); }

size_t gc_count(std::string_view s, size_t begin, size_t n) {
    size_t c = 0;
    for (size_t i = begin; i < begin + n; ++i) c += is_gc(s[i]);
    return c;
}

// Whether the k-mer at `st` occurs at another start t (t + k <= s.size()), on either strand.
bool kmer_repeats(std::string_view s, size_t st, size_t k) {
    const std::string_view w = s.substr(st, k);
    const std::string rc = reverse_complement(w);
    for (size_t t = 0; t + k <= s.size(); ++t) {
        if (t == st) continue;
        const std::string_view x = s.substr(t, k);
        if (x == w || x == rc) return true;
    }
    return false;
}

// Whether the S-mer at j pairs with an S-mer at i, j - W + S <= i <= j - S (DnaChisel's hairpin:
// the reverse complement of the word at i starts at least S and at most W - S after it), i within
// [i_min, i_max] (the pairs that hold a design base).
bool stem_pairs(std::string_view s, size_t j, size_t S, size_t W, size_t i_min, size_t i_max) {
    if (j < S) return false;
    const std::string rc = reverse_complement(s.substr(j, S));
    const size_t lo = std::max(i_min, j + S >= W ? j + S - W : 0), hi = std::min(i_max, j - S);
    for (size_t i = lo; i <= hi; ++i)
        if (s.substr(i, S) == rc) return true;
    return false;
}

// The smallest and largest G/C count a window of `w` may hold under [min, max] as check_synthesis
// judges count / w; lo > hi when none.
std::pair<size_t, size_t> allowed_counts(size_t w, double min, double max) {
    size_t lo = 0, hi = w;
    while (lo <= w && min - gc_fraction(lo, w) > 0) ++lo;
    while (hi > 0 && gc_fraction(hi, w) - max > 0) --hi;
    if (gc_fraction(hi, w) - max > 0) return {1, 0};  // not even 0 G/C fits
    return {lo, hi};
}

// Looking ahead: every window of `w` bases that holds the base at `a` and ends after it (in the
// design still to come, or in the right flank) can still reach a G/C count within
// [want_lo, want_hi], given what is placed, the flank's fixed bases and what the template allows
// in the design positions still open. Without it a window that runs into the flank is judged only
// at the design's last base, when nothing but backtracking 6-mer by 6-mer can mend it.
// With the design's GC asked for (p.gc_lo..p.gc_hi), the open positions in a window give at most
// what the design's count still allows after the open positions outside it give their least, and
// at least what it still needs after those give their most.
bool open_windows_reachable(const Plan& p, std::string_view s, size_t a, size_t w, size_t want_lo, size_t want_hi) {
    const size_t d0 = p.abs_index(p.tail_len), d_end = d0 + p.design_len;  // the design's bases: [d0, d_end)
    const size_t total = d_end + p.flank.size();
    const bool design_gc = p.gc_lo > 0 || p.gc_hi < int(p.design_len);
    int g = 0;  // the design's G/C so far
    if (design_gc)
        for (size_t i = d0; i <= a; ++i) g += is_gc(s[i]);
    // The known G/C of each window: the placed part by a running count from the first start, the
    // flank's part by a prefix sum (a window holding `a` starts before the flank), O(w) in all.
    const size_t first = a + 1 >= w ? a + 1 - w : 0;
    size_t placed = 0;
    for (size_t i = first; i <= a; ++i) placed += is_gc(s[i]);
    std::vector<size_t> flank_gc(std::min(p.flank.size(), w) + 1, 0);
    for (size_t i = 0; i + 1 < flank_gc.size(); ++i) flank_gc[i + 1] = flank_gc[i] + is_gc(p.flank[i]);
    for (size_t start = first; start <= a; placed -= is_gc(s[start]), ++start) {
        const size_t end = start + w;  // exclusive
        if (end <= a + 1 || end > total) continue;  // complete (judged when it completed) or past the flank
        const size_t known = placed + (end > d_end ? flank_gc[end - d_end] : 0);
        const size_t open_from = a + 1 - d0, open_to = std::min(end, d_end) - d0;  // design positions still open
        int in_lo = p.gc_min_after[open_from] - p.gc_min_after[open_to], in_hi = p.gc_max_after[open_from] - p.gc_max_after[open_to];
        if (design_gc) {
            in_lo = std::max(in_lo, p.gc_lo - g - p.gc_max_after[open_to]);
            in_hi = std::min(in_hi, p.gc_hi - g - p.gc_min_after[open_to]);
            if (in_lo > in_hi) return false;
        }
        const size_t lo = known + size_t(in_lo), hi = known + size_t(in_hi);
        if (std::max(lo, want_lo) > std::min(hi, want_hi)) return false;
    }
    return true;
}

}  // namespace

void check_synthesis_constraints(const DesignConstraints& c) {
    if (c.max_run_at < 0 || c.max_run_gc < 0) throw Error("the longest allowed run must be >= 1 (0 = no limit)");
    for (const DesignConstraints::GcWindow& g : c.gc_windows)
        if (g.window < 2 || !(g.min >= 0.0 && g.max <= 1.0 && g.min <= g.max))
            throw Error("a GC window rule needs a window of 2 bases or more and 0 <= min <= max <= 1");
    if (c.gc_spread_window == 1 || !(c.gc_spread_max >= 0.0 && c.gc_spread_max <= 1.0))
        throw Error("a GC spread rule needs a window of 2 bases or more and a spread between 0 and 1");
    if (c.unique_kmer == 1) throw Error("a repeat rule needs k of 2 bases or more");
    if (c.hairpin_stem && 2 * c.hairpin_stem > c.hairpin_window)
        throw Error("a hairpin stem of " + std::to_string(c.hairpin_stem) + " does not fit twice in a window of " +
                    std::to_string(c.hairpin_window));
}

bool synthesis_windows_allow(const Plan& p, const DesignConstraints& c, const std::string& bases, size_t a, bool last) {
    const bool any_window = !c.gc_windows.empty() || c.gc_spread_window || c.unique_kmer || c.hairpin_stem;
    if (!any_window && !c.max_run_at && !c.max_run_gc) return true;
    // The known sequence: up to and including `a`, and at the last base the flank after it.
    std::string joined;
    std::string_view s = std::string_view(bases).substr(0, a + 1);
    if (last && !p.flank.empty()) {
        joined.assign(s);
        joined += p.flank;
        s = joined;
    }
    const size_t end_max = s.size() - 1;  // windows end from a to here
    const char b = s[a];
    const int limit = (b == 'A' || b == 'T') ? c.max_run_at : c.max_run_gc;
    if (limit > 0) {
        size_t run = 1;
        for (size_t i = a; i-- > 0 && s[i] == b;) ++run;
        for (size_t i = a + 1; i < s.size() && s[i] == b; ++i) ++run;
        if (run > size_t(limit)) return false;
    }
    for (const DesignConstraints::GcWindow& g : c.gc_windows) {
        for (size_t e = a; e <= end_max; ++e) {
            if (e + 1 < g.window || e + 1 - g.window > a) continue;
            const double f = gc_fraction(gc_count(s, e + 1 - g.window, g.window), g.window);
            if (g.min - f > 0 || f - g.max > 0) return false;
        }
        if (!last) {
            const auto [lo, hi] = allowed_counts(g.window, g.min, g.max);
            if (!open_windows_reachable(p, s, a, g.window, lo, hi)) return false;
        }
    }
    if (c.gc_spread_window) {
        // Every complete window that holds a design base.
        const size_t w = c.gc_spread_window, d0 = p.abs_index(p.tail_len);
        const size_t first_end = std::max(d0, w - 1);
        if (first_end <= end_max) {
            size_t cnt = gc_count(s, first_end + 1 - w, w), lo = cnt, hi = cnt;
            for (size_t e = first_end + 1; e <= end_max && e + 1 - w <= a; ++e) {
                cnt += size_t(is_gc(s[e])) - size_t(is_gc(s[e - w]));
                lo = std::min(lo, cnt);
                hi = std::max(hi, cnt);
            }
            if (gc_fraction(hi, w) - gc_fraction(lo, w) > c.gc_spread_max) return false;
            if (!last) {
                // The windows still open must land within the spread of those complete.
                size_t want_lo = 0, want_hi = w;
                while (want_lo <= w && gc_fraction(hi, w) - gc_fraction(want_lo, w) > c.gc_spread_max) ++want_lo;
                while (want_hi > 0 && gc_fraction(want_hi, w) - gc_fraction(lo, w) > c.gc_spread_max) --want_hi;
                if (!open_windows_reachable(p, s, a, w, want_lo, want_hi)) return false;
                // With the design's GC asked for too: the design positions still open hold, in
                // each stretch of w, at most want_hi and (when whole) at least want_lo G/C (the
                // limits only narrow as windows complete), which must leave the design's count
                // reachable.
                if (p.gc_lo > 0 || p.gc_hi < int(p.design_len)) {
                    const size_t open = d0 + p.design_len - (a + 1);
                    int g = 0;
                    for (size_t i = d0; i <= a; ++i) g += is_gc(s[i]);
                    const size_t chunks = (open + w - 1) / w;
                    const int most = int(std::min<size_t>({open, chunks * want_hi, size_t(p.gc_max_after[a + 1 - d0])}));
                    const int least = int(std::max<size_t>((open / w) * want_lo, size_t(p.gc_min_after[a + 1 - d0])));
                    if (g + most < p.gc_lo || g + least > p.gc_hi) return false;
                }
            }
        }
    }
    const size_t d0 = p.abs_index(p.tail_len);  // the design's first base
    if (c.unique_kmer) {
        // The k-mer ending here against those before it; at the last base every k-mer that holds a
        // design base again, now that the flank's k-mers are known too.
        const size_t k = c.unique_kmer;
        if (!last || joined.empty()) {
            if (a + 1 >= k && kmer_repeats(s, a + 1 - k, k)) return false;
        } else {
            for (size_t st = d0 + 1 >= k ? d0 + 1 - k : 0; st <= a && st + k <= s.size(); ++st)
                if (kmer_repeats(s, st, k)) return false;
        }
    }
    if (c.hairpin_stem) {
        // Stems whose downstream word ends here (at the last base, also in the flank); a pair of
        // words in the context and the flank alone holds no design base and is not the design's.
        const size_t S = c.hairpin_stem;
        for (size_t e = a; e <= end_max; ++e) {
            if (e + 1 < S) continue;
            const size_t j = e + 1 - S;
            const size_t i_min = j <= a ? 0 : (d0 + 1 >= S ? d0 + 1 - S : 0);
            if (stem_pairs(s, j, S, c.hairpin_window, i_min, a)) return false;
        }
    }
    return true;
}

}  // namespace carbon
