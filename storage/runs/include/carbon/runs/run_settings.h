// What a run stores as its settings: key/value text, every setting that changes its output, so a
// run can be reproduced from its project months later. The mapping from a design request is one
// function, so that carbon-cli and the application store the same keys for the same request.
// Engine types only: available where storage is not built.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "carbon/generation/fns_generate.h"

namespace carbon::runs {

// Key/value settings of a run, stored verbatim with it.
using RunSettings = std::vector<std::pair<std::string, std::string>>;

// Every setting of a design request that changes its output (left context and flank included).
RunSettings generation_settings(const DesignRequest& request);
// The speculative decoding figures of a run (nothing when no draft was used).
RunSettings speculative_settings(const SpeculativeStats& stats);

}  // namespace carbon::runs
