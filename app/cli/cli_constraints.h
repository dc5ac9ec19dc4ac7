// The design constraints of a carbon-cli command line, one parser for every command that designs
// (generate, evolve): --max-homopolymer N, --forbid MOTIF,MOTIF, --forbid-matrices FILE
// [--forbid-pvalue P], --require-matrices FILE [--require-pvalue P] [--require-within FROM-TO],
// --gc MIN-MAX (fractions or percentages).
#pragma once

#include "carbon/generation/fns_generate.h"
#include "cli_args.h"

namespace carbon::cli {

// Error naming the option and what it takes for anything malformed.
DesignConstraints design_constraints_from_args(const Args& a);

}  // namespace carbon::cli
