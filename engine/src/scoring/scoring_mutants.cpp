// Single-base mutants sharing the reference's KV prefix (score_mutants, see scoring.h), on the
// Job/Runner machinery of scoring_machine.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "carbon/fns/fns.h"
#include "carbon/scoring/scoring.h"
#include "carbon/support/common.h"
#include "scoring_machine.h"

namespace carbon {

using namespace scoring_detail;

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
    std::vector<Task> ref_tasks =
        start_scoring(ref, tokenizer, options.tags, reference, L, options.token_score, true, ref.bases_done);
    const std::string& up = ref.prep.upper;
    const size_t K = ref.prep.dna.size();

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
    if (!run_reference(backend, tokenizer, pre.seq, ref, std::move(ref_tasks), options, L, ref_tokens, report)) {
        out.cancelled = true;
        out.reference = std::move(ref.result);
        return out;
    }

    // Per-6-mer sums of the reference's base logp (prefix sums), to swap in a mutant's values.
    const KmerPrefixSums sums = kmer_prefix_sums(ref.logp, n, K);
    const std::vector<double>& csum = sums.sum;
    const std::vector<size_t>& ccount = sums.count;

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
            // `pre` holds the window's tokens before 6-mer t (the mutant's own 6-mer is scored
            // from the reference's distribution at its step).
            extend_prefix(backend, pre.seq, ref.cache, ref.prep.prefix, ref.prep.dna, tasks.front().s,
                          ref.prep.prefix.size() + t - tasks.front().s, options.chunk_tokens, out.mutant_tokens);
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
    out.reference = std::move(ref.result);
    if (progress && finished) {  // the plan was an estimate: end at exactly what was done
        const size_t all = ref_tokens + out.mutant_tokens;
        progress(all, all);
    }
    return out;
}

}  // namespace carbon
