// Transcription-factor matrices as design constraints (forbidden, required; fns_generate.h),
// judged exactly as scan_motif judges a window: each strand's matrix rounded to its score
// distribution's grid, a window's grid sum against the lowest sum whose p-value is at most the
// matrix's max_pvalue (and at least min_score bits). So a design the constraints pass scans as
// carbon-cli motifs scan and the application report it, to the last window. Internal to the engine.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/motifs/motif.h"

namespace carbon {

struct MatrixGrid {
    size_t length = 0;
    std::array<std::vector<std::array<long long, 4>>, 2> grid;  // [strand][column][A C G T], read along the sequence
    std::array<long long, 2> min_sum{};                          // strand s matches at a grid sum >= min_sum[s]
    std::array<long long, 2> best{};                             // the highest grid sum on each strand
    std::array<long long, 2> worst{};                            // the lowest

    // Whether the window of `length` bases at `w` (A/C/G/T) matches on either strand.
    bool matches(const char* w) const;
};

// The grids of `pssm` with its thresholds: min_score in bits (rounded up to the grid) and, when
// max_pvalue < 1, the p-value as scan_motif computes it. `what` names the matrix in errors
// (length outside 1-64).
MatrixGrid matrix_grid(const Pssm& pssm, double min_score, double max_pvalue, const std::string& what);

// Whether a window of m ending at index a of s (and, when `last`, one reaching on into `flank`)
// matches. Windows holding an N are not scored.
bool matrix_hit_ends_at(const MatrixGrid& m, const std::string& s, const std::string& flank, size_t a, bool last);

// A required matrix made concrete: its grids, its span [from, to) in design positions, and
// open_from[w]: whether a window of the span starting at w or later could match with the bases
// the template allows (to + 1 entries).
struct RequiredSpan {
    MatrixGrid m;
    size_t from = 0, to = 0;
    std::vector<char> open_from;
};

// Throws Error naming the matrix when its span is outside the design or too short, or no window
// of it can match under the template `design` (one mask per design position).
RequiredSpan plan_required(const RequiredMatrix& f, const std::vector<BaseMask>& design);

// Whether r can still be matched inside its span after the base at design position i, absolute
// index a of s: a window starting later could (template alone), or one starting at or before i
// does or could with the best allowed bases after i (design_masks: one per design position).
bool required_still_possible(const RequiredSpan& r, std::span<const BaseMask> design_masks, const std::string& s,
                             size_t i, size_t a);

}  // namespace carbon
