// Design generation (see fns_generate.h). Each design is one backend sequence forked from the
// shared prompt; every decode step chooses one 6-mer per design and runs all designs as one
// ragged batch. Choice within a 6-mer is a depth-first search over its six bases in the order
// the sampler prefers them, so when no constraint binds the first leaf is exactly the
// unconstrained FNS choice; when a whole 6-mer fails, the design backtracks one token (KV
// cache truncated) with that 6-mer excluded. Speculative rounds: fns_speculative.cpp.
#include "carbon/generation/fns_generate.h"

#include "carbon/support/host_memory.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "carbon/model_catalog.h"
#include "fns_generator.h"

namespace carbon {

const char* generation_mode_name(GenerationMode m) { return m == GenerationMode::Fns ? "fns" : "direct"; }

const char* guidance_mode_name(TagGuidance::Mode m) {
    return m == TagGuidance::Mode::Conditional ? "conditional" : m == TagGuidance::Mode::Contrastive ? "contrastive" : "off";
}

const char* speculative_verify_name(SpeculativeVerify v) {
    return v == SpeculativeVerify::Distribution ? "distribution" : "identical";
}

namespace detail {

std::array<BaseMask, 6> Generator::step_masks(size_t step) const {
    std::array<BaseMask, 6> mask;
    for (size_t j = 0; j < 6; ++j) {
        const size_t g = step * 6 + j;
        mask[j] = g < p_.gen_len ? p_.masks[g] : kAnyBase;
    }
    return mask;
}

Step Generator::fns_step_data(size_t step, const FnsRow& row) const {
    if (row.masked_total <= 0.0)
        throw Error("the model gives zero probability to every 6-mer the template allows at design position " +
                    std::to_string(step * 6 + 1 > p_.tail_len ? step * 6 + 1 - p_.tail_len : 1));
    Step st;
    st.plain = row.plain;
    st.choice = row.masked;
    return st;
}

Step Generator::make_step(size_t step, const float* logits, size_t width) const {
    if (r_.mode == GenerationMode::Fns) return fns_step_data(step, fns_row_on_host(logits, width, step_masks(step)));
    Step st;
    std::vector<float> probs(width);
    dna_softmax(std::span<const float>(logits, width), probs);
    st.plain = fns_marginals(probs);
    st.logits.assign(logits, logits + width);
    return st;
}

void Generator::push_step(DesignState& d, const float* logits, size_t width) {
    d.history.push_back(make_step(d.tokens.size(), logits, width));
    if (d.history.size() > kHistoryDepth) d.history.pop_front();
}

Step Generator::make_guided_step(size_t step, const float* own, const float* other, size_t width) const {
    const TagGuidance& g = r_.guidance;
    std::vector<float> mixed(width);
    // Conditional: other + w (own - other); contrastive: own + w (own - other). In double, so that
    // the ends are exact: conditional w = 0 is `other` and w = 1 `own`, contrastive w = 0 `own`.
    const bool conditional = g.mode == TagGuidance::Mode::Conditional;
    for (size_t v = 0; v < width; ++v) {
        const double a = own[v], b = other[v];
        mixed[v] = g.w == 0 ? float(conditional ? b : a)
                   : conditional && g.w == 1 ? own[v]
                                             : float((conditional ? b : a) + g.w * (a - b));
    }
    Step st = make_step(step, mixed.data(), width);
    st.own_p.resize(width);
    st.other_p.resize(width);
    dna_softmax(std::span<const float>(own, width), st.own_p);
    dna_softmax(std::span<const float>(other, width), st.other_p);
    st.plain = fns_marginals(st.own_p);  // scores: under the request's own tags
    return st;
}

void Generator::note_specificity(DesignState& d, const Step& st) const {
    // The chain rule within the 6-mer (fns_conditionals): per base, log p(base | the bases before it).
    const int v = d.tokens.back();
    const Marginals a = fns_conditionals(st.own_p, v), b = fns_conditionals(st.other_p, v);
    for (size_t j = 0; j < 6; ++j) {
        const size_t c = size_t(kmer_base(v, int(j)));
        d.specificity.push_back(std::log(double(a[j][c])) - std::log(double(b[j][c])));
    }
}

void Generator::push_guided_step(DesignState& d, const float* own, const float* other, size_t width) {
    d.history.push_back(make_guided_step(d.tokens.size(), own, other, width));
    if (d.history.size() > kHistoryDepth) d.history.pop_front();
}

bool Generator::choose_fns(DesignState& d, Step& st, size_t step, size_t design_index) {
    // Depth-first over the six bases; on each level the sampler's pick comes first, then the
    // pick again among what is left (a sample from the restricted distribution).
    std::array<float, 6> u{};
    for (size_t j = 0; j < 6; ++j)
        u[j] = r_.sampling.temperature > 0 ? uniform01(r_.sampling.seed, d.stream(design_index), 2 * step + j / 4, uint32_t(j % 4)) : 0.f;
    int index = 0;
    std::function<bool(size_t)> dfs = [&](size_t j) -> bool {
        if (j == 6) return !st.excluded.count(index);
        const size_t g = step * 6 + j;
        const BaseMask allowed = g < p_.gen_len ? p_.masks[g] : kAnyBase;
        BaseMask tried = 0;
        for (;;) {
            const BaseMask left = BaseMask(allowed & ~tried);
            if (!left) return false;
            auto q = adjust_base_distribution(st.choice[j], left, r_.sampling.temperature, r_.sampling.top_p);
            int b = pick_base(q, u[j]);
            if (b < 0) {  // what is left has no mass (outside the nucleus or zero): most likely first
                for (int c = 0; c < 4; ++c)
                    if ((left >> c & 1) && (b < 0 || st.choice[j][size_t(c)] > st.choice[j][size_t(b)])) b = c;
            }
            tried |= base_bit(b);
            d.seq_bases.push_back(kKmerBases[size_t(b)]);
            index = index * 4 + b;
            if (base_ok(d, g) && dfs(j + 1)) return true;
            index /= 4;
            d.seq_bases.pop_back();
        }
    };
    const size_t before = d.seq_bases.size();
    if (dfs(0)) {
        d.tokens.push_back(index);
        return true;
    }
    d.seq_bases.resize(before);
    return false;
}

bool Generator::choose_direct(DesignState& d, Step& st, size_t step, size_t design_index) {
    std::vector<float> cand(st.logits.size(), -std::numeric_limits<float>::infinity());
    size_t n_cand = 0;
    for (int v = 0; v < kNumKmers; ++v) {
        if (st.excluded.count(v)) continue;
        bool ok = true;
        for (size_t j = 0; j < 6 && ok; ++j) {
            const size_t g = step * 6 + j;
            ok = g >= p_.gen_len || (p_.masks[g] >> kmer_base(v, int(j)) & 1);
        }
        if (ok) cand[size_t(v)] = st.logits[size_t(v)], ++n_cand;
    }
    const float u = r_.sampling.temperature > 0 ? uniform01(r_.sampling.seed, d.stream(design_index), step, 0) : 0.f;
    while (n_cand > 0) {
        const int v = int(sample_index(cand, r_.sampling, u));
        if (!std::isfinite(cand[size_t(v)])) break;
        const size_t before = d.seq_bases.size();
        bool ok = true;
        size_t j = 0;
        for (; j < 6 && ok; ++j) {
            d.seq_bases.push_back(kKmerBases[size_t(kmer_base(v, int(j)))]);
            ok = base_ok(d, step * 6 + j);
        }
        if (ok) {
            d.tokens.push_back(v);
            return true;
        }
        d.seq_bases.resize(before);
        // A base is judged on the bases before it alone, so every 6-mer that shares the failing
        // prefix (the first j bases) fails too: all leave the candidates at once (else a step
        // where thousands fail samples thousands of times), and the rest are sampled again.
        const int shift = 2 * (6 - int(j));
        const int first = (v >> shift) << shift, last = first + (1 << shift);
        for (int x = first; x < last; ++x)
            if (std::isfinite(cand[size_t(x)])) {
                cand[size_t(x)] = -std::numeric_limits<float>::infinity();
                --n_cand;
            }
    }
    return false;
}

void Generator::choose(DesignState& d, size_t design_index) {
    for (;;) {
        const size_t step = d.tokens.size();
        Step& st = d.history.back();
        const bool ok = r_.mode == GenerationMode::Fns ? choose_fns(d, st, step, design_index)
                                                       : choose_direct(d, st, step, design_index);
        if (ok) {
            d.pending = tok_.kmer_id(d.tokens.back());
            for (size_t j = 0; j < 6; ++j) d.logp.push_back(std::log(double(st.plain[j][size_t(kmer_base(d.tokens.back(), int(j)))])));
            if (r_.guidance.active()) note_specificity(d, st);
            return;
        }
        const size_t design_pos = step * 6 >= p_.tail_len ? step * 6 - p_.tail_len + 1 : 1;
        if (step > 0 && (d.history.size() < 2 || d.backtracks >= r_.max_backtracks) && d.restarts < kMaxRestarts && !spec_) {
            restart(d);
            continue;
        }
        if (step == 0 || d.history.size() < 2 || d.backtracks >= r_.max_backtracks)
            throw Error("design " + std::to_string(design_index + 1) + ": the constraints cannot be met at design position " +
                        std::to_string(design_pos) + " (after " + std::to_string(d.backtracks) + " backtracked 6-mers" +
                        (d.restarts ? " and " + std::to_string(d.restarts) + " fresh starts" : std::string()) +
                        "): no base sequence allowed by the template avoids the forbidden motifs and matrices, the "
                        "homopolymer limit, the GC window and the synthesis rules there");
        // Step back one token: forget this step, exclude the previous choice, drop it from the cache.
        d.history.pop_back();
        const int prev = d.tokens.back();
        d.tokens.pop_back();
        d.seq_bases.resize(d.seq_bases.size() - 6);
        d.logp.resize(d.logp.size() - 6);
        d.history.back().excluded.insert(prev);
        be_.truncate_sequence(d.seq, p_.prompt.size() + d.tokens.size());
        if (r_.guidance.active()) {
            d.specificity.resize(d.specificity.size() - 6);
            be_.truncate_sequence(d.guide_seq, p_.guide_prompt.size() + d.tokens.size());
        }
        ++d.backtracks;
    }
}

void Generator::restart(DesignState& d) {
    d.tokens.clear();
    d.seq_bases = p_.head;
    d.logp.clear();
    d.specificity.clear();
    d.history.assign(1, first_step_);
    be_.truncate_sequence(d.seq, p_.prompt.size());
    if (r_.guidance.active()) be_.truncate_sequence(d.guide_seq, p_.guide_prompt.size());
    d.backtracks = 0;
    ++d.restarts;
}

void Generator::plain_round(std::vector<DesignState>& ds, ForwardOutput& out) {
    // Invariant between rounds: every unfinished design's last chosen token is pending (not yet in
    // its cache); the cache holds the prompt and the tokens before it.
    std::vector<size_t> active;
    std::vector<ForwardItem> items;
    const bool guided = r_.guidance.active();
    for (size_t i = 0; i < ds.size(); ++i)
        if (!finished(ds[i])) {
            active.push_back(i);
            items.push_back({ds[i].seq, std::span<const int32_t>(&ds[i].pending, 1), false});
            if (guided) items.push_back({ds[i].guide_seq, std::span<const int32_t>(&ds[i].pending, 1), false});
        }
    if (items.empty()) return;
    if (guided) {  // both streams of every design in one batch: rows 2q (own tags) and 2q + 1
        be_.forward(items, Head::Dna, out);
        for (size_t q = 0; q < active.size(); ++q) {
            push_guided_step(ds[active[q]], out.row(2 * q), out.row(2 * q + 1), out.width);
            choose(ds[active[q]], active[q]);
        }
        return;
    }
    if (r_.mode == GenerationMode::Fns) {
        // The backend returns the marginals (a GPU computes them beside the logits).
        std::vector<FnsRowRequest> rows(active.size());
        for (size_t q = 0; q < active.size(); ++q) {
            const DesignState& d = ds[active[q]];
            rows[q] = {step_masks(d.tokens.size()), d.stream(active[q]), uint64_t(d.tokens.size())};  // its draws' stream, restarts included
        }
        std::vector<FnsRow> fns;
        be_.forward_fns(items, rows, r_.sampling, fns);
        for (size_t q = 0; q < active.size(); ++q) {
            DesignState& d = ds[active[q]];
            d.history.push_back(fns_step_data(d.tokens.size(), fns[q]));
            if (d.history.size() > kHistoryDepth) d.history.pop_front();
            choose(d, active[q]);
        }
        return;
    }
    be_.forward(items, Head::Dna, out);
    for (size_t q = 0; q < active.size(); ++q) {
        push_step(ds[active[q]], out.row(q), out.width);
        choose(ds[active[q]], active[q]);
    }
}

GenerationResult Generator::run(const GenerationCallbacks& cb, std::vector<std::string> notices) {
    GenerationResult result;
    result.notices = std::move(notices);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<DesignState> ds(r_.count);
    const SeqId root = be_.create_sequence();
    std::vector<SeqId> owned{root}, draft_owned;
    auto release = [&] {
        for (SeqId s : owned) be_.free_sequence(s);
        for (SeqId s : draft_owned) spec_->draft->free_sequence(s);
    };
    try {
        ForwardOutput out;
        const bool guided = r_.guidance.active();
        SeqId guide_root = -1;
        std::vector<ForwardItem> first{{root, p_.prompt, false}};
        if (guided) {
            guide_root = be_.create_sequence();
            owned.push_back(guide_root);
            first.push_back({guide_root, p_.guide_prompt, false});
        }
        be_.forward(first, Head::Dna, out);
        for (size_t i = 0; i < ds.size(); ++i) {
            ds[i].seq = i == 0 ? root : be_.fork_sequence(root);
            if (i) owned.push_back(ds[i].seq);
            ds[i].seq_bases = p_.head;
            if (guided) {
                ds[i].guide_seq = i == 0 ? guide_root : be_.fork_sequence(guide_root);
                if (i) owned.push_back(ds[i].guide_seq);
                push_guided_step(ds[i], out.row(0), out.row(1), out.width);
            } else {
                push_step(ds[i], out.row(0), out.width);
            }
            if (i == 0) first_step_ = ds[0].history.back();
            choose(ds[i], i);  // step 0; from here on the last chosen token is pending
        }
        if (spec_) {
            // The draft shares the prompt's prefix: one prefill, forked per design.
            const SeqId droot = spec_->draft->create_sequence();
            draft_owned.push_back(droot);
            const bool fits = !spec_->draft_context || p_.prompt.size() + k_ + 2 <= spec_->draft_context;
            if (fits) {
                ForwardOutput dout;
                ForwardItem dfirst{droot, p_.prompt, false};
                spec_->draft->forward(std::span(&dfirst, 1), Head::None, dout);
            }
            for (size_t i = 0; i < ds.size(); ++i) {
                ds[i].draft_seq = i == 0 ? droot : spec_->draft->fork_sequence(droot);
                if (i) draft_owned.push_back(ds[i].draft_seq);
                if (fits) ds[i].draft_kv = p_.prompt;
            }
            spec_on_ = true;
            stats_.used = true;
            stats_.verify = distribution_ ? SpeculativeVerify::Distribution : SpeculativeVerify::Identical;
            if (spec_->verify == SpeculativeVerify::Distribution && !distribution_ && r_.sampling.temperature > 0)
                result.notices.push_back(
                    "speculative decoding verified drafted tokens by identity with the target's own choices (the same "
                    "designs as the target alone): the homopolymer / motif / GC constraints are met by a backtracking "
                    "search, which is not a draw from one distribution that speculative sampling could compare");
        }
        const size_t total = p_.design_len * ds.size();
        size_t measured = 0, spec_rounds = 0;
        for (;;) {
            bool any = false;
            for (const DesignState& d : ds) any = any || !finished(d);
            if (!any) break;
            size_t active = 0;
            for (const DesignState& d : ds) active += finished(d) ? 0 : 1;
            const auto tr = std::chrono::steady_clock::now();
            // Two plain steps first measure what the target alone does, the yardstick for
            // switching speculation off.
            if (spec_on_ && measured >= 2) {
                speculative_round(ds, out);
                stats_.seconds_speculative += std::chrono::duration<double>(std::chrono::steady_clock::now() - tr).count();
                ++spec_rounds;
                // Switch off as soon as it clearly does not pay (one round below 0.7x: a draft that
                // does not agree), else once three rounds measure below 0.95x.
                const double sp = stats_.speedup();
                if (spec_->auto_disable && sp > 0 && (sp < 0.7 || (spec_rounds >= 3 && sp < 0.95))) {
                    spec_on_ = false;
                    stats_.disabled = true;
                    char why[200];
                    std::snprintf(why, sizeof why,
                                  "measured %.2fx the target alone (acceptance %.0f%%, %.2f tokens per target pass)",
                                  stats_.speedup(), 100 * stats_.acceptance_rate(), stats_.tokens_per_target_pass());
                    stats_.disabled_reason = why;
                }
            } else {
                plain_round(ds, out);
                if (spec_) {
                    stats_.seconds_plain += std::chrono::duration<double>(std::chrono::steady_clock::now() - tr).count();
                    stats_.plain_steps += active;
                    ++measured;
                }
            }
            GenerationProgress pr;
            pr.bases_total = total;
            for (const DesignState& d : ds) {
                const size_t gen = d.tokens.size() * 6;
                pr.bases_done += std::min(p_.design_len, gen > p_.tail_len ? gen - p_.tail_len : 0);
            }
            pr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            pr.bases_per_second = pr.seconds > 0 ? double(pr.bases_done) / pr.seconds : 0;
            if (cb.progress && !cb.progress(pr)) {
                result.cancelled = true;
                result.speculative = stats_;
                release();
                return result;
            }
        }
        result.speculative = stats_;
        // Specificity: the mean over the design's bases of the two streams' chain-rule log p.
        std::vector<double> specificity(ds.size(), std::nan(""));
        if (guided)
            for (size_t i = 0; i < ds.size(); ++i) {
                double delta = 0;
                for (size_t g = p_.tail_len; g < p_.gen_len; ++g) delta += ds[i].specificity[g];
                specificity[i] = delta / double(p_.design_len);
            }
        // Scores: the generated bases from the unmasked marginals of their steps (the numbers a
        // closed scoring pass gives, since prediction is causal). With a right flank, one more
        // ragged pass re-reads everything after the last whole generated 6-mer as the closed
        // sequence tokenizes it: the partial last token, the flank and </dna>.
        const size_t whole = p_.gen_len / 6;
        const bool flank_pass = !p_.flank.empty();
        std::vector<std::vector<int32_t>> extra(ds.size());
        std::vector<std::string> rest(ds.size());
        if (flank_pass) {
            std::vector<ForwardItem> items;
            for (size_t i = 0; i < ds.size(); ++i) {
                DesignState& d = ds[i];
                rest[i] = d.seq_bases.substr(abs_index(whole * 6), p_.gen_len - whole * 6) + p_.flank;
                DnaEncoding enc = tok_.encode_dna(rest[i], true);
                const int32_t before = whole > 0 ? tok_.kmer_id(d.tokens[whole - 1]) : p_.prompt.back();
                extra[i].push_back(before);
                extra[i].insert(extra[i].end(), enc.ids.begin() + long(enc.first_dna_token), enc.ids.end());
                be_.truncate_sequence(d.seq, p_.prompt.size() + whole - 1);
                items.push_back({d.seq, extra[i], true});
            }
            be_.forward(items, Head::Dna, out);
            std::vector<float> probs(out.width);
            for (size_t i = 0; i < ds.size(); ++i) {
                DesignState& d = ds[i];
                d.logp.resize(whole * 6);
                for (size_t k = 0; k * 6 < rest[i].size(); ++k) {
                    dna_softmax(std::span<const float>(out.row(i, k), out.width), probs);
                    const Marginals m = fns_marginals(probs);
                    for (size_t j = 0; j < 6 && k * 6 + j < rest[i].size(); ++j) {
                        const int code = base_code(rest[i][k * 6 + j]);
                        d.logp.push_back(code < 0 ? std::numeric_limits<double>::quiet_NaN()
                                                  : std::log(double(m[j][size_t(code)])));
                    }
                }
            }
        }
        for (size_t i = 0; i < ds.size(); ++i) {
            DesignState& d = ds[i];
            Design out_d;
            out_d.index = i;
            out_d.bases = d.seq_bases.substr(abs_index(p_.tail_len), p_.design_len);
            out_d.backtracks = d.backtracks;
            out_d.restarts = d.restarts;
            double sum = 0, all = 0;
            size_t n_all = 0;
            for (size_t g = p_.tail_len; g < p_.gen_len; ++g) sum += d.logp[g];
            out_d.design_logp = sum / double(p_.design_len);
            for (size_t g = p_.tail_len; g < d.logp.size() && g < p_.gen_len + p_.flank.size(); ++g)
                if (!std::isnan(d.logp[g])) all += d.logp[g], ++n_all;
            out_d.ranking_logp = flank_pass && n_all ? all / double(n_all) : out_d.design_logp;
            out_d.specificity = specificity[i];
            result.designs.push_back(std::move(out_d));
        }
        std::stable_sort(result.designs.begin(), result.designs.end(),
                         [](const Design& x, const Design& y) { return x.ranking_logp > y.ranking_logp; });
        for (size_t i = 0; i < result.designs.size(); ++i) {
            result.designs[i].rank = int(i + 1);
            if (cb.on_design) cb.on_design(result.designs[i]);
        }
    } catch (...) {
        release();
        throw;
    }
    release();
    return result;
}

}  // namespace detail

namespace {

GenerationMemory plan_memory(Backend& backend, const Plan& plan, const DesignRequest& request, const SpeculativeConfig* speculative) {
    const size_t tokens = plan.prompt.size() + plan.n_tokens + (plan.flank.size() + 11) / 6 + 1;
    const bool drafting = speculative && speculative->draft;
    const size_t per_token = backend.memory_plan().kv_per_token * (request.guidance.active() ? 2 : 1) +
                             (drafting ? speculative->draft->memory_plan().kv_per_token : 0);
    // A row of 4,096 logits per design and step; guidance also keeps both streams' 4,096
    // probabilities for each step a design can step back to.
    const double per_design_rows = 8.0 * 4096 * sizeof(float) +
                                   (request.guidance.active() ? 2.0 * double(detail::kHistoryDepth) * 4096 * sizeof(float) : 0);
    GenerationMemory m;
    m.need = double(request.count) * (double(tokens) * double(per_token) + per_design_rows);
    m.available = backend.memory_available();
    m.designs = request.count;
    m.design_bases = plan.design_len;
    m.context_bases = plan.head.size() + plan.tail_len;
    m.flank_bases = plan.flank.size();
    return m;
}

}  // namespace

GenerationMemory generation_memory(Backend& backend, const Tokenizer& tokenizer, const DesignRequest& request,
                                   const SpeculativeConfig* speculative) {
    std::vector<std::string> notices;
    return plan_memory(backend, make_plan(tokenizer, request, notices), request, speculative);
}

std::string memory_refusal(const GenerationMemory& m) {
    return std::to_string(m.designs) + " design(s) of " + std::to_string(m.design_bases) + " bp after " +
           std::to_string(m.context_bases) + " bp of context need about " + human_bytes(m.need) +
           " of memory for their caches, but " + human_bytes(double(m.available)) +
           " is available: ask for fewer designs at once, or shorter ones";
}

GenerationResult generate_designs(Backend& backend, const Tokenizer& tokenizer, const DesignRequest& request,
                                  const GenerationCallbacks& callbacks, const SpeculativeConfig* speculative) {
    std::vector<std::string> notices;
    const Plan plan = make_plan(tokenizer, request, notices);
    if (speculative && speculative->draft && request.guidance.active())
        throw Error("speculative decoding is not available with tag guidance: the draft proposes from one stream, and "
                    "neither verification (by identity or by speculative sampling) can check a choice made from the "
                    "combination of two; generate without the draft model");
    if (speculative && speculative->draft) {
        const Tokenizer* dt = speculative->draft_tokenizer ? speculative->draft_tokenizer : &tokenizer;
        check_draft_compatible(tokenizer, *dt);
        if (dt->encode_prompt(request.tags, plan.head, false).ids != plan.prompt)
            throw Error("the draft model's tokenizer encodes the prompt (metadata tags) differently from the target's");
    }
    const bool drafting = speculative && speculative->draft;
    const GenerationMemory memory = plan_memory(backend, plan, request, speculative);
    if (!memory.fits()) throw Error(memory_refusal(memory));
    // Identity verification gives the target's own designs only if a token's logits do not depend on
    // the batch or the verification pass around it: asked of the backend, not assumed.
    const bool identity = drafting && !(speculative->verify == SpeculativeVerify::Distribution &&
                                        request.sampling.temperature > 0 && !request.constraints.active());
    // A verification pass holds up to count * (k + 1) rows, k + 1 per design, and the target alone
    // decodes count rows of one token: both must lie where the backend promises invariance.
    bool speculate = drafting;
    SpeculativeConfig bounded;
    if (drafting && identity) {
        const BackendGuarantees g = backend.guarantees();
        const size_t count = std::max<size_t>(1, request.count);
        size_t k_max = 0;
        if (g.batch_invariant(1, count))
            k_max = std::min({std::max<size_t>(1, speculative->max_draft_tokens), g.invariant_new_tokens - 1,
                              g.invariant_rows / count - 1});
        if (k_max == 0) {
            speculate = false;
            notices.push_back("speculative decoding is off for this run: it would verify drafted tokens by identity, which "
                              "gives the target's own designs only where the backend's logits do not depend on the batch, "
                              "and the " + backend.name() + " backend promises that for passes of at most " +
                              std::to_string(g.invariant_rows) + " rows (" + std::to_string(count) +
                              " designs need at least " + std::to_string(2 * count) + ")");
        } else if (k_max < std::max<size_t>(1, speculative->max_draft_tokens)) {
            bounded = *speculative;
            bounded.max_draft_tokens = k_max;
            bounded.draft_tokens = std::min(bounded.draft_tokens, k_max);
            speculative = &bounded;
            notices.push_back("speculative decoding drafts at most " + std::to_string(k_max) +
                              (k_max == 1 ? " token" : " tokens") + " per pass for this run: the " + backend.name() +
                              " backend promises batch-invariant logits (which identity verification relies on) for "
                              "passes of at most " + std::to_string(g.invariant_rows) + " rows and " +
                              std::to_string(g.invariant_new_tokens) + " new tokens per design");
        }
    }
    detail::Generator g(backend, tokenizer, request, plan, speculate ? speculative : nullptr);
    return g.run(callbacks, std::move(notices));
}

}  // namespace carbon
