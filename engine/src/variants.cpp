// Variant effects and saturation mutagenesis on top of score_mutants (see variants.h).
#include "carbon/variants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "carbon/common.h"
#include "carbon/fns.h"

namespace carbon {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kMinProb = 1e-12f;  // as in scoring.cpp: the reference score_sequence() clamp

char upper(char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; }

std::string shown(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return (u >= 0x20 && u < 0x7f) ? std::string("'") + c + "'" : "byte " + std::to_string(int(u));
}

double logp_of(const BaseScore& b, char base) { return std::log(double(std::max(b.p[size_t(base_code(base))], kMinProb))); }

ScoreOptions base_level(const ScoreOptions& o) {
    ScoreOptions s = o;
    s.token_score = false;
    s.per_base_track = true;
    return s;
}

}  // namespace

ScoringWindow centred_window(size_t n, size_t a, size_t b, size_t window_bp) {
    if (b - a >= window_bp) return {a, b};
    const long long left = (long long)((window_bp - (b - a)) / 2);
    const long long start = (long long)a - left;
    const long long end = start + (long long)window_bp;
    return {size_t(std::max(0LL, start)), size_t(std::min((long long)n, end))};
}

VariantScore score_variant(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence, size_t position,
                           char stated_ref, char alt, const VariantOptions& options, const ScoreProgress& progress) {
    const size_t n = sequence.size();
    if (position >= n)
        throw Error("variant position " + std::to_string(position + 1) + " is outside the sequence (length " +
                    std::to_string(n) + ")");
    const char actual = upper(sequence[position]);
    if (stated_ref && upper(stated_ref) != actual)
        throw Error("variant at position " + std::to_string(position + 1) + ": the stated reference base is " +
                    shown(stated_ref) + " but the sequence has " + shown(sequence[position]));
    if (base_code(actual) < 0)
        throw Error("variant at position " + std::to_string(position + 1) + ": the sequence has " + shown(sequence[position]) +
                    ", not A, C, G or T, so the site has no base-level score");
    const char a = upper(alt);
    if (base_code(a) < 0) throw Error("variant alternative base " + shown(alt) + " is not A, C, G or T");
    if (a == actual) throw Error("variant at position " + std::to_string(position + 1) + ": the alternative base equals the reference (" + std::string(1, a) + ")");
    if (options.window_bp == 0) throw Error("variant scoring window must be at least 1 bp");

    VariantScore r;
    r.position = position;
    r.ref = actual;
    r.alt = a;
    r.window = centred_window(n, position, position + 1, options.window_bp);
    const std::string win = std::string(sequence.substr(r.window.start, r.window.end - r.window.start));
    const size_t q = position - r.window.start;
    const ScoreOptions so = base_level(options.scoring);
    // Both strands cost about the same: the second strand's total is taken to be the first's.
    const size_t strands = options.reverse_complement ? 2 : 1;
    size_t first_total = 0;
    auto strand_progress = [&](size_t strand) -> ScoreProgress {
        if (!progress) return {};
        return [&, strand](size_t done, size_t total) {
            if (strand == 0) first_total = total;
            const size_t all = std::max(first_total, total) * strands;
            return progress(std::min(all, strand * first_total + done), all);
        };
    };

    const Mutation fwd{q, a};
    MutantScores m = score_mutants(backend, tokenizer, win, std::span(&fwd, 1), so, strand_progress(0));
    if (m.cancelled) {
        r.cancelled = true;
        return r;
    }
    const BaseScore& site = m.reference.track[q];
    r.site_log_odds = logp_of(site, actual) - logp_of(site, a);
    r.window_delta = m.base_mean_logp[0] - m.reference.base_mean_logp;
    r.window_delta_rc = kNaN;
    r.window_delta_mean = r.window_delta;
    if (options.reverse_complement) {
        // The same site on the other strand: position len-1-q, complemented bases.
        std::string up = win;
        for (char& c : up) c = upper(c);
        const std::string rc = reverse_complement(up);
        const Mutation rev{win.size() - 1 - q, reverse_complement(std::string(1, a))[0]};
        MutantScores mr = score_mutants(backend, tokenizer, rc, std::span(&rev, 1), so, strand_progress(1));
        if (mr.cancelled) {
            r.cancelled = true;
            return r;
        }
        r.window_delta_rc = mr.base_mean_logp[0] - mr.reference.base_mean_logp;
        r.window_delta_mean = 0.5 * (r.window_delta + r.window_delta_rc);
    }
    return r;
}

IsmResult saturation_mutagenesis(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence, size_t start,
                                 size_t end, const IsmOptions& options, const ScoreProgress& progress) {
    const size_t n = sequence.size();
    if (start >= end || end > n)
        throw Error("mutagenesis region " + std::to_string(start + 1) + "-" + std::to_string(end) +
                    (start >= end ? " is empty" : " is outside the sequence (length " + std::to_string(n) + ")"));
    if (options.window_bp == 0) throw Error("mutagenesis scoring window must be at least 1 bp");
    IsmResult r;
    r.window = centred_window(n, start, end, options.window_bp);
    const std::string win(sequence.substr(r.window.start, r.window.end - r.window.start));
    const ScoreOptions so = base_level(options.scoring);
    static constexpr char kUserOrder[4] = {'A', 'C', 'G', 'T'};

    // The entries (scores filled below), skipping positions without an A/C/G/T reference.
    std::vector<Mutation> mutations;
    for (size_t pos = start; pos < end; ++pos) {
        const char ref = upper(sequence[pos]);
        if (base_code(ref) < 0) {
            ++r.skipped_non_acgt;
            continue;
        }
        for (char alt : kUserOrder) {
            if (alt == ref) continue;
            r.entries.push_back({pos, ref, alt, kNaN});
            mutations.push_back({pos - r.window.start, alt});
        }
    }
    if (r.entries.empty()) return r;

    if (!options.exact) {
        const SequenceScore s = score_sequence(backend, tokenizer, win, so, progress);
        if (s.cancelled) {
            r.cancelled = true;
            return r;
        }
        for (IsmEntry& e : r.entries) {
            const BaseScore& b = s.track[e.position - r.window.start];
            e.score = logp_of(b, e.alt) - logp_of(b, e.ref);
        }
        return r;
    }
    MutantScores m = score_mutants(backend, tokenizer, win, mutations, so, progress);
    r.mutant_tokens = m.mutant_tokens;
    if (m.cancelled) {
        r.cancelled = true;
        return r;
    }
    for (size_t i = 0; i < r.entries.size(); ++i) r.entries[i].score = m.base_mean_logp[i] - m.reference.base_mean_logp;
    return r;
}

}  // namespace carbon
