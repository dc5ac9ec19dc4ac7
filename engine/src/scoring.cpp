// Sequence scoring (see scoring.h and docs/fns.md). Everything runs through one small machine:
// a Job feeds the windows of one backend sequence chunk by chunk and hands each logits row to a
// Sink (per-base track, or a mutant's running sum); a Runner packs the chunks of several jobs
// into ragged forward passes, reports progress and honours cancellation between passes.
#include "carbon/scoring.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "carbon/common.h"
#include "carbon/fns.h"

namespace carbon {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Rows of full-vocabulary logits per forward pass: 128 x 155,776 floats is 80 MB, where 512 rows
// would be 320 MB for no gain (the head's matmul cost is per row either way).
constexpr size_t kFullHeadRows = 128;
// Probabilities are clamped before the log, as the reference score_sequence() does, so a marginal
// that underflowed to zero gives a large finite penalty instead of -inf poisoning the mean.
constexpr float kMinProb = 1e-12f;

float base_logp(const std::array<float, 4>& p, int code) {
    return code < 0 ? std::numeric_limits<float>::quiet_NaN() : std::log(std::max(p[size_t(code)], kMinProb));
}

std::string upper_copy(std::string_view s) {
    std::string u(s);
    for (char& c : u)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    return u;
}

// One window's work: the window starts at 6-mer s (its tokens are the prefix then dna[s..]) and
// computes targets [tf, tt), where target k < K is 6-mer k and target K is </dna>. The row for
// target k is at window position P + k - s - 1, so the window feeds P + tt - 1 - s tokens.
struct Task {
    size_t s = 0, tf = 0, tt = 0;
};

// The full plan for K 6-mers (targets K + 1 with the token-level score, which adds </dna>).
std::vector<Task> plan_tasks(size_t K, bool token_score, const WindowLayout& L) {
    const size_t T = K + (token_score ? 1 : 0);
    std::vector<Task> out;
    if (T == 0) return out;
    size_t s = 0, tf = 0;
    for (;;) {
        if (s + L.window_tokens >= K) {
            out.push_back({s, tf, T});
            return out;
        }
        out.push_back({s, tf, s + L.window_tokens});
        tf = s + L.window_tokens;
        s += L.window_tokens - L.overlap_tokens;
    }
}

// Receives the results of a job's rows. m is null for the </dna> target; token_logp is NaN
// without the full head.
class Sink {
public:
    virtual ~Sink() = default;
    virtual void target(size_t k, const Marginals* m, double token_logp) = 0;
};

struct SeqGuard {
    Backend* backend = nullptr;
    SeqId seq = -1;
    SeqGuard() = default;
    SeqGuard(Backend& b, SeqId s) : backend(&b), seq(s) {}
    SeqGuard(const SeqGuard&) = delete;
    SeqGuard& operator=(const SeqGuard&) = delete;
    ~SeqGuard() {
        if (backend && seq >= 0) backend->free_sequence(seq);
    }
};

class Job {
public:
    // `cache` describes what `seq` holds (its tokens); it must outlive the job and is kept exact.
    Job(Backend& backend, SeqId seq, bool owns_seq, std::vector<int32_t>& cache, std::vector<int32_t> prefix,
        std::vector<int32_t> dna, std::vector<Task> tasks, Sink& sink)
        : backend_(backend), seq_(seq), owns_(owns_seq), cache_(cache), prefix_(std::move(prefix)),
          dna_(std::move(dna)), tasks_(std::move(tasks)), sink_(sink) {}
    ~Job() {
        if (owns_) backend_.free_sequence(seq_);
    }
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    bool done() const { return task_ == tasks_.size(); }
    size_t K() const { return dna_.size(); }
    int32_t target_id(size_t k, int32_t close_id) const { return k < dna_.size() ? dna_[k] : close_id; }

    size_t tag = 0;                  // the owner's index for this job
    size_t* fed_total = nullptr;     // if set, counts every token this job forwards
    // The most tokens this job's cache will hold (for admission into a batch).
    size_t max_tokens() const {
        size_t m = 0;
        for (const Task& t : tasks_) m = std::max(m, fed_len(t));
        return m;
    }

    // Prepares the next chunk: at most max_tokens tokens, and at most max_rows logits rows when
    // it needs logits. False when nothing fits.
    bool prepare(size_t max_tokens, size_t max_rows) {
        if (done() || max_tokens == 0) return false;
        if (!started_) start_task();
        const Task& t = tasks_[task_];
        const size_t end = fed_len(t), row_from = row_pos(t, t.tf);
        size_t n;
        if (pos_ < row_from) {
            logits_ = false;
            n = std::min(max_tokens, row_from - pos_);
        } else {
            if (max_rows == 0) return false;
            logits_ = true;
            n = std::min({max_tokens, max_rows, end - pos_});
        }
        chunk_.resize(n);
        for (size_t i = 0; i < n; ++i) chunk_[i] = token_at(t, pos_ + i);
        return true;
    }
    bool chunk_needs_logits() const { return logits_; }
    ForwardItem item() const { return ForwardItem{seq_, std::span<const int32_t>(chunk_), logits_}; }
    // Target predicted by row r of the prepared chunk.
    size_t row_target(size_t r) const { return tasks_[task_].s + pos_ + r + 1 - prefix_.size(); }
    Sink& sink() { return sink_; }

    // After the forward pass that consumed the prepared chunk.
    void commit() {
        cache_.insert(cache_.end(), chunk_.begin(), chunk_.end());
        pos_ += chunk_.size();
        if (fed_total) *fed_total += chunk_.size();
        if (pos_ == fed_len(tasks_[task_])) {
            ++task_;
            started_ = false;
        }
    }

private:
    size_t fed_len(const Task& t) const { return prefix_.size() + t.tt - 1 - t.s; }
    size_t row_pos(const Task& t, size_t k) const { return prefix_.size() + k - t.s - 1; }
    int32_t token_at(const Task& t, size_t p) const { return p < prefix_.size() ? prefix_[p] : dna_[t.s + p - prefix_.size()]; }

    // Keeps the longest cached prefix this window shares, but never past the first row whose
    // logits are needed (logits are not cached).
    void start_task() {
        const Task& t = tasks_[task_];
        const size_t end = fed_len(t);
        size_t lcp = 0;
        while (lcp < cache_.size() && lcp < end && cache_[lcp] == token_at(t, lcp)) ++lcp;
        const size_t keep = std::min(lcp, row_pos(t, t.tf));
        if (keep < backend_.sequence_length(seq_)) backend_.truncate_sequence(seq_, keep);
        cache_.resize(keep);
        pos_ = keep;
        started_ = true;
    }

    Backend& backend_;
    SeqId seq_;
    bool owns_;
    std::vector<int32_t>& cache_;
    std::vector<int32_t> prefix_, dna_;
    std::vector<Task> tasks_;
    Sink& sink_;
    size_t task_ = 0, pos_ = 0;
    bool started_ = false, logits_ = false;
    std::vector<int32_t> chunk_;
};

// Packs jobs into ragged forward passes. Jobs come from `next` (null when there are no more) and
// are admitted while at most max_sequences are in flight and their caches together stay within
// kv_tokens (so a batch holds about the KV memory of one full window).
class Runner {
public:
    Runner(Backend& backend, const Tokenizer& tokenizer, bool full_head, const ScoreOptions& options, size_t kv_tokens)
        : backend_(backend), tokenizer_(tokenizer), head_(full_head ? Head::Full : Head::Dna),
          chunk_(std::max<size_t>(1, options.chunk_tokens)),
          rows_(full_head ? std::min(kFullHeadRows, chunk_) : chunk_),
          max_active_(std::max<size_t>(1, options.max_sequences)), kv_tokens_(kv_tokens), probs_(kNumKmers),
          dna_logits_(kNumKmers) {}

    // Returns false when `after_pass` cancelled. `on_done` is told about each finished job.
    bool run(const std::function<std::unique_ptr<Job>()>& next, const std::function<bool()>& after_pass,
             const std::function<void(Job&)>& on_done = {}) {
        std::vector<std::unique_ptr<Job>> active;
        bool exhausted = false;
        for (;;) {
            // Admit jobs.
            while (!exhausted && active.size() < max_active_) {
                if (!pending_) pending_ = next ? next() : nullptr;
                if (!pending_) {
                    exhausted = true;
                    break;
                }
                if (pending_->done()) {
                    if (on_done) on_done(*pending_);
                    pending_.reset();
                    continue;
                }
                size_t used = 0;
                for (const auto& j : active) used += j->max_tokens();
                if (!active.empty() && used + pending_->max_tokens() > kv_tokens_) break;
                active.push_back(std::move(pending_));
            }
            if (active.empty()) return true;

            // One pass: each job contributes one chunk while the budget lasts.
            size_t tokens_left = chunk_, rows_left = rows_;
            std::vector<Job*> in;
            std::vector<ForwardItem> items;
            bool any_logits = false;
            for (auto& j : active) {
                if (tokens_left == 0) break;
                if (!j->prepare(tokens_left, rows_left)) continue;
                in.push_back(j.get());
                items.push_back(j->item());
                tokens_left -= items.back().tokens.size();
                if (j->chunk_needs_logits()) {
                    rows_left -= items.back().tokens.size();
                    any_logits = true;
                }
            }
            backend_.forward(items, any_logits ? head_ : Head::None, out_);
            for (size_t i = 0; i < in.size(); ++i) {
                if (in[i]->chunk_needs_logits()) deliver(*in[i], i);
                in[i]->commit();
            }
            for (size_t i = 0; i < active.size();) {
                if (active[i]->done()) {
                    if (on_done) on_done(*active[i]);
                    active.erase(active.begin() + std::ptrdiff_t(i));
                } else {
                    ++i;
                }
            }
            if (after_pass && !after_pass()) return false;
        }
    }

private:
    void deliver(Job& job, size_t item) {
        const size_t rows = out_.row_begin[item + 1] - out_.row_begin[item];
        for (size_t r = 0; r < rows; ++r) {
            const float* row = out_.row(item, r);
            const size_t k = job.row_target(r);
            Marginals m;
            const Marginals* pm = nullptr;
            if (k < job.K()) {
                const float* dl = row;
                if (head_ == Head::Full) {
                    const std::vector<int32_t>& ids = tokenizer_.kmer_ids();
                    for (size_t i = 0; i < size_t(kNumKmers); ++i) dna_logits_[i] = row[size_t(ids[i])];
                    dl = dna_logits_.data();
                }
                dna_softmax(std::span<const float>(dl, size_t(kNumKmers)), probs_);
                m = fns_marginals(probs_);
                pm = &m;
            }
            double token_logp = kNaN;
            if (head_ == Head::Full) {
                float mx = -std::numeric_limits<float>::infinity();
                for (size_t i = 0; i < out_.width; ++i) mx = std::max(mx, row[i]);
                double sum = 0.0;
                for (size_t i = 0; i < out_.width; ++i) sum += std::exp(double(row[i]) - double(mx));
                token_logp = double(row[size_t(job.target_id(k, tokenizer_.dna_close_id()))]) - double(mx) - std::log(sum);
            }
            job.sink().target(k, pm, token_logp);
        }
    }

    Backend& backend_;
    const Tokenizer& tokenizer_;
    Head head_;
    size_t chunk_, rows_, max_active_, kv_tokens_;
    std::unique_ptr<Job> pending_;
    ForwardOutput out_;
    std::vector<float> probs_, dna_logits_;
};

// A sequence as the scorer sees it: the upper-cased bases and its tokens split into the prefix
// (tags + <dna>) and the 6-mer/<oov> tokens (</dna> is a target only, never fed).
struct Prepared {
    std::string upper;
    std::vector<int32_t> prefix, dna;
    std::vector<DnaNotice> notices;
};

Prepared prepare(const Tokenizer& tokenizer, const std::string& tags, std::string_view sequence) {
    DnaEncoding enc = tokenizer.encode_prompt(tags, sequence, true);
    Prepared p;
    p.upper = upper_copy(sequence);
    p.prefix.assign(enc.ids.begin(), enc.ids.begin() + std::ptrdiff_t(enc.first_dna_token));
    p.dna.assign(enc.ids.begin() + std::ptrdiff_t(enc.first_dna_token), enc.ids.end() - 1);
    p.notices = std::move(enc.notices);
    return p;
}

// Writes a sequence's per-base values and per-target token log-probabilities.
class TrackSink final : public Sink {
public:
    TrackSink(const std::string& upper, bool keep_track, std::vector<BaseScore>& track, std::vector<float>& logp,
              std::vector<double>& token_logp, size_t& bases_done)
        : upper_(upper), keep_(keep_track), track_(track), logp_(logp), token_logp_(token_logp), bases_done_(bases_done) {}
    void target(size_t k, const Marginals* m, double token_logp) override {
        if (!token_logp_.empty()) token_logp_[k] = token_logp;
        if (!m) return;
        for (size_t j = 0; j < size_t(kKmer); ++j) {
            const size_t i = size_t(kKmer) * k + j;
            if (i >= upper_.size()) break;  // padding bases get no entry
            const float lp = base_logp((*m)[j], base_code(upper_[i]));
            logp_[i] = lp;
            if (keep_) track_[i] = BaseScore{lp, (*m)[j], entropy_bits((*m)[j])};
            ++bases_done_;
        }
    }

private:
    const std::string& upper_;
    bool keep_;
    std::vector<BaseScore>& track_;
    std::vector<float>& logp_;
    std::vector<double>& token_logp_;
    size_t& bases_done_;
};

void finalize(SequenceScore& r, const std::vector<float>& logp, const std::vector<double>& token_logp) {
    double sum = 0.0;
    size_t n = 0;
    for (float v : logp)
        if (!std::isnan(v)) sum += double(v), ++n;
    r.bases_scored = n;
    r.base_mean_logp = n ? sum / double(n) : kNaN;
    double ts = 0.0;
    size_t tn = 0;
    for (double v : token_logp)
        if (!std::isnan(v)) ts += v, ++tn;
    r.tokens_scored = tn;
    r.token_mean_logp = tn ? ts / double(tn) : kNaN;
}

// Everything one sequence's scoring keeps while its job runs.
struct ScoreState {
    Prepared prep;
    SequenceScore result;
    std::vector<float> logp;
    std::vector<double> token_logp;
    std::vector<int32_t> cache;
    size_t bases_done = 0;
    std::unique_ptr<TrackSink> sink;
};

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
        s.prep = prepare(tokenizer, options.tags, sequences[next_index - 1]);
        const size_t n = s.prep.upper.size(), K = s.prep.dna.size();
        s.result.length = n;
        s.result.layout = L;
        s.result.notices = s.prep.notices;
        if (options.per_base_track) s.result.track.assign(n, BaseScore{});
        s.logp.assign(n, std::numeric_limits<float>::quiet_NaN());
        if (options.token_score) s.token_logp.assign(K + 1, kNaN);
        std::vector<Task> tasks = plan_tasks(K, options.token_score, L);
        s.result.windows = tasks.size();
        s.sink = std::make_unique<TrackSink>(s.prep.upper, options.per_base_track, s.result.track, s.logp, s.token_logp,
                                             bases_done);
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

// ---------------------------------------------------------------------------------------------
// Single-base mutants.

namespace {

// Sums the mutant's log-probabilities over the targets it recomputes.
class SumSink final : public Sink {
public:
    SumSink(const std::string& upper, size_t mutated_kmer) : upper_(upper), t_(mutated_kmer) {}
    void target(size_t k, const Marginals* m, double) override {
        if (!m || k == t_) return;  // the mutated 6-mer's own bases are handled by the caller
        for (size_t j = 0; j < size_t(kKmer); ++j) {
            const size_t i = size_t(kKmer) * k + j;
            if (i >= upper_.size()) break;
            const float lp = base_logp((*m)[j], base_code(upper_[i]));
            if (!std::isnan(lp)) sum += double(lp), ++count;
        }
    }
    double sum = 0.0;
    size_t count = 0;

private:
    const std::string& upper_;  // the reference: the mutant differs only inside 6-mer t_
    size_t t_;
};

}  // namespace

MutantScores score_mutants(Backend& backend, const Tokenizer& tokenizer, std::string_view reference,
                           std::span<const Mutation> mutations, const ScoreOptions& options, const ScoreProgress& progress) {
    const size_t n = reference.size();
    for (size_t i = 0; i < mutations.size(); ++i) {
        const Mutation& mu = mutations[i];
        if (mu.position >= n)
            throw Error("mutation " + std::to_string(i + 1) + ": position " + std::to_string(mu.position + 1) +
                        " is outside the sequence (length " + std::to_string(n) + ")");
        const char b = (mu.base >= 'a' && mu.base <= 'z') ? char(mu.base - 32) : mu.base;
        if (base_code(b) < 0)
            throw Error("mutation " + std::to_string(i + 1) + ": base '" + std::string(1, mu.base) + "' is not A, C, G or T");
    }
    const WindowLayout L = window_layout(tokenizer, options);
    MutantScores out;
    out.base_mean_logp.assign(mutations.size(), kNaN);

    // 1. The reference, keeping its backend sequence: its cache serves every mutant.
    ScoreState ref;
    ref.prep = prepare(tokenizer, options.tags, reference);
    const std::string& up = ref.prep.upper;
    const size_t K = ref.prep.dna.size();
    ref.result.length = n;
    ref.result.layout = L;
    ref.result.notices = ref.prep.notices;
    ref.result.track.assign(n, BaseScore{});
    ref.logp.assign(n, std::numeric_limits<float>::quiet_NaN());
    if (options.token_score) ref.token_logp.assign(K + 1, kNaN);
    ref.sink = std::make_unique<TrackSink>(up, true, ref.result.track, ref.logp, ref.token_logp, ref.bases_done);
    std::vector<Task> ref_tasks = plan_tasks(K, options.token_score, L);
    ref.result.windows = ref_tasks.size();

    // Progress is in tokens: the reference's, then each mutant's from its 6-mer on (a mutant
    // that reaches a second window also refeeds that window's start, counted as it happens).
    const std::vector<Task> plan = plan_tasks(K, false, L);
    auto mutant_tasks = [&](size_t t) {  // windows whose targets after t see 6-mer t
        std::vector<Task> tasks;
        for (const Task& w : plan)
            if (w.s <= t && std::max(w.tf, t + 1) < w.tt) tasks.push_back({w.s, std::max(w.tf, t + 1), w.tt});
        return tasks;
    };
    size_t planned = 0, ref_tokens = 0;
    for (const Task& t : ref_tasks) planned += L.prefix_tokens + t.tt - 1 - t.s;
    for (const Mutation& mu : mutations)
        for (const Task& t : mutant_tasks(mu.position / 6)) planned += t.tt - t.tf;
    auto report = [&] {
        const size_t done = ref_tokens + out.mutant_tokens;
        return !progress || progress(done, std::max(done, planned));
    };

    SeqGuard pre(backend, backend.create_sequence());
    {
        std::unique_ptr<Job> job =
            std::make_unique<Job>(backend, pre.seq, false, ref.cache, ref.prep.prefix, ref.prep.dna, std::move(ref_tasks), *ref.sink);
        job->fed_total = &ref_tokens;
        Runner runner(backend, tokenizer, options.token_score, options, L.prefix_tokens + L.window_tokens);
        const bool finished = runner.run([&]() { return std::move(job); }, report);
        finalize(ref.result, ref.logp, ref.token_logp);
        if (!finished) {
            ref.result.cancelled = out.cancelled = true;
            out.reference = std::move(ref.result);
            return out;
        }
    }

    // Per-6-mer sums of the reference's base logp (prefix sums), to swap in a mutant's values.
    std::vector<double> csum(K + 1, 0.0);
    std::vector<size_t> ccount(K + 1, 0);
    for (size_t k = 0; k < K; ++k) {
        double s = 0.0;
        size_t c = 0;
        for (size_t i = 6 * k; i < std::min(6 * k + 6, n); ++i)
            if (!std::isnan(ref.logp[i])) s += double(ref.logp[i]), ++c;
        csum[k + 1] = csum[k] + s;
        ccount[k + 1] = ccount[k] + c;
    }

    // 2. Mutants, base-level only, in descending 6-mer order so the reference cache only shrinks.
    std::vector<size_t> order(mutations.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return mutations[a].position / 6 > mutations[b].position / 6; });

    struct Pending {
        size_t index;      // into mutations
        size_t t;          // mutated 6-mer
        size_t span_end;   // recomputed targets are [t + 1, span_end)
        double fixed_sum;  // everything but the recomputed targets
        size_t fixed_count;
        std::unique_ptr<SumSink> sink;
        std::vector<int32_t> cache;
    };
    std::vector<std::unique_ptr<Pending>> live;  // by mutation index while its job runs
    live.resize(mutations.size());
    size_t next_i = 0;

    auto finish = [&](Pending& p, double sum, size_t count) {
        const size_t all = p.fixed_count + count;
        out.base_mean_logp[p.index] = all ? (p.fixed_sum + sum) / double(all) : kNaN;
    };
    // Brings `pre` to hold window `task`'s tokens up to (not including) 6-mer t.
    auto prepare_prefix = [&](const Task& task, size_t t) {
        const size_t P = ref.prep.prefix.size(), need = P + t - task.s;
        auto tok = [&](size_t p) { return p < P ? ref.prep.prefix[p] : ref.prep.dna[task.s + p - P]; };
        size_t lcp = 0;
        while (lcp < ref.cache.size() && lcp < need && ref.cache[lcp] == tok(lcp)) ++lcp;
        backend.truncate_sequence(pre.seq, lcp);
        ref.cache.resize(lcp);
        ForwardOutput none;
        while (ref.cache.size() < need) {
            const size_t m = std::min(need - ref.cache.size(), std::max<size_t>(1, options.chunk_tokens));
            std::vector<int32_t> chunk(m);
            for (size_t i = 0; i < m; ++i) chunk[i] = tok(ref.cache.size() + i);
            ForwardItem it{pre.seq, chunk, false};
            backend.forward(std::span(&it, 1), Head::None, none);
            ref.cache.insert(ref.cache.end(), chunk.begin(), chunk.end());
            out.mutant_tokens += m;
        }
    };

    auto next = [&]() -> std::unique_ptr<Job> {
        while (next_i < order.size()) {
            const size_t idx = order[next_i++];
            const Mutation& mu = mutations[idx];
            const size_t t = mu.position / 6;
            std::string block = up.substr(6 * t, 6);
            block[mu.position - 6 * t] = (mu.base >= 'a' && mu.base <= 'z') ? char(mu.base - 32) : mu.base;
            if (block == std::string_view(up).substr(6 * t, 6)) {  // the reference base itself
                out.base_mean_logp[idx] = ref.result.base_mean_logp;
                continue;
            }
            auto p = std::make_unique<Pending>();
            p->index = idx;
            p->t = t;
            // Mutated 6-mer: the reference's distribution at its step, the mutant's bases.
            double sum_t = 0.0;
            size_t cnt_t = 0;
            for (size_t j = 0; j < block.size(); ++j) {
                const float lp = base_logp(ref.result.track[6 * t + j].p, base_code(block[j]));
                if (!std::isnan(lp)) sum_t += double(lp), ++cnt_t;
            }
            std::vector<Task> tasks = mutant_tasks(t);
            p->span_end = tasks.empty() ? t + 1 : tasks.back().tt;
            p->fixed_sum = csum[K] - (csum[p->span_end] - csum[t]) + sum_t;
            p->fixed_count = ccount[K] - (ccount[p->span_end] - ccount[t]) + cnt_t;
            if (tasks.empty()) {
                finish(*p, 0.0, 0);
                continue;
            }
            std::vector<int32_t> dna = ref.prep.dna;
            dna[t] = tokenizer.encode_dna(block, false).ids[1];
            prepare_prefix(tasks.front(), t);
            const SeqId forked = backend.fork_sequence(pre.seq);
            p->cache = ref.cache;
            p->sink = std::make_unique<SumSink>(up, t);
            Pending& pr = *p;
            live[idx] = std::move(p);
            auto job = std::make_unique<Job>(backend, forked, true, pr.cache, ref.prep.prefix, std::move(dna), std::move(tasks),
                                             *pr.sink);
            job->tag = idx;
            job->fed_total = &out.mutant_tokens;
            return job;
        }
        return nullptr;
    };
    Runner runner(backend, tokenizer, false, options, L.prefix_tokens + L.window_tokens);
    const bool finished = runner.run(
        next, report,
        [&](Job& j) {
            Pending& p = *live[j.tag];
            finish(p, p.sink->sum, p.sink->count);
            live[j.tag].reset();
        });
    out.cancelled = !finished;
    ref.result.cancelled = false;
    out.reference = std::move(ref.result);
    if (progress && finished) {  // the plan was an estimate: end at exactly what was done
        const size_t all = ref_tokens + out.mutant_tokens;
        progress(all, all);
    }
    return out;
}

}  // namespace carbon
