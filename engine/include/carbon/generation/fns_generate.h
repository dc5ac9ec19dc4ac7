// Design generation: base-level (FNS) or direct 6-mer, with IUPAC templates, design constraints
// enforced while generating (never filtered afterwards), a left context of any length, a fixed
// right flank that finished designs are scored with and ranked by, and many designs per
// request run as one ragged batch.
#pragma once

#include <atomic>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/fns/fns.h"
#include "carbon/fns/sampling.h"
#include "carbon/motifs/motif.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

enum class GenerationMode { Fns, Direct };
const char* generation_mode_name(GenerationMode mode);

// A transcription-factor matrix no window touching the design may match: no window (either
// strand) that holds a design base scores min_score bits or more with a p-value of max_pvalue or
// less, judged as scan_motif judges it (the window's score on the distribution's 1/1000-bit grid,
// so a design scans clean at that p-value; min_score is rounded up to the grid). `label` names it
// in messages.
struct ForbiddenMatrix {
    Pssm pssm;
    double min_score = -1e300;
    std::string label;
    double max_pvalue = 1.0;
};

// A transcription-factor matrix every design must match: at least one window lying wholly inside
// design positions [from, to) (0-based; to = 0: the design's end) matches on either strand, as
// ForbiddenMatrix defines a match. Enforced while generating: a base is refused when no window of
// the span could still match after it, so the hit is where the model's own choices make one, and
// at the latest in the span's last window.
struct RequiredMatrix {
    Pssm pssm;
    double min_score = -1e300;
    std::string label;
    size_t from = 0, to = 0;
    double max_pvalue = 1.0;
};

// A site every design holds at a fixed place: an enzyme by name (its site: enzymes.h) or an IUPAC
// motif, its first base at 0-based design position `position`, read on the bottom strand when
// `reverse` (its reverse complement written on the top). Written into the template's masks, so the
// generator and DesignChecker hold designs to it as to the template.
struct RequiredSite {
    std::string motif;
    size_t position = 0;
    bool reverse = false;
};

// "EcoRI@12,BsaI@40:-": sites by name or IUPAC motif at 1-based design positions, ":-" for the
// bottom strand (":+" the top, the default), comma-separated; Error naming the item for anything
// else. format_required_sites writes the same form back.
std::vector<RequiredSite> parse_required_sites(const std::string& text);
std::string format_required_sites(const std::vector<RequiredSite>& sites);

struct DesignConstraints {
    int max_homopolymer = 0;                  // longest allowed run of one base; 0 = no limit
    std::vector<std::string> forbidden_motifs;  // IUPAC, checked on both strands
    std::vector<ForbiddenMatrix> forbidden_matrices;
    std::vector<RequiredMatrix> required_matrices;
    std::vector<RequiredSite> required_sites;
    double gc_min = 0.0, gc_max = 1.0;        // GC fraction window over the design
    // Synthesis rules (synthesis_rules.h: add_synthesis_constraints), judged as check_synthesis
    // judges them on every window that holds a design base, reading into the context and the flank:
    int max_run_at = 0, max_run_gc = 0;       // longest run of A or T, of G or C; 0 = no limit
    struct GcWindow {
        size_t window = 0;
        double min = 0.0, max = 1.0;
    };
    std::vector<GcWindow> gc_windows;         // every window's GC fraction within [min, max]
    size_t gc_spread_window = 0;              // the highest window's GC minus the lowest's ...
    double gc_spread_max = 1.0;               // ... at most this (0 window = off)
    size_t unique_kmer = 0;                   // no k-mer twice, either strand (0 = off)
    size_t hairpin_stem = 0, hairpin_window = 0;  // no stem whose reverse complement follows within the window
    std::string synthesis_rules;              // the rule set these came from (its id or file), for the record
    bool active() const {
        return max_homopolymer > 0 || !forbidden_motifs.empty() || !forbidden_matrices.empty() ||
               !required_matrices.empty() || gc_min > 0.0 || gc_max < 1.0 || max_run_at > 0 || max_run_gc > 0 ||
               !gc_windows.empty() || gc_spread_window > 0 || unique_kmer > 0 || hairpin_stem > 0;
    }
};

// Tag guidance. Carbon was trained with and without metadata tags, so a design can be steered by
// two distributions at once: each design runs a second stream in the same batch, and every step
// chooses from the DNA logits
//   Conditional: unconditioned + w * (conditioned - unconditioned)   (the second stream: no tags)
//   Contrastive: positive + w * (positive - negative)                 (the second stream: negative_tags)
// where conditioned / positive is the request's own tags. Conditional w = 0 gives the designs of
// the unconditioned stream and w = 1 those of the conditioned one, exactly; contrastive w = 0 those
// of the positive tags. Masks, templates and constraints apply as usual; design_logp and the ranking
// stay under the request's own tags. Speculative decoding is refused with guidance (its draft
// proposes from one stream, and neither verification can check a draw from the combination).
struct TagGuidance {
    enum class Mode { Off, Conditional, Contrastive };
    Mode mode = Mode::Off;
    double w = 1.0;
    std::string negative_tags;  // Contrastive
    bool active() const { return mode != Mode::Off; }
};
const char* guidance_mode_name(TagGuidance::Mode mode);

struct DesignRequest {
    std::string tags;            // metadata text before <dna> (may be empty)
    std::string left_context;    // bases the designs continue (any length, may be empty)
    std::string right_flank;     // fixed bases after the design, used for scoring and ranking
    size_t length = 0;           // design length in bases (ignored when template_iupac is set)
    std::string template_iupac;  // allowed bases per design position; its length is the length
    size_t count = 1;            // designs; design i draws from Philox stream i (i + k * 2^32 after its k-th restart)
    GenerationMode mode = GenerationMode::Fns;
    SamplingParams sampling;     // FNS: temperature/top-p per base; direct: per 6-mer token
    DesignConstraints constraints;
    size_t max_backtracks = 512;  // per design: 6-mer tokens that may be revisited
    // The model's context in tokens (max_position_embeddings); 0: not checked. What does not
    // fit is trimmed by fit_to_context, each trim with a notice.
    size_t context_tokens = 0;
    // Bases fit_to_context dropped from the far end of the left context as given: messages count
    // context positions from the context as given.
    size_t context_offset = 0;
    TagGuidance guidance;
};

// The one rule that fits a request into the model's context (request.context_tokens; 0 leaves it
// as it is): the tags, <dna> and the design must fit (Error saying how long a design can be);
// when the left context and the right flank (read after the design to rank it) do not both fit,
// the flank keeps at most a quarter of the context unless the left context leaves it more, and
// the left context takes the rest, its nearest bases kept in whole 6-mers from its far end (the
// bases next to the design matter most); a flank longer than its share is cut at its end.
// Trims `request` in place (context_offset counts what the left context lost) and returns one
// notice per trim. generate_designs applies it itself; a caller that stores or scores what the
// model read (the runs) applies it first: a fitted request is left as it is.
std::vector<std::string> fit_to_context(const Tokenizer& tokenizer, DesignRequest& request);

struct Design {
    size_t index = 0;          // position in the request (its random stream)
    std::string bases;         // exactly the requested length
    double design_logp = 0;    // base-level mean log p over the design's bases (FNS marginals)
    double ranking_logp = 0;   // base-level mean log p over design + right flank bases
    int rank = 0;              // 1 = best ranking_logp among the returned designs
    size_t backtracks = 0;     // 6-mer tokens revisited to satisfy the constraints (since the last restart)
    // Times the design was begun again on a fresh random stream after its constraints led it into
    // a dead end backtracking could not leave (at most 8; then the request fails).
    size_t restarts = 0;
    // With guidance: the mean over the design's bases of log p(base | the request's tags) -
    // log p(base | the second stream's tags, or none), the specificity S(x | positive) -
    // S(x | negative) per base averaged; NaN without guidance.
    double specificity = std::numeric_limits<double>::quiet_NaN();
};

struct GenerationProgress {
    size_t bases_done = 0, bases_total = 0;
    double seconds = 0;
    double bases_per_second = 0;
};

struct GenerationCallbacks {
    // Called after every decode step (from the calling thread); return false to cancel.
    std::function<bool(const GenerationProgress&)> progress;
    // Called once per finished design, in rank order, before generate_designs returns.
    std::function<void(const Design&)> on_design;
};

// Speculative decoding with a draft model (Carbon-500M for the 3B / 8B): the draft proposes up
// to k tokens, the target scores them all in one batched pass, and a prefix of them is kept plus
// one token of the target's. Two ways of deciding what is kept (docs/fns.md):
//  - Distribution (the default): speculative sampling. A drafted token x, drawn from q (the
//    draft's distribution as the sampler really draws from it: in FNS mode the product of the six
//    adjusted marginals over the 4,096 6-mers with the template's masks, in direct mode the
//    tempered top-p softmax over the allowed 6-mers), is kept with probability min(1, p(x)/q(x))
//    for the target's p; at the first rejection the token is drawn from the normalised positive
//    part of p - q. The designs are distributed exactly as the target's alone (not the same
//    designs for a seed). Used when sampling (temperature > 0) without sequence-level constraints.
//  - Identical: a drafted token is kept when it equals the choice the target itself makes there
//    (same masks, constraints, search order and Philox draws), on logits the backends compute
//    bit-identically alone or in a batch: the designs are identical, base for base, to the target
//    alone for the same seed. Always used for greedy decoding (where both coincide) and when
//    homopolymer / motif / GC constraints are set (their backtracking search is not a draw from
//    one distribution), and on request.
enum class SpeculativeVerify { Distribution, Identical };
const char* speculative_verify_name(SpeculativeVerify v);

struct SpeculativeConfig {
    Backend* draft = nullptr;             // the draft model's backend
    const Tokenizer* draft_tokenizer = nullptr;
    size_t draft_tokens = 4;              // initial k (tokens proposed per target pass)
    size_t max_draft_tokens = 8;
    bool adaptive = true;                 // grow k after full acceptance, shrink after a miss
    bool auto_disable = true;             // switch speculation off when it measurably does not pay
    size_t draft_context = 0;             // the draft's window in tokens (0: unlimited)
    SpeculativeVerify verify = SpeculativeVerify::Distribution;  // preferred; see above for when it applies
};

struct SpeculativeStats {
    bool used = false;
    SpeculativeVerify verify = SpeculativeVerify::Identical;  // the verification the run used
    bool disabled = false;           // switched off during the run (it did not pay)
    std::string disabled_reason;
    size_t target_passes = 0;        // verification passes (each over all unfinished designs)
    size_t target_rows = 0;          // designs verified, summed over passes
    size_t draft_passes = 0;
    size_t drafted = 0;              // tokens proposed
    size_t accepted = 0;             // proposed tokens the target kept
    size_t tokens = 0;               // tokens produced by speculative rounds
    double seconds_speculative = 0, seconds_plain = 0;
    size_t plain_steps = 0;          // plain (non-speculative) decode steps, incl. the measurement
    double acceptance_rate() const { return drafted ? double(accepted) / double(drafted) : 0.0; }
    // Tokens each design gains per verification pass (1 = no gain over plain decoding).
    double tokens_per_target_pass() const { return target_rows ? double(tokens) / double(target_rows) : 0.0; }
    // Measured speed-up over the target alone: speculative tokens/s over plain decode steps/s.
    double speedup() const {
        if (!plain_steps || !tokens || seconds_speculative <= 0 || seconds_plain <= 0) return 0.0;
        return (double(tokens) / seconds_speculative) / (double(plain_steps) / seconds_plain);
    }
};

struct GenerationResult {
    std::vector<Design> designs;  // ranked, best first
    bool cancelled = false;
    std::vector<std::string> notices;  // context characters upper-cased / not ACGT, etc.
    SpeculativeStats speculative;
};

// Validates the request up front (template letters, lengths, motifs, constraints that the fixed
// template bases already violate, a GC window the template cannot meet): Error naming the
// position. Then generates. Error when constraints leave no way to continue within the
// backtracking budget, naming the design position.
// With `speculative` (and its draft set), the draft proposes tokens the target verifies; Error
// when draft and target do not share the DNA token ids or the prompt's token ids.
GenerationResult generate_designs(Backend& backend, const Tokenizer& tokenizer, const DesignRequest& request,
                                  const GenerationCallbacks& callbacks = {},
                                  const SpeculativeConfig* speculative = nullptr);

// The memory plan of a request, made before any work: every design's KV cache (prompt, design,
// flank and </dna>) on the target and the draft, plus the rows each design keeps per step; and what
// the backend can still allocate. generate_designs refuses a request that needs more than is
// available (Error with both numbers, memory_refusal); a caller may ask first, to show the estimate
// or have a large run confirmed. Validates the request as generate_designs does.
struct GenerationMemory {
    double need = 0;       // bytes
    size_t available = 0;  // bytes (SIZE_MAX when unknown)
    size_t designs = 0, design_bases = 0;  // the request as planned
    size_t context_bases = 0, flank_bases = 0;  // the left context and right flank, as fitted to the model
    bool fits() const { return need <= double(available); }
};
GenerationMemory generation_memory(Backend& backend, const Tokenizer& tokenizer, const DesignRequest& request,
                                   const SpeculativeConfig* speculative = nullptr);
// The message a request that does not fit is refused with: what it needs, what is available, and
// what to do.
std::string memory_refusal(const GenerationMemory& memory);

}  // namespace carbon
