// DesignChecker (carbon/generation/design_check.h): the request's plan, and constraints_allow at
// every design position of a whole design.
#include "carbon/generation/design_check.h"

#include <cctype>

#include "design_plan.h"

namespace carbon {

DesignChecker::DesignChecker(const Tokenizer& tokenizer, const DesignRequest& request)
    : plan_(std::make_unique<Plan>(make_plan(tokenizer, request, notices_))), constraints_(request.constraints) {
    // The context bases after the prompt's whole 6-mers (the first generated token's fixed part).
    std::string ctx = request.left_context;
    for (char& c : ctx) c = char(std::toupper(static_cast<unsigned char>(c)));
    context_tail_ = ctx.substr(ctx.size() - std::min(ctx.size(), plan_->tail_len));
}

DesignChecker::~DesignChecker() = default;
DesignChecker::DesignChecker(DesignChecker&&) noexcept = default;

size_t DesignChecker::length() const { return plan_->design_len; }

BaseMask DesignChecker::allowed(size_t i) const { return plan_->masks.at(plan_->tail_len + i); }

bool DesignChecker::allows(const std::string& design, size_t* where) const {
    const Plan& p = *plan_;
    if (design.size() != p.design_len) {
        if (where) *where = std::min(design.size(), p.design_len);
        return false;
    }
    const std::string s = p.head + context_tail_ + design;
    for (size_t i = 0; i < p.design_len; ++i) {
        const size_t gen_pos = p.tail_len + i;
        const int code = base_code(design[i]);
        if (code < 0 || (base_bit(code) & p.masks[gen_pos]) == 0 || !constraints_allow(p, constraints_, s, gen_pos)) {
            if (where) *where = i;
            return false;
        }
    }
    return true;
}

}  // namespace carbon
