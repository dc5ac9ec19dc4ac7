// A design request made concrete (internal to the engine): the prompt, the per-position base
// masks and the constraint tables every design of the request shares, and the check of the
// constraints at each generated base. See fns_generate.h for the request itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "carbon/fns/fns.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/tokenizer/tokenizer.h"
#include "design_matrices.h"

namespace carbon {

// What every design of a request shares: prompt, masks, constraint tables.
struct Plan {
    std::vector<int32_t> prompt;  // tags + <dna> + the context's whole 6-mers
    std::vector<int32_t> guide_prompt;  // tag guidance: the second stream's (no tags, or the negative ones)
    size_t prefix_len = 0;        // prompt tokens up to and including <dna>
    std::string head;             // upper-cased context bases covered by the prompt's 6-mers
    size_t tail_len = 0;          // context bases after them (0..5): fixed bases of the first token
    size_t design_len = 0;
    size_t gen_len = 0;           // tail_len + design_len
    size_t n_tokens = 0;          // ceil(gen_len / 6)
    std::vector<BaseMask> masks;  // per generated position (tail, then design)
    std::string flank;            // upper-cased right flank
    std::vector<std::vector<BaseMask>> motifs;  // forbidden patterns, both strands
    int gc_lo = 0, gc_hi = 0;
    std::vector<int> gc_min_after, gc_max_after;  // G/C still forced / possible after design position i
    std::vector<MatrixGrid> forbidden_matrices;  // on the scan's grid (design_matrices.h)
    std::vector<RequiredSpan> required_matrices;

    // Generated position -> absolute index in a design's bases (head + generated).
    size_t abs_index(size_t gen_pos) const { return head.size() + gen_pos; }
    bool is_design(size_t gen_pos) const { return gen_pos >= tail_len && gen_pos < gen_len; }
};

// Validates the request against the tokenizer's prompt layout and the model's context, and
// builds its plan; trims the left context or the right flank when they do not fit, with a line
// in `notices`. Throws Error for a request no design can satisfy (the template breaks a
// constraint, the GC window allows no count, ...).
Plan make_plan(const Tokenizer& tok, const DesignRequest& r, std::vector<std::string>& notices);

// Whether the constraints hold for the base just appended at generated position `gen_pos` of
// `bases` (head + generated so far): the homopolymer run, the forbidden motifs and matrices on
// windows ending there (at the design's last base also those reaching into the right flank),
// whether the GC window can still be met, and whether each required matrix can still be matched
// inside its span.
bool constraints_allow(const Plan& p, const DesignConstraints& c, const std::string& bases, size_t gen_pos);

// The synthesis-rule part of constraints_allow (design_synthesis.cpp): runs of A/T and G/C, GC
// windows and their spread, repeated k-mers and hairpin stems completed by the base at absolute
// index `a` (at the design's last base, `last`, also those reaching into the right flank).
bool synthesis_windows_allow(const Plan& p, const DesignConstraints& c, const std::string& bases, size_t a, bool last);
// Refuses synthesis constraints that cannot be met or make no sense (a stem that cannot fit its window).
void check_synthesis_constraints(const DesignConstraints& c);

}  // namespace carbon
