// Sequence scoring: per-base FNS tracks, base-level and token-level sequence scores, sliding
// windows for sequences longer than the context, incremental rescoring after an edit, and
// single-base mutants sharing the reference's KV prefix. Backend-independent (Backend + Tokenizer).
//
// Conventions (docs/fns.md):
// - Input is [tags]<dna>SEQUENCE</dna>. The logits at the position of token t-1 predict token t;
//   base i lies in 6-mer target k = i / 6 at offset i % 6.
// - Base-level numbers use p_t normalized over the 4,096 6-mers (fns.h): logp of the observed base
//   is log of its FNS marginal; NaN for a non-ACGT base (its 6-mer is <oov>); padding bases of the
//   last 6-mer get no entry. base_mean_logp is the mean over the ACGT bases.
// - Token-level: log-softmax over the full vocabulary, mean over the targets from the first 6-mer
//   through </dna> inclusive (the reference score(); metadata tags are context, never targets).
// - Windows (sequence longer than the context): W 6-mer tokens per window, O overlap; window w
//   starts at 6-mer w*(W-O) and, except the first, its first O tokens are context only, so every
//   target after the first window is predicted with at least O tokens (6*O bp) of left context.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/backend.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

// Called between forward passes on the scoring thread with (done, total) in the unit the
// function states; returning false cancels (the result says so). To cancel from another thread,
// let the callback read a std::atomic<bool> that thread sets.
using ScoreProgress = std::function<bool(size_t done, size_t total)>;

struct ScoreOptions {
    std::string tags;          // metadata text placed before <dna> (may be empty)
    bool token_score = true;   // also the token-level score; needs the full-vocabulary head
    bool per_base_track = true;  // keep the per-base track (the means are computed either way)
    // Per-base values from the chain rule within each 6-mer (fns_conditionals: each base's
    // distribution given the bases before it in its token) instead of the FNS marginals; a token's
    // per-base log p then sum to its log p. What a specificity track compares (docs/fns.md).
    bool conditional_bases = false;
    // The model's context in tokens (ModelConfig::max_position_embeddings, after YaRN). Needed
    // for the default window; 0 is allowed only with window_tokens set.
    size_t context_tokens = 0;
    size_t window_tokens = 0;                  // 6-mer tokens per window; 0: context - tags - 2
    std::optional<size_t> overlap_tokens;      // context-only tokens per window; default W/4
    size_t chunk_tokens = 512;                 // tokens per forward pass (progress, memory)
    size_t max_sequences = 32;                 // backend sequences in flight in one batch
};

// The window layout a scoring call uses (after defaults).
struct WindowLayout {
    size_t prefix_tokens = 0;   // metadata tags + <dna>
    size_t window_tokens = 0;   // W
    size_t overlap_tokens = 0;  // O
};
// Error when the window does not fit the context or the overlap is not below the window.
WindowLayout window_layout(const Tokenizer& tokenizer, const ScoreOptions& options);

// One input base. p is the FNS marginal in base-code order A, T, C, G (fns.h); the CLI prints it
// in A, C, G, T order.
struct BaseScore {
    float logp = 0.f;  // log p(observed base); NaN for a non-ACGT base
    std::array<float, 4> p{};
    float entropy_bits = 0.f;
};

struct SequenceScore {
    size_t length = 0;         // input bases
    size_t bases_scored = 0;   // ACGT bases (the base-level denominator)
    double base_mean_logp = 0;   // NaN when no base is ACGT
    size_t tokens_scored = 0;    // token-level targets (6-mers and </dna>); 0 when not computed
    double token_mean_logp = 0;  // NaN when ScoreOptions::token_score is off
    std::vector<BaseScore> track;  // one entry per input base (empty without per_base_track)
    std::vector<DnaNotice> notices;  // lowercase upper-cased, non-ACGT characters (<oov>)
    size_t windows = 0;          // model windows the sequence needed
    WindowLayout layout;
    bool cancelled = false;      // stopped by the progress callback; numbers are incomplete
};

// Scores one sequence. Progress: (bases done, bases total).
SequenceScore score_sequence(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence,
                             const ScoreOptions& options, const ScoreProgress& progress = {});

// Scores several sequences, batching short ones into the same forward passes (at most
// chunk_tokens tokens and max_sequences sequences per pass). Results in input order. Progress:
// (bases done, bases total) over all sequences.
std::vector<SequenceScore> score_sequences(Backend& backend, const Tokenizer& tokenizer,
                                           std::span<const std::string> sequences, const ScoreOptions& options,
                                           const ScoreProgress& progress = {});

// The specificity of a sequence between two tag sets, per base: S(x | positive) - S(x | negative),
// each base's log p by the chain rule within its 6-mer (ScoreOptions::conditional_bases) under each,
// as tag guidance measures its designs (fns_generate.h Design::specificity). NaN where a base has
// no score. Two scoring passes with `options` (its tags and per-base settings replaced). Progress:
// (bases done, bases total) over both passes; an empty result when cancelled.
std::vector<float> specificity_track(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence,
                                     const std::string& positive_tags, const std::string& negative_tags,
                                     ScoreOptions options, const ScoreProgress& progress = {});

// Rescoring after edits. Keeps one backend sequence (the KV cache of the last window computed),
// the previous tokens and results; rescore() truncates the cache to the first changed 6-mer and
// computes only the targets from there (earlier targets' values are reused), and windows the edit
// does not reach (long sequences) are reused whole. Results equal score_sequence up to float
// rounding. Not thread-safe; one scorer per backend user.
class IncrementalScorer {
public:
    IncrementalScorer(Backend& backend, const Tokenizer& tokenizer, ScoreOptions options);
    ~IncrementalScorer();
    IncrementalScorer(const IncrementalScorer&) = delete;
    IncrementalScorer& operator=(const IncrementalScorer&) = delete;

    // Progress: (bases recomputed so far, bases to recompute).
    const SequenceScore& rescore(std::string_view sequence, const ScoreProgress& progress = {});
    const SequenceScore& result() const { return result_; }
    // Tokens the last rescore() forwarded through the network.
    size_t recomputed_tokens() const { return recomputed_tokens_; }
    // Forgets the previous sequence (keeps nothing cached).
    void reset();

private:
    Backend& backend_;
    const Tokenizer& tokenizer_;
    ScoreOptions options_;
    WindowLayout layout_;
    SeqId seq_ = -1;
    std::vector<int32_t> cache_tokens_;  // what seq_'s KV cache holds
    std::string upper_;                  // previous sequence, upper-cased
    std::vector<int32_t> dna_;           // its 6-mer/<oov> tokens
    std::vector<double> token_logp_;     // per target (6-mers then </dna>)
    bool valid_ = false;
    SequenceScore result_;
    size_t recomputed_tokens_ = 0;
};

// A single-base substitution (0-based position; base A, C, G or T, either case).
struct Mutation {
    size_t position = 0;
    char base = 'A';
};

struct MutantScores {
    SequenceScore reference;             // the reference, track included
    std::vector<double> base_mean_logp;  // S(mutant) per mutation, input order (base-level mean)
    size_t mutant_tokens = 0;            // tokens forwarded for all mutants together
    bool cancelled = false;
};

// Base-level score S of every single-base mutant of `reference`, each exactly as if scored alone
// with score_sequence, but forked from the reference's KV cache truncated before the mutated 6-mer
// (mutants run in descending position order, so one cache serves all by truncation) and batched:
// a mutant costs only the tokens from its 6-mer onward. Token-level scores are not computed for
// mutants. Progress: (tokens forwarded, tokens planned) over the reference and all mutants.
MutantScores score_mutants(Backend& backend, const Tokenizer& tokenizer, std::string_view reference,
                           std::span<const Mutation> mutations, const ScoreOptions& options,
                           const ScoreProgress& progress = {});

// A change to a reference sequence: its bases [begin, end) replaced by `alt` (any length, letters as
// the tokenizer reads them; an empty alt deletes, begin == end inserts). 0-based.
struct AlleleChange {
    size_t begin = 0, end = 0;
    std::string alt;
};

struct AlleleScores {
    SequenceScore reference;             // the reference, track included
    std::vector<double> base_mean_logp;  // S(alternative) per change, input order (base-level mean)
    size_t reference_tokens = 0;         // tokens forwarded for the reference
    size_t alt_tokens = 0;               // tokens forwarded for all alternatives together
    bool cancelled = false;
};

// Base-level score S of each alternative sequence (the reference with one change applied), each
// as score_sequence would give it alone. With share_prefix, an alternative forks the reference's KV
// cache before its first changed 6-mer and forwards only the tokens from there (its earlier
// targets are the reference's); without, it is scored from its first token (the plain method,
// for comparison). Token-level scores are not computed. Progress: (tokens forwarded, tokens
// planned) over the reference and all alternatives.
AlleleScores score_alleles(Backend& backend, const Tokenizer& tokenizer, std::string_view reference,
                           std::span<const AlleleChange> changes, const ScoreOptions& options,
                           const ScoreProgress& progress = {}, bool share_prefix = true);

}  // namespace carbon
