// Variant effects from base-level (FNS) scores: one substitution (site log-odds and windowed
// delta, optionally averaged with the reverse complement) and in-silico saturation mutagenesis of
// a region (fast: marginal log-odds from one pass; exact: every mutant rescored). Positions are
// 0-based here; error messages name them 1-based, as users see them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/scoring/scoring.h"

namespace carbon {

// [start, end) in bases.
struct ScoringWindow {
    size_t start = 0, end = 0;
};
// `window_bp` bases centred on [a, b) (the whole region when it is longer), clipped to [0, n).
ScoringWindow centred_window(size_t n, size_t a, size_t b, size_t window_bp);

struct VariantOptions {
    ScoreOptions scoring;          // tags, context, windows, batching (token_score is not used)
    size_t window_bp = 8192;       // the window S is computed over, centred on the site
    bool reverse_complement = false;  // also compute the delta on the window's reverse complement
};

struct VariantScore {
    size_t position = 0;
    char ref = 0, alt = 0;
    ScoringWindow window;
    // log p(ref) - log p(alt) from the FNS marginal at the site, with the reference window as
    // input (positive: the model prefers the reference).
    double site_log_odds = 0;
    double window_delta = 0;     // S(alt window) - S(ref window), S = base-level mean logp
    double window_delta_rc = 0;  // the same on the reverse-complemented windows; NaN without rc
    double window_delta_mean = 0;  // (delta + delta_rc) / 2 with rc, else delta
    bool cancelled = false;
};

// The effects of one site's alternative alleles (any lengths) on a scoring window.
struct AlleleEffect {
    // log p(ref) - log p(alt) from the FNS marginal at the site with the reference window as input,
    // for single-base substitutions of an A/C/G/T base; NaN otherwise.
    double site_log_odds = 0;
    double window_delta = 0;       // S(alt window) - S(ref window), S = base-level mean logp
    double window_delta_rc = 0;    // the same on the reverse-complemented windows; NaN without rc
    double window_delta_mean = 0;  // (delta + delta_rc) / 2 with rc, else delta
};

struct SiteEffects {
    std::vector<AlleleEffect> alleles;  // in the order of the alternatives
    size_t reference_tokens = 0;        // tokens forwarded for the reference window(s)
    size_t alt_tokens = 0;              // tokens forwarded for the alternatives
    bool cancelled = false;
};

// `window` is the scoring window itself (centred_window chooses it); its bases [begin, end) are
// replaced by each of `alts` (the reference allele's span, which may be empty for an insertion).
// Each alternative forks the reference's cache before its first changed 6-mer (score_alleles);
// share_prefix false scores each alternative whole instead (the plain method, for comparison).
// options.window_bp is not used. Progress: (tokens forwarded, tokens planned).
SiteEffects score_site(Backend& backend, const Tokenizer& tokenizer, std::string_view window, size_t begin, size_t end,
                       std::span<const std::string> alts, const VariantOptions& options, const ScoreProgress& progress = {},
                       bool share_prefix = true);

// `stated_ref` 0 skips the check; otherwise it must equal the sequence's base (either case):
// Error naming the position, the stated and the actual base. The site's base must be A/C/G/T and
// alt a different one of them. Progress: (tokens forwarded, tokens planned).
VariantScore score_variant(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence, size_t position,
                           char stated_ref, char alt, const VariantOptions& options, const ScoreProgress& progress = {});

struct IsmOptions {
    ScoreOptions scoring;     // tags, context, windows, batching (token_score is not used)
    size_t window_bp = 8192;  // the scoring window, centred on the region (covers it entirely)
    bool exact = false;       // rescore every mutant instead of the one-pass marginal log-odds
};

struct IsmEntry {
    size_t position = 0;  // 0-based in the sequence
    char ref = 0, alt = 0;
    // fast: log p(alt) - log p(ref) from the marginal at the base (reference input);
    // exact: S(mutant) - S(reference) over the window. Positive: the mutant is more likely.
    double score = 0;
};

struct IsmResult {
    std::vector<IsmEntry> entries;  // by position, then alt in A, C, G, T order
    ScoringWindow window;
    size_t skipped_non_acgt = 0;    // region positions whose reference base is not A/C/G/T
    size_t mutant_tokens = 0;       // exact mode: tokens forwarded for the mutants
    bool cancelled = false;
};

// Every position of [start, end) times its three alternative bases. Progress: fast mode (bases
// scored, bases total); exact mode (tokens forwarded, tokens planned), as score_mutants.
IsmResult saturation_mutagenesis(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence, size_t start,
                                 size_t end, const IsmOptions& options, const ScoreProgress& progress = {});

}  // namespace carbon
