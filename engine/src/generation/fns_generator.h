// The design generator behind generate_designs (fns_generate.h), internal to the engine: the
// per-design state, one decode step's data, and the Generator that runs a request. Its plain
// rounds and the run live in fns_generate.cpp, speculative rounds in fns_speculative.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "carbon/backend.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/tokenizer/tokenizer.h"
#include "design_plan.h"

namespace carbon::detail {

constexpr size_t kHistoryDepth = 16;  // tokens a design can step back

// Philox "step" ranges of speculative sampling's own draws, apart from the target's own choices
// (which use steps 0 .. 2 * n_tokens): per design stream and generated token.
constexpr uint64_t kDraftDraws = uint64_t(1) << 40;     // the draft's proposal
constexpr uint64_t kAcceptDraws = uint64_t(2) << 40;    // accept with probability min(1, p/q)
constexpr uint64_t kResidualDraws = uint64_t(3) << 40;  // the token drawn from (p - q)+ at a rejection

struct Step {
    Marginals choice{};  // masked marginals used to choose (FNS mode)
    Marginals plain{};   // unmasked marginals (scores)
    std::vector<float> logits;  // direct mode: the DNA logits, to choose again after a backtrack
    std::set<int> excluded;     // 6-mers that led to dead ends
    std::vector<float> own_p, other_p;  // tag guidance: the two streams' 6-mer probabilities
};

struct DesignState {
    SeqId seq = -1;
    SeqId guide_seq = -1;            // tag guidance: the second stream (fns_generate.h TagGuidance)
    std::vector<double> specificity; // tag guidance: per generated position, the streams' chain-rule log p difference
    SeqId draft_seq = -1;
    std::vector<int32_t> draft_kv;  // ids the draft's cache holds after its prefix (see draft_catch_up)
    size_t draft_dropped = 0;       // DNA tokens of prompt+generation left out of the draft's window
    std::vector<int> tokens;    // chosen 6-mer indices
    std::string seq_bases;      // head + generated bases so far (6 per chosen token)
    std::deque<Step> history;   // data of the last steps; back() is the step being chosen
    std::vector<double> logp;   // per generated position: log p of the chosen base (plain marginal)
    size_t backtracks = 0;
    size_t restarts = 0;        // times the design was begun again from its first base (see choose)
    int32_t pending = -1;       // vocabulary id to forward next
    // The Philox stream of the design's draws: its index, and after a restart a stream of its own.
    uint64_t stream(size_t design_index) const { return uint64_t(design_index) + (uint64_t(restarts) << 32); }
};

// A design whose constraints lead it into a dead end its backtracking cannot leave (window rules
// such as a GC spread set by bases far behind) is begun again on a fresh stream, this many times
// at most, before the request fails. Not with a draft model (speculative decoding): its cache
// follows the target's tokens, and whether speculation is still on when a dead end comes depends
// on measured speed, so a request would succeed or fail by timing; there a dead end fails it.
constexpr size_t kMaxRestarts = 8;

class Generator {
public:
    Generator(Backend& be, const Tokenizer& tok, const DesignRequest& r, const Plan& p, const SpeculativeConfig* spec)
        : be_(be), tok_(tok), r_(r), p_(p), c_(r.constraints), spec_(spec) {
        if (spec_) k_ = std::clamp<size_t>(spec_->draft_tokens, 1, std::max<size_t>(1, spec_->max_draft_tokens));
        distribution_ = spec_ && spec_->verify == SpeculativeVerify::Distribution && r.sampling.temperature > 0 && !c_.active();
        prefix_len_ = p.prefix_len;
    }

    GenerationResult run(const GenerationCallbacks& cb, std::vector<std::string> notices);

private:
    size_t abs_index(size_t gen_pos) const { return p_.abs_index(gen_pos); }

    // Checks the constraints for the base just appended at generated position `gen_pos`.
    bool base_ok(const DesignState& d, size_t gen_pos) const { return constraints_allow(p_, c_, d.seq_bases, gen_pos); }
    bool choose_fns(DesignState& d, Step& st, size_t step, size_t design_index);
    bool choose_direct(DesignState& d, Step& st, size_t step, size_t design_index);
    void choose(DesignState& d, size_t design_index);
    void restart(DesignState& d);
    Step first_step_;  // step 0's data, the same for every design: where a restart begins
    // Speculative sampling (Distribution verification): the distribution over the 4,096 6-mers
    // the sampler draws step `step` from, and taking 6-mer `index` as that step's token.
    std::vector<double> token_distribution(const Step& st, size_t step) const;
    void commit(DesignState& d, const Step& st, int index) const;
    Step make_step(size_t step, const float* logits, size_t width) const;
    // Tag guidance: a step chosen from the two streams' combined logits, scored on the request's
    // own (`own`).
    Step make_guided_step(size_t step, const float* own, const float* other, size_t width) const;
    void push_guided_step(DesignState& d, const float* own, const float* other, size_t width);
    // Tag guidance: the chosen 6-mer's per-base log p(base | tags) - log p(base | other stream).
    void note_specificity(DesignState& d, const Step& st) const;
    // The six base masks of token step `step`, and a step's data from the backend's FNS row.
    std::array<BaseMask, 6> step_masks(size_t step) const;
    Step fns_step_data(size_t step, const FnsRow& row) const;
    void push_step(DesignState& d, const float* logits, size_t width);
    bool finished(const DesignState& d) const { return d.tokens.size() >= p_.n_tokens; }
    void plain_round(std::vector<DesignState>& ds, ForwardOutput& out);
    void speculative_round(std::vector<DesignState>& ds, ForwardOutput& out);
    void draft_catch_up(std::vector<DesignState>& ds, std::vector<size_t>& active, ForwardOutput& out);

    Backend& be_;
    const Tokenizer& tok_;
    const DesignRequest& r_;
    const Plan& p_;
    const DesignConstraints& c_;
    const SpeculativeConfig* spec_ = nullptr;
    bool spec_on_ = false;
    bool distribution_ = false;  // speculative sampling (else verification by identity)
    size_t k_ = 4;
    SpeculativeStats stats_;
    size_t prefix_len_ = 0;  // prompt tokens up to and including <dna> (kept in the draft's window)
};

}  // namespace carbon::detail
