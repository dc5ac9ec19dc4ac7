// Variant effects and saturation mutagenesis on top of score_mutants (see variants.h).
#include "carbon/scoring/variants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"

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
    const size_t q = position - r.window.start;
    const std::string alt_allele(1, a);
    const SiteEffects e = score_site(backend, tokenizer, sequence.substr(r.window.start, r.window.end - r.window.start), q, q + 1,
                                     std::span(&alt_allele, 1), options, progress);
    r.cancelled = e.cancelled;
    if (e.cancelled) return r;
    r.site_log_odds = e.alleles[0].site_log_odds;
    r.window_delta = e.alleles[0].window_delta;
    r.window_delta_rc = e.alleles[0].window_delta_rc;
    r.window_delta_mean = e.alleles[0].window_delta_mean;
    return r;
}

SiteEffects score_site(Backend& backend, const Tokenizer& tokenizer, std::string_view window, size_t begin, size_t end,
                       std::span<const std::string> alts, const VariantOptions& options, const ScoreProgress& progress,
                       bool share_prefix) {
    const size_t n = window.size();
    if (begin > end || end > n)
        throw Error("variant site " + std::to_string(begin + 1) + "-" + std::to_string(end) + " is outside its window (" +
                    std::to_string(n) + " bp)");
    const ScoreOptions so = base_level(options.scoring);
    std::vector<AlleleChange> fwd(alts.size());
    for (size_t i = 0; i < alts.size(); ++i) fwd[i] = {begin, end, alts[i]};
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
    SiteEffects r;
    const AlleleScores f = score_alleles(backend, tokenizer, window, fwd, so, strand_progress(0), share_prefix);
    r.reference_tokens = f.reference_tokens;
    r.alt_tokens = f.alt_tokens;
    if (f.cancelled) {
        r.cancelled = true;
        return r;
    }
    const char site = end == begin + 1 ? upper(window[begin]) : 0;
    r.alleles.resize(alts.size());
    for (size_t i = 0; i < alts.size(); ++i) {
        AlleleEffect& e = r.alleles[i];
        const char a = alts[i].size() == 1 ? upper(alts[i][0]) : 0;
        e.site_log_odds = (site && a && base_code(site) >= 0 && base_code(a) >= 0)
                              ? logp_of(f.reference.track[begin], site) - logp_of(f.reference.track[begin], a)
                              : kNaN;
        e.window_delta = f.base_mean_logp[i] - f.reference.base_mean_logp;
        e.window_delta_rc = kNaN;
        e.window_delta_mean = e.window_delta;
    }
    if (options.reverse_complement) {
        // The same change on the other strand: bases [n - end, n - begin), complemented alleles.
        std::string up(window);
        for (char& c : up) c = upper(c);
        const std::string rc = reverse_complement(up);
        std::vector<AlleleChange> rev(alts.size());
        for (size_t i = 0; i < alts.size(); ++i) {
            std::string alt(alts[i]);
            for (char& c : alt) c = upper(c);
            rev[i] = {n - end, n - begin, reverse_complement(alt)};
        }
        const AlleleScores b = score_alleles(backend, tokenizer, rc, rev, so, strand_progress(1), share_prefix);
        r.reference_tokens += b.reference_tokens;
        r.alt_tokens += b.alt_tokens;
        if (b.cancelled) {
            r.cancelled = true;
            return r;
        }
        for (size_t i = 0; i < alts.size(); ++i) {
            r.alleles[i].window_delta_rc = b.base_mean_logp[i] - b.reference.base_mean_logp;
            r.alleles[i].window_delta_mean = 0.5 * (r.alleles[i].window_delta + r.alleles[i].window_delta_rc);
        }
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
