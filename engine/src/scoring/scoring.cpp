// Sequence scoring (see scoring.h and docs/fns.md): whole sequences and incremental rescoring,
// on the Job/Runner machinery of scoring_machine.h.
#include "carbon/scoring/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "carbon/fns/fns.h"
#include "carbon/support/common.h"
#include "scoring_machine.h"

namespace carbon {

using namespace scoring_detail;

namespace {

size_t prefix_token_count(const Tokenizer& tokenizer, const std::string& tags) {
    return (tags.empty() ? 0 : tokenizer.encode_text(tags).size()) + 1;
}

}  // namespace

WindowLayout window_layout(const Tokenizer& tokenizer, const ScoreOptions& options) {
    WindowLayout L;
    L.prefix_tokens = prefix_token_count(tokenizer, options.tags);
    // The whole window string [tags]<dna>...</dna> fits the context.
    const size_t reserved = L.prefix_tokens + 1;
    if (options.context_tokens && options.context_tokens <= reserved)
        throw Error("scoring: the metadata tags take " + std::to_string(L.prefix_tokens - 1) +
                    " tokens, which leaves no room for DNA in the model's context of " +
                    std::to_string(options.context_tokens) + " tokens");
    if (options.window_tokens) {
        L.window_tokens = options.window_tokens;
        if (options.context_tokens && L.window_tokens > options.context_tokens - reserved)
            throw Error("scoring window of " + std::to_string(L.window_tokens) + " tokens exceeds the model's context (" +
                        std::to_string(options.context_tokens) + " tokens, of which " + std::to_string(reserved) +
                        " go to the tags, <dna> and </dna>: at most " + std::to_string(options.context_tokens - reserved) +
                        "); use a smaller window or extend the context with YaRN");
    } else {
        if (!options.context_tokens)
            throw Error("scoring: ScoreOptions needs context_tokens (the model's max_position_embeddings) or window_tokens");
        L.window_tokens = options.context_tokens - reserved;
    }
    L.overlap_tokens = options.overlap_tokens.value_or(L.window_tokens / 4);
    if (L.overlap_tokens >= L.window_tokens)
        throw Error("scoring window overlap (" + std::to_string(L.overlap_tokens) + " tokens) must be smaller than the window (" +
                    std::to_string(L.window_tokens) + " tokens)");
    return L;
}

std::vector<SequenceScore> score_sequences(Backend& backend, const Tokenizer& tokenizer,
                                           std::span<const std::string> sequences, const ScoreOptions& options,
                                           const ScoreProgress& progress) {
    const WindowLayout L = window_layout(tokenizer, options);
    std::vector<ScoreState> st(sequences.size());
    size_t total = 0, bases_done = 0;
    for (const std::string& s : sequences) total += s.size();
    size_t next_index = 0;
    auto next = [&]() -> std::unique_ptr<Job> {
        if (next_index == sequences.size()) return nullptr;
        ScoreState& s = st[next_index++];
        std::vector<Task> tasks = start_scoring(s, tokenizer, options.tags, sequences[next_index - 1], L, options.token_score,
                                                options.per_base_track, bases_done);
        const SeqId seq = backend.create_sequence();
        return std::make_unique<Job>(backend, seq, true, s.cache, s.prep.prefix, s.prep.dna, std::move(tasks), *s.sink);
    };
    Runner runner(backend, tokenizer, options.token_score, options, L.prefix_tokens + L.window_tokens);
    const bool finished = runner.run(next, [&] { return !progress || progress(bases_done, total); });
    std::vector<SequenceScore> out;
    out.reserve(st.size());
    for (ScoreState& s : st) {
        finalize(s.result, s.logp, s.token_logp);
        s.result.cancelled = !finished;
        out.push_back(std::move(s.result));
    }
    return out;
}

SequenceScore score_sequence(Backend& backend, const Tokenizer& tokenizer, std::string_view sequence,
                             const ScoreOptions& options, const ScoreProgress& progress) {
    const std::string s(sequence);
    return std::move(score_sequences(backend, tokenizer, std::span<const std::string>(&s, 1), options, progress)[0]);
}

// ---------------------------------------------------------------------------------------------
// Incremental rescoring.

IncrementalScorer::IncrementalScorer(Backend& backend, const Tokenizer& tokenizer, ScoreOptions options)
    : backend_(backend), tokenizer_(tokenizer), options_(std::move(options)) {
    options_.per_base_track = true;  // reuse needs the previous per-base values
    layout_ = window_layout(tokenizer_, options_);
    seq_ = backend_.create_sequence();
}

IncrementalScorer::~IncrementalScorer() { backend_.free_sequence(seq_); }

void IncrementalScorer::reset() {
    backend_.truncate_sequence(seq_, 0);
    cache_tokens_.clear();
    valid_ = false;
    result_ = SequenceScore{};
}

const SequenceScore& IncrementalScorer::rescore(std::string_view sequence, const ScoreProgress& progress) {
    Prepared prep = prepare(tokenizer_, options_.tags, sequence);
    recomputed_tokens_ = 0;
    if (valid_ && prep.upper == upper_) {
        result_.notices = prep.notices;  // same bases; the letter case may differ
        return result_;
    }
    const size_t n = prep.upper.size(), K = prep.dna.size();

    // d: first 6-mer block whose bases differ; d_end: with an unchanged length, the blocks from
    // d_end on are unchanged too (a substitution leaves the tail's windows intact).
    size_t d = 0, d_end = std::numeric_limits<size_t>::max();
    if (valid_) {
        const size_t Kold = dna_.size();
        auto block = [](const std::string& s, size_t k) { return std::string_view(s).substr(6 * k, 6); };
        while (d < std::min(K, Kold) && block(prep.upper, d) == block(upper_, d)) ++d;
        if (n == upper_.size()) {
            d_end = K;
            while (d_end > d && block(prep.upper, d_end - 1) == block(upper_, d_end - 1)) --d_end;
        }
    }

    SequenceScore res;
    res.length = n;
    res.layout = layout_;
    res.notices = prep.notices;
    res.track.assign(n, BaseScore{});
    std::vector<float> logp(n, std::numeric_limits<float>::quiet_NaN());
    std::vector<double> token_logp(options_.token_score ? K + 1 : 0, kNaN);
    const std::vector<Task> plan = plan_tasks(K, options_.token_score, layout_);
    const std::vector<Task> old_plan = valid_ ? plan_tasks(dna_.size(), options_.token_score, layout_) : std::vector<Task>{};
    res.windows = plan.size();
    auto reuse = [&](size_t k0, size_t k1) {  // targets [k0, k1) keep their previous values
        for (size_t k = k0; k < k1; ++k) {
            if (!token_logp.empty()) token_logp[k] = token_logp_[k];
            for (size_t i = 6 * k; i < std::min(6 * k + 6, n); ++i) {
                res.track[i] = result_.track[i];
                logp[i] = res.track[i].logp;
            }
        }
    };
    std::vector<Task> todo;
    size_t bases_todo = 0;
    for (size_t w = 0; w < plan.size(); ++w) {
        const Task& t = plan[w];
        size_t reuse_to = t.tf;
        if (w < old_plan.size() && old_plan[w].s == t.s && old_plan[w].tf == t.tf) {
            if (t.s >= d_end && old_plan[w].tt == t.tt)
                reuse_to = t.tt;  // the window's whole context is after the edit
            else
                reuse_to = std::max(t.tf, std::min({old_plan[w].tt, t.tt, d}));
        }
        reuse(t.tf, reuse_to);
        if (reuse_to < t.tt) {
            todo.push_back({t.s, reuse_to, t.tt});
            bases_todo += std::min(6 * t.tt, n) - std::min(6 * reuse_to, n);
        }
    }

    size_t bases_done = 0;
    bool finished = true;
    valid_ = false;  // until this pass completes
    if (!todo.empty()) {
        TrackSink sink(prep.upper, true, res.track, logp, token_logp, bases_done);
        auto job = std::make_unique<Job>(backend_, seq_, false, cache_tokens_, prep.prefix, prep.dna, std::move(todo), sink);
        job->fed_total = &recomputed_tokens_;
        Runner runner(backend_, tokenizer_, options_.token_score, options_, layout_.prefix_tokens + layout_.window_tokens);
        try {
            finished = runner.run([&]() { return std::move(job); },
                                  [&] { return !progress || progress(bases_done, bases_todo); });
        } catch (...) {
            // The cache may hold part of a failed pass: start clean next time.
            reset();
            throw;
        }
    }
    finalize(res, logp, token_logp);
    res.cancelled = !finished;
    result_ = std::move(res);
    if (finished) {
        upper_ = std::move(prep.upper);
        dna_ = std::move(prep.dna);
        token_logp_ = std::move(token_logp);
        valid_ = true;
    }
    return result_;
}

}  // namespace carbon
