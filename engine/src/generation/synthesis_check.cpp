// A sequence checked against a synthesis rule set (carbon/generation/synthesis_rules.h). Each rule
// reports the locations DnaChisel 3.2 reports for its counterpart, quirks included, so the two can
// be compared location for location:
//  - gc: [0, L) when the whole sequence's GC is out of bounds;
//  - gc-window: each out-of-bounds window [s, s+W), or where several, groups of windows whose starts
//    lie less than 50 apart, each [first start, last start + W);
//  - homopolymer: every window of max+1 identical bases (overlapping), on both strands;
//  - repeat: every K-base window whose K-mer (or its reverse complement) occurs elsewhere;
//  - hairpin: for each S-mer at i whose reverse complement starts at j within the window,
//    (i, j + S - 1) (DnaChisel's end, one short of the match's; near the sequence's end, where the
//    window is cut, it counts from the window's full length), grouped by starts less than 10 apart
//    into (first start, the group's last end);
//  - forbid: every occurrence of each site, overlapping, on both strands (once for a palindrome);
//  - length and gc-spread (no DnaChisel counterpart): [0, L), and the span from the first lowest
//    to the first highest window.
#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "carbon/fns/fns.h"
#include "carbon/generation/synthesis_rules.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"

namespace carbon {

namespace {

bool is_gc(char c) { return c == 'G' || c == 'C'; }

std::string pct(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", f * 100.0);
    return b;
}

std::string span_text(size_t begin, size_t end) { return std::to_string(begin + 1) + "-" + std::to_string(end); }

// Starts grouped as DnaChisel's group_nearby_segments(max_start_spread) groups them: a segment
// joins the group while its start lies less than `spread` after the group's first start; each
// group becomes (its first start, its last segment's end).
std::vector<SequenceSpan> group_segments(const std::vector<SequenceSpan>& segments, size_t spread) {
    std::vector<SequenceSpan> out;
    size_t first = 0;
    for (size_t i = 0; i < segments.size(); ++i) {
        if (i == 0 || segments[i].first - segments[first].first >= spread) {
            first = i;
            out.push_back(segments[i]);
        } else {
            out.back().second = segments[i].second;
        }
    }
    return out;
}

std::vector<size_t> window_gc(std::string_view s, size_t w) {
    std::vector<size_t> counts;
    if (s.size() < w) return counts;
    size_t c = 0;
    for (size_t i = 0; i < w; ++i) c += is_gc(s[i]);
    counts.push_back(c);
    for (size_t i = w; i < s.size(); ++i) {
        c += size_t(is_gc(s[i])) - size_t(is_gc(s[i - w]));
        counts.push_back(c);
    }
    return counts;
}

// Out of [min, max] as numpy judges count / n in float64.
bool gc_out(size_t count, size_t n, double min, double max) {
    const double gc = 1.0 * double(count) / double(n);
    return min - gc > 0 || gc - max > 0;
}

void check_gc_window(const SynthesisRule& r, std::string_view s, SynthesisBreach& b) {
    const std::vector<size_t> counts = window_gc(s, r.window);
    std::vector<SequenceSpan> windows;
    size_t worst = 0;
    double worst_gc = 0, worst_excess = -1;
    for (size_t i = 0; i < counts.size(); ++i) {
        if (!gc_out(counts[i], r.window, r.min, r.max)) continue;
        windows.push_back({i, i + r.window});
        const double gc = double(counts[i]) / double(r.window);
        const double excess = std::max(r.min - gc, gc - r.max);
        if (excess > worst_excess) worst_excess = excess, worst = i, worst_gc = gc;
    }
    if (windows.empty()) return;
    b.locations = windows.size() == 1 ? windows : group_segments(windows, 50);
    b.what = std::to_string(windows.size()) + " window" + (windows.size() > 1 ? "s" : "") + " of " + std::to_string(r.window) +
             " bp outside " + pct(r.min) + "-" + pct(r.max) + " GC (worst " + pct(worst_gc) + " at " + span_text(worst, worst + r.window) + ")";
}

void check_gc_spread(const SynthesisRule& r, std::string_view s, SynthesisBreach& b) {
    const std::vector<size_t> counts = window_gc(s, r.window);
    if (counts.empty()) return;
    const size_t lo = size_t(std::min_element(counts.begin(), counts.end()) - counts.begin());
    const size_t hi = size_t(std::max_element(counts.begin(), counts.end()) - counts.begin());
    const double a = 1.0 * double(counts[hi]) / double(r.window), z = 1.0 * double(counts[lo]) / double(r.window);
    if (!(a - z > r.max)) return;
    b.locations = {{std::min(lo, hi), std::max(lo, hi) + r.window}};
    b.what = "GC of " + std::to_string(r.window) + "-bp windows spans " + pct(a - z) + " (" + pct(z) + " at " +
             span_text(lo, lo + r.window) + " to " + pct(a) + " at " + span_text(hi, hi + r.window) + "), more than " + pct(r.max);
}

// Occurrences of an IUPAC pattern, overlapping, as starts.
std::vector<size_t> pattern_starts(std::string_view s, const std::vector<BaseMask>& m) {
    std::vector<size_t> out;
    for (size_t i = 0; i + m.size() <= s.size(); ++i) {
        bool ok = true;
        for (size_t j = 0; j < m.size() && ok; ++j) ok = (iupac_mask(s[i + j]) & m[j]) != 0;
        if (ok) out.push_back(i);
    }
    return out;
}

// Every occurrence of `site` on the top strand, and of its reverse complement unless the site is
// its own (a palindrome is found once), as DnaChisel's AvoidPattern(strand both) finds it.
std::vector<SequenceSpan> site_locations(std::string_view s, const std::string& site) {
    const std::string rc = reverse_complement(site);
    std::vector<SequenceSpan> out;
    for (size_t st : pattern_starts(s, parse_template(site))) out.push_back({st, st + site.size()});
    if (rc != site)
        for (size_t st : pattern_starts(s, parse_template(rc))) out.push_back({st, st + site.size()});
    std::sort(out.begin(), out.end());
    return out;
}

void check_homopolymer(const SynthesisRule& r, std::string_view s, SynthesisBreach& b) {
    std::vector<SequenceSpan> runs;  // for the message
    for (size_t i = 0; i < s.size();) {
        size_t j = i;
        while (j < s.size() && s[j] == s[i]) ++j;
        if (j - i > r.max_run && r.bases.find(s[i]) != std::string::npos) {
            runs.push_back({i, j});
            for (size_t st = i; st + r.max_run + 1 <= j; ++st) b.locations.push_back({st, st + r.max_run + 1});
        }
        i = j;
    }
    if (runs.empty()) return;
    std::sort(b.locations.begin(), b.locations.end());
    const SequenceSpan longest = *std::max_element(runs.begin(), runs.end(), [](const SequenceSpan& x, const SequenceSpan& y) {
        return x.second - x.first < y.second - y.first;
    });
    b.what = std::to_string(runs.size()) + " run" + (runs.size() > 1 ? "s" : "") + " longer than " + std::to_string(r.max_run) +
             " (longest " + std::to_string(longest.second - longest.first) + " " + s[longest.first] + " at " +
             span_text(longest.first, longest.second) + ")";
}

void check_repeat(const SynthesisRule& r, std::string_view s, const std::string& rc, SynthesisBreach& b) {
    const size_t k = r.k, L = s.size();
    if (L < k) return;
    std::vector<std::string_view> canon(L - k + 1);
    std::unordered_map<std::string_view, size_t> counts;
    counts.reserve(2 * canon.size());
    for (size_t i = 0; i + k <= L; ++i) {
        const std::string_view f = s.substr(i, k), v = std::string_view(rc).substr(L - i - k, k);
        canon[i] = std::min(f, v);
        ++counts[canon[i]];
    }
    for (size_t i = 0; i < canon.size(); ++i)
        if (counts[canon[i]] > 1) b.locations.push_back({i, i + k});
    if (b.locations.empty()) return;
    b.what = std::to_string(b.locations.size()) + " " + std::to_string(k) + "-mer" + (b.locations.size() > 1 ? "s" : "") +
             " found twice or more (either strand), the first at " + span_text(b.locations[0].first, b.locations[0].second);
}

void check_hairpin(const SynthesisRule& r, std::string_view s, const std::string& rc, SynthesisBreach& b) {
    const size_t S = r.k, W = r.window, L = s.size();
    if (L <= S) return;
    std::unordered_map<std::string_view, std::vector<size_t>> starts;  // each S-mer's starts, ascending
    for (size_t j = 0; j + S <= L; ++j) starts[s.substr(j, S)].push_back(j);
    std::vector<SequenceSpan> found;
    size_t count = 0;
    SequenceSpan first_pair{0, 0};
    for (size_t i = 0; i + S < L; ++i) {
        const auto it = starts.find(std::string_view(rc).substr(L - i - S, S));  // the word's reverse complement
        if (it == starts.end()) continue;
        const size_t last = std::min(L, i + W) - S;  // the last start the window holds
        const auto& v = it->second;
        auto up = std::upper_bound(v.begin(), v.end(), last);
        if (up == v.begin()) continue;
        const size_t j = *--up;  // DnaChisel takes the match nearest the window's far end
        if (j < i + S) continue;
        const size_t m = L >= i + W ? L - i - W : 0;
        const size_t index = (L - j - S) - m;
        found.push_back({i, i + W - index - 1});
        if (count++ == 0) first_pair = {i, j};
    }
    if (found.empty()) return;
    b.locations = group_segments(found, 10);
    b.what = std::to_string(count) + " stem" + (count > 1 ? "s" : "") + " of " + std::to_string(S) + " bp pairing within " +
             std::to_string(W) + " bp (the first " + span_text(first_pair.first, first_pair.first + S) + " with " +
             span_text(first_pair.second, first_pair.second + S) + ")";
}

}  // namespace

std::vector<SequenceSpan> merged_locations(std::vector<SequenceSpan> locations) {
    std::sort(locations.begin(), locations.end());
    std::vector<SequenceSpan> out;
    for (const SequenceSpan& l : locations) {
        if (!out.empty() && l.first <= out.back().second) out.back().second = std::max(out.back().second, l.second);
        else out.push_back(l);
    }
    return out;
}

std::vector<SynthesisBreach> check_synthesis(const SynthesisRuleSet& rules, std::string_view sequence) {
    std::string s(sequence);
    for (size_t i = 0; i < s.size(); ++i) {
        const char u = char(std::toupper(static_cast<unsigned char>(s[i])));
        if (u != 'A' && u != 'C' && u != 'G' && u != 'T')
            throw Error("position " + std::to_string(i + 1) + " holds '" + visible_text(std::string_view(s).substr(i, 1)) +
                        "': a sequence to synthesise is A, C, G and T only");
        s[i] = u;
    }
    if (s.empty()) throw Error("the sequence is empty");
    const std::string rc = reverse_complement(s);
    std::vector<SynthesisBreach> out;
    for (size_t k = 0; k < rules.rules.size(); ++k) {
        const SynthesisRule& r = rules.rules[k];
        SynthesisBreach b;
        b.rule = k;
        switch (r.kind) {
            case SynthesisRuleKind::Length:
                if (s.size() < r.min_length || s.size() > r.max_length) {
                    b.locations = {{0, s.size()}};
                    b.what = std::to_string(s.size()) + " bases, outside " + std::to_string(r.min_length) + "-" + std::to_string(r.max_length);
                }
                break;
            case SynthesisRuleKind::Gc: {
                size_t c = 0;
                for (char x : s) c += is_gc(x);
                if (gc_out(c, s.size(), r.min, r.max)) {
                    b.locations = {{0, s.size()}};
                    b.what = "GC " + pct(double(c) / double(s.size())) + ", outside " + pct(r.min) + "-" + pct(r.max);
                }
                break;
            }
            case SynthesisRuleKind::GcWindow: check_gc_window(r, s, b); break;
            case SynthesisRuleKind::GcSpread: check_gc_spread(r, s, b); break;
            case SynthesisRuleKind::Homopolymer: check_homopolymer(r, s, b); break;
            case SynthesisRuleKind::Repeat: check_repeat(r, s, rc, b); break;
            case SynthesisRuleKind::Hairpin: check_hairpin(r, s, rc, b); break;
            case SynthesisRuleKind::Forbid: {
                std::string names;
                for (size_t n = 0; n < r.sites.size(); ++n) {
                    const std::vector<SequenceSpan> at = site_locations(s, r.sites[n]);
                    if (at.empty()) continue;
                    b.locations.insert(b.locations.end(), at.begin(), at.end());
                    names += (names.empty() ? "" : ", ") + r.names[n] + " at " + span_text(at[0].first, at[0].second) +
                             (at.size() > 1 ? " (" + std::to_string(at.size()) + "x)" : "");
                }
                std::sort(b.locations.begin(), b.locations.end());
                if (!names.empty()) b.what = names;
                break;
            }
        }
        if (!b.locations.empty()) out.push_back(std::move(b));
    }
    return out;
}

}  // namespace carbon
