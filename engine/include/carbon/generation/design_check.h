// The constraints of a design request checked on a whole design (the same rules generation
// enforces base by base: template, homopolymer runs, forbidden motifs and matrices, including
// windows across the junctions with the left context and the right flank, required matrices in
// their spans, the GC window). For optimisers that edit finished designs (directed evolution)
// and for checking what was made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

struct Plan;

class DesignChecker {
public:
    // `request`: left_context, right_flank, template_iupac (or length) and constraints; Error for
    // a request no design can satisfy, as generate_designs refuses it.
    DesignChecker(const Tokenizer& tokenizer, const DesignRequest& request);
    ~DesignChecker();
    DesignChecker(DesignChecker&&) noexcept;
    size_t length() const;
    // The template's allowed bases at design position i (a BaseMask: A, C, G, T bits).
    BaseMask allowed(size_t i) const;
    // Whether `design` (length() upper-case bases) keeps every constraint; the first design
    // position where one breaks in `where` (the design's end for a required matrix never matched).
    bool allows(const std::string& design, size_t* where = nullptr) const;
    const std::vector<std::string>& notices() const { return notices_; }

private:
    std::unique_ptr<Plan> plan_;
    DesignConstraints constraints_;
    std::string context_tail_;
    std::vector<std::string> notices_;
};

}  // namespace carbon
