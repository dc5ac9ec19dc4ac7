// The machinery shared by the scoring functions (scoring.cpp, scoring_mutants.cpp,
// scoring_alleles.cpp); internal to the engine. A Job feeds the windows of one backend sequence
// chunk by chunk and hands each logits row to a Sink (per-base track, or a mutant's running sum);
// a Runner packs the chunks of several jobs into ragged forward passes, reports progress and
// honours cancellation between passes.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/backend.h"
#include "carbon/fns/fns.h"
#include "carbon/scoring/scoring.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon::scoring_detail {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Rows of full-vocabulary logits per forward pass: 128 x 155,776 floats is 80 MB, where 512 rows
// would be 320 MB for no gain (the head's matmul cost is per row either way).
constexpr size_t kFullHeadRows = 128;
// Probabilities are clamped before the log, as the reference score_sequence() does, so a marginal
// that underflowed to zero gives a large finite penalty instead of -inf poisoning the mean.
constexpr float kMinProb = 1e-12f;

inline float base_logp(const std::array<float, 4>& p, int code) {
    return code < 0 ? std::numeric_limits<float>::quiet_NaN() : std::log(std::max(p[size_t(code)], kMinProb));
}

inline std::string upper_copy(std::string_view s) {
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
inline std::vector<Task> plan_tasks(size_t K, bool token_score, const WindowLayout& L) {
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
          max_active_(std::max<size_t>(1, options.max_sequences)), kv_tokens_(kv_tokens),
          conditional_(options.conditional_bases), probs_(kNumKmers),
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
                const int kmer = conditional_ ? tokenizer_.kmer_index(job.target_id(k, tokenizer_.dna_close_id())) : -1;
                m = kmer >= 0 ? fns_conditionals(probs_, kmer) : fns_marginals(probs_);
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
    bool conditional_ = false;  // ScoreOptions::conditional_bases (a last partial 6-mer keeps the marginals)
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

inline Prepared prepare(const Tokenizer& tokenizer, const std::string& tags, std::string_view sequence) {
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

inline void finalize(SequenceScore& r, const std::vector<float>& logp, const std::vector<double>& token_logp) {
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

// Brings `seq` (whose tokens `cache` lists) to hold the first `need` tokens of the window that
// starts at 6-mer s (the prefix, then dna[s..]): keeps the longest prefix it already shares and
// forwards the rest without logits, in passes of at most `chunk` tokens; `fed` counts them.
inline void extend_prefix(Backend& backend, SeqId seq, std::vector<int32_t>& cache, const std::vector<int32_t>& prefix,
                          const std::vector<int32_t>& dna, size_t s, size_t need, size_t chunk, size_t& fed) {
    const size_t P = prefix.size();
    auto tok = [&](size_t p) { return p < P ? prefix[p] : dna[s + p - P]; };
    size_t lcp = 0;
    while (lcp < cache.size() && lcp < need && cache[lcp] == tok(lcp)) ++lcp;
    backend.truncate_sequence(seq, lcp);
    cache.resize(lcp);
    ForwardOutput none;
    while (cache.size() < need) {
        const size_t m = std::min(need - cache.size(), std::max<size_t>(1, chunk));
        std::vector<int32_t> part(m);
        for (size_t i = 0; i < m; ++i) part[i] = tok(cache.size() + i);
        ForwardItem it{seq, part, false};
        backend.forward(std::span(&it, 1), Head::None, none);
        cache.insert(cache.end(), part.begin(), part.end());
        fed += m;
    }
}

// Prefix sums of a sequence's per-base log p by 6-mer: sum[k] and count[k] over the bases of
// 6-mers 0..k-1 that have a value (n bases, K 6-mers), to swap in an alternative's values.
struct KmerPrefixSums {
    std::vector<double> sum;
    std::vector<size_t> count;
};
inline KmerPrefixSums kmer_prefix_sums(const std::vector<float>& logp, size_t n, size_t K) {
    KmerPrefixSums p{std::vector<double>(K + 1, 0.0), std::vector<size_t>(K + 1, 0)};
    for (size_t k = 0; k < K; ++k) {
        double s = 0.0;
        size_t c = 0;
        for (size_t i = 6 * k; i < std::min(6 * k + 6, n); ++i)
            if (!std::isnan(logp[i])) s += double(logp[i]), ++c;
        p.sum[k + 1] = p.sum[k] + s;
        p.count[k + 1] = p.count[k] + c;
    }
    return p;
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

// Prepares `s` to score `sequence`: its tokens, result slots (the track when keep_track, token
// log-probabilities with token_score) and its sink, which counts bases into `bases_done`.
// Returns the sequence's tasks.
inline std::vector<Task> start_scoring(ScoreState& s, const Tokenizer& tokenizer, const std::string& tags, std::string_view sequence,
                                       const WindowLayout& L, bool token_score, bool keep_track, size_t& bases_done) {
    s.prep = prepare(tokenizer, tags, sequence);
    const size_t n = s.prep.upper.size(), K = s.prep.dna.size();
    s.result.length = n;
    s.result.layout = L;
    s.result.notices = s.prep.notices;
    if (keep_track) s.result.track.assign(n, BaseScore{});
    s.logp.assign(n, std::numeric_limits<float>::quiet_NaN());
    if (token_score) s.token_logp.assign(K + 1, kNaN);
    std::vector<Task> tasks = plan_tasks(K, token_score, L);
    s.result.windows = tasks.size();
    s.sink = std::make_unique<TrackSink>(s.prep.upper, keep_track, s.result.track, s.logp, s.token_logp, bases_done);
    return tasks;
}

// Runs a reference's tasks on `seq`, which the caller keeps (its cache, listed in s.cache, then
// serves forks), counting the tokens into `fed`, and finalizes s.result. False when `report`
// cancelled (s.result is then marked so).
inline bool run_reference(Backend& backend, const Tokenizer& tokenizer, SeqId seq, ScoreState& s, std::vector<Task> tasks,
                          const ScoreOptions& options, const WindowLayout& L, size_t& fed, const std::function<bool()>& report) {
    auto job = std::make_unique<Job>(backend, seq, false, s.cache, s.prep.prefix, s.prep.dna, std::move(tasks), *s.sink);
    job->fed_total = &fed;
    Runner runner(backend, tokenizer, options.token_score, options, L.prefix_tokens + L.window_tokens);
    const bool finished = runner.run([&]() { return std::move(job); }, report);
    finalize(s.result, s.logp, s.token_logp);
    s.result.cancelled = !finished;
    return finished;
}

}  // namespace carbon::scoring_detail
