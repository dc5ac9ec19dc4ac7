// The design constraints of a carbon-cli command line, one parser for every command that designs
// (generate, evolve): --max-homopolymer N, --forbid MOTIF,MOTIF, --forbid-matrices FILE
// [--forbid-pvalue P], --require-matrices FILE [--require-pvalue P] [--require-within FROM-TO],
// --gc MIN-MAX (fractions or percentages), --rules SET|FILE (a synthesis rule set enforced while
// generating: synthesis_rules.h).
#pragma once

#include "carbon/generation/fns_generate.h"
#include "cli_args.h"

namespace carbon::cli {

// Error naming the option and what it takes for anything malformed.
DesignConstraints design_constraints_from_args(const Args& a);
// With --rules: a note on stderr when the design's length is outside the rule set's length rule.
void say_synthesis_length(const Args& a, size_t design_length);

}  // namespace carbon::cli
