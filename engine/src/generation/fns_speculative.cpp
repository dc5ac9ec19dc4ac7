// Speculative rounds of the design generator (fns_generator.h): the draft catches up with each
// design's tokens, proposes up to k of them, and one target pass verifies them, by identity with
// the target's own choices or by speculative sampling (Distribution).
#include <algorithm>
#include <cmath>
#include <limits>

#include "fns_generator.h"

namespace carbon::detail {

std::vector<double> Generator::token_distribution(const Step& st, size_t step) const {
    std::vector<double> d(kNumKmers, 0.0);
    auto mask = [&](size_t j) {
        const size_t g = step * 6 + j;
        return g < p_.gen_len ? p_.masks[g] : kAnyBase;
    };
    if (r_.mode == GenerationMode::Fns) {
        // choose_fns without constraints draws each base independently from these.
        std::array<std::array<float, 4>, 6> q;
        for (size_t j = 0; j < 6; ++j) q[j] = adjust_base_distribution(st.choice[j], mask(j), r_.sampling.temperature, r_.sampling.top_p);
        for (int v = 0; v < kNumKmers; ++v) {
            double x = 1.0;
            for (size_t j = 0; j < 6 && x > 0; ++j) x *= double(q[j][size_t(kmer_base(v, int(j)))]);
            d[size_t(v)] = x;
        }
        return d;
    }
    std::vector<float> cand(st.logits.size(), -std::numeric_limits<float>::infinity());
    for (int v = 0; v < kNumKmers; ++v) {
        bool ok = true;
        for (size_t j = 0; j < 6 && ok; ++j) ok = mask(j) >> kmer_base(v, int(j)) & 1;
        if (ok) cand[size_t(v)] = st.logits[size_t(v)];
    }
    return sampling_distribution(cand, r_.sampling);
}

void Generator::commit(DesignState& d, const Step& st, int index) const {
    d.tokens.push_back(index);
    for (size_t j = 0; j < 6; ++j) {
        const int b = kmer_base(index, int(j));
        d.seq_bases.push_back(kKmerBases[size_t(b)]);
        d.logp.push_back(std::log(double(st.plain[j][size_t(b)])));
    }
    d.pending = tok_.kmer_id(index);
}

void Generator::draft_catch_up(std::vector<DesignState>& ds, std::vector<size_t>& active, ForwardOutput& out) {
    // The draft sees prompt + every chosen token (the pending one included), within its window:
    // the prompt's prefix up to <dna>, then the most recent DNA tokens. Its cache keeps the longest
    // common prefix with that; the rest is fed now, and its last row predicts the next step.
    Backend& dr = *spec_->draft;
    std::vector<std::vector<int32_t>> feed(active.size());
    std::vector<ForwardItem> items;
    for (size_t q = 0; q < active.size(); ++q) {
        DesignState& d = ds[active[q]];
        std::vector<int32_t> want(p_.prompt.begin(), p_.prompt.begin() + long(prefix_len_));
        const size_t dna_total = p_.prompt.size() - prefix_len_ + d.tokens.size();
        auto dna_at = [&](size_t i) {
            const size_t in_prompt = p_.prompt.size() - prefix_len_;
            return i < in_prompt ? p_.prompt[prefix_len_ + i] : tok_.kmer_id(d.tokens[i - in_prompt]);
        };
        const size_t window = spec_->draft_context;
        if (window && prefix_len_ + (dna_total - d.draft_dropped) + k_ + 1 > window) {
            if (prefix_len_ + k_ + 2 >= window) throw Error("the draft's context is too short for its prompt prefix");
            d.draft_dropped = dna_total - std::min(dna_total, (window - prefix_len_) / 2);  // keep the most recent half
        }
        for (size_t i = d.draft_dropped; i < dna_total; ++i) want.push_back(dna_at(i));
        size_t lcp = 0;
        while (lcp < d.draft_kv.size() && lcp < want.size() && d.draft_kv[lcp] == want[lcp]) ++lcp;
        lcp = std::min(lcp, want.size() - 1);  // the last token is always fed: its row is the prediction
        dr.truncate_sequence(d.draft_seq, lcp);
        d.draft_kv.assign(want.begin(), want.end());
        feed[q].assign(want.begin() + long(lcp), want.end());
    }
    for (size_t q = 0; q < active.size(); ++q) items.push_back({ds[active[q]].draft_seq, feed[q], false});
    dr.forward(items, Head::Dna, out);
    ++stats_.draft_passes;
}

void Generator::speculative_round(std::vector<DesignState>& ds, ForwardOutput& out) {
    std::vector<size_t> active;
    for (size_t i = 0; i < ds.size(); ++i)
        if (!finished(ds[i])) active.push_back(i);
    if (active.empty()) return;
    Backend& dr = *spec_->draft;
    ForwardOutput dout;
    draft_catch_up(ds, active, dout);

    // Draft: up to k tokens per design. Distribution: drawn from the draft's q. Identical: chosen
    // exactly as the target would choose (same masks, constraints, search order and draws), on
    // the draft's distributions.
    std::vector<std::vector<int32_t>> drafts(ds.size());
    std::vector<std::vector<std::vector<double>>> qdists(ds.size());  // Distribution: q of each drafted token
    std::vector<DesignState> views(ds.size());
    std::vector<bool> drafting(ds.size(), false);
    for (size_t a : active) {
        views[a].tokens = ds[a].tokens;
        views[a].seq_bases = ds[a].seq_bases;
        drafting[a] = true;
    }
    std::vector<size_t> rows(ds.size());
    for (size_t q = 0; q < active.size(); ++q) rows[active[q]] = q;
    for (size_t i = 0; i < k_; ++i) {
        std::vector<ForwardItem> items;
        std::vector<size_t> fed;
        for (size_t a : active) {
            if (!drafting[a]) continue;
            const size_t step = ds[a].tokens.size() + i;
            if (step >= p_.n_tokens) {
                drafting[a] = false;
                continue;
            }
            Step st = make_step(step, dout.row(rows[a]), dout.width);
            if (distribution_) {  // a draw from q, remembered for the acceptance test
                qdists[a].push_back(token_distribution(st, step));
                const int x = int(draw_from(qdists[a].back(), uniform01(r_.sampling.seed, a, kDraftDraws + step, 0)));
                views[a].tokens.push_back(x);
            } else {
                const bool ok = r_.mode == GenerationMode::Fns ? choose_fns(views[a], st, step, a) : choose_direct(views[a], st, step, a);
                if (!ok) {
                    drafting[a] = false;
                    continue;
                }
            }
            drafts[a].push_back(tok_.kmer_id(views[a].tokens.back()));
            if (i + 1 < k_ && step + 1 < p_.n_tokens) {
                items.push_back({ds[a].draft_seq, std::span<const int32_t>(&drafts[a].back(), 1), false});
                fed.push_back(a);
            } else {
                drafting[a] = false;
            }
        }
        if (items.empty()) break;
        dr.forward(items, Head::Dna, dout);
        ++stats_.draft_passes;
        for (size_t q = 0; q < fed.size(); ++q) {
            ds[fed[q]].draft_kv.push_back(drafts[fed[q]].back());
            rows[fed[q]] = q;
        }
        for (size_t a : active)
            if (drafting[a] && std::find(fed.begin(), fed.end(), a) == fed.end()) drafting[a] = false;
    }

    // Verify: one target pass over [pending, drafts...] per design; keep the agreeing prefix and
    // the target's own next token.
    std::vector<std::vector<int32_t>> verify(ds.size());
    std::vector<ForwardItem> items;
    for (size_t a : active) {
        verify[a].push_back(ds[a].pending);
        verify[a].insert(verify[a].end(), drafts[a].begin(), drafts[a].end());
        items.push_back({ds[a].seq, verify[a], true});
    }
    be_.forward(items, Head::Dna, out);
    ++stats_.target_passes;
    stats_.target_rows += active.size();
    size_t full_accept = 0, drafted = 0, accepted = 0;
    for (size_t q = 0; q < active.size(); ++q) {
        DesignState& d = ds[active[q]];
        size_t acc = 0;
        for (size_t r = 0; r <= drafts[active[q]].size() && !finished(d); ++r) {
            push_step(d, out.row(q, r), out.width);
            if (distribution_ && r < drafts[active[q]].size()) {
                // Keep x with probability min(1, p(x)/q(x)); else draw from (p - q)+, normalised.
                const size_t step = d.tokens.size();
                const std::vector<double> pd = token_distribution(d.history.back(), step);
                const SpeculativeStep sp = speculative_step(pd, qdists[active[q]][r], size_t(views[active[q]].tokens[step]),
                                                            uniform01(r_.sampling.seed, active[q], kAcceptDraws + step, 0),
                                                            uniform01(r_.sampling.seed, active[q], kResidualDraws + step, 0));
                ++stats_.tokens;
                commit(d, d.history.back(), int(sp.token));
                if (sp.accepted) {
                    ++acc;
                    continue;
                }
                break;
            }
            const size_t backs = d.backtracks;
            choose(d, active[q]);
            ++stats_.tokens;
            if (d.backtracks != backs) break;
            if (r < drafts[active[q]].size() && tok_.kmer_id(d.tokens.back()) == drafts[active[q]][r]) {
                ++acc;
                continue;
            }
            break;
        }
        be_.truncate_sequence(d.seq, p_.prompt.size() + d.tokens.size() - 1);
        drafted += drafts[active[q]].size();
        accepted += acc;
        if (acc == drafts[active[q]].size()) ++full_accept;
    }
    stats_.drafted += drafted;
    stats_.accepted += accepted;
    if (spec_->adaptive) {
        if (full_accept == active.size() && drafted) k_ = std::min(k_ + 1, std::max<size_t>(1, spec_->max_draft_tokens));
        else if (drafted && double(accepted) < 0.5 * double(drafted)) k_ = std::max<size_t>(1, k_ - 1);
    }
}

}  // namespace carbon::detail
