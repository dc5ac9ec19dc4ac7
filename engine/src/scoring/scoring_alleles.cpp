// Alternative alleles of any length sharing the reference's KV prefix (score_alleles, see
// scoring.h), on the Job/Runner machinery of scoring_machine.h.
//
// An alternative agrees with the reference on every base before its first difference d, so on
// every 6-mer before t = d / 6, and every target before t is predicted from the same tokens in the
// same window (window starts do not depend on the length): those targets keep the reference's
// values. The alternative's job forks the reference's cache and computes targets t onward,
// re-feeding token t - 1 for the row that predicts t.
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

// Sums an alternative's base log-probabilities over the targets it computes.
class AltSumSink final : public Sink {
public:
    explicit AltSumSink(std::string upper) : upper_(std::move(upper)) {}
    void target(size_t k, const Marginals* m, double) override {
        if (!m) return;
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
    std::string upper_;
};

struct Pending {
    size_t index = 0;
    double fixed_sum = 0;  // the reference's bases before the first computed target
    size_t fixed_count = 0;
    std::unique_ptr<AltSumSink> sink;
    std::vector<int32_t> cache;
};

}  // namespace

AlleleScores score_alleles(Backend& backend, const Tokenizer& tokenizer, std::string_view reference,
                           std::span<const AlleleChange> changes, const ScoreOptions& options, const ScoreProgress& progress,
                           bool share_prefix) {
    const size_t n = reference.size();
    for (size_t i = 0; i < changes.size(); ++i)
        if (changes[i].begin > changes[i].end || changes[i].end > n)
            throw Error("allele " + std::to_string(i + 1) + ": bases " + std::to_string(changes[i].begin + 1) + "-" +
                        std::to_string(changes[i].end) + " are not a range of the sequence (length " + std::to_string(n) + ")");
    const WindowLayout L = window_layout(tokenizer, options);
    AlleleScores out;
    out.base_mean_logp.assign(changes.size(), kNaN);

    // The alternatives' sequences and where each first differs from the reference.
    const std::string up = upper_copy(reference);
    std::vector<std::string> alts(changes.size());
    std::vector<size_t> first_diff(changes.size());
    for (size_t i = 0; i < changes.size(); ++i) {
        const AlleleChange& c = changes[i];
        alts[i] = up.substr(0, c.begin) + upper_copy(c.alt) + up.substr(c.end);
        size_t d = 0;
        const size_t m = std::min(alts[i].size(), up.size());
        while (d < m && alts[i][d] == up[d]) ++d;
        first_diff[i] = (d == m && alts[i].size() == up.size()) ? SIZE_MAX : (share_prefix ? d : 0);
    }

    // 1. The reference, keeping its backend sequence for the forks.
    ScoreState ref;
    ScoreOptions ref_options = options;
    ref_options.token_score = false;  // base-level only
    std::vector<Task> ref_tasks = start_scoring(ref, tokenizer, options.tags, reference, L, false, true, ref.bases_done);
    const size_t K = ref.prep.dna.size(), P = ref.prep.prefix.size();

    // Tasks of alternative i: its windows' targets from 6-mer t = first_diff / 6 on.
    auto alt_tasks = [&](size_t i, size_t K_alt) {
        const size_t t = first_diff[i] / 6;
        std::vector<Task> tasks;
        for (const Task& w : plan_tasks(K_alt, false, L))
            if (w.tt > t) tasks.push_back({w.s, std::max(w.tf, t), w.tt});
        return tasks;
    };
    size_t planned = 0;
    for (const Task& t : ref_tasks) planned += P + t.tt - 1 - t.s;
    for (size_t i = 0; i < changes.size(); ++i) {
        if (first_diff[i] == SIZE_MAX) continue;
        const size_t K_alt = (alts[i].size() + 5) / 6;
        for (const Task& t : alt_tasks(i, K_alt)) planned += t.tt - t.tf + 1;
    }
    auto report = [&] {
        const size_t done = out.reference_tokens + out.alt_tokens;
        return !progress || progress(done, std::max(done, planned));
    };

    SeqGuard pre(backend, backend.create_sequence());
    if (!run_reference(backend, tokenizer, pre.seq, ref, std::move(ref_tasks), ref_options, L, out.reference_tokens, report)) {
        out.cancelled = true;
        out.reference = std::move(ref.result);
        return out;
    }
    // Sums of the reference's base logp over its first 6k bases.
    const KmerPrefixSums sums = kmer_prefix_sums(ref.logp, n, K);
    const std::vector<double>& csum = sums.sum;
    const std::vector<size_t>& ccount = sums.count;

    // 2. Alternatives, latest first difference first, so the reference cache only shrinks.
    std::vector<size_t> order;
    for (size_t i = 0; i < changes.size(); ++i) {
        if (first_diff[i] == SIZE_MAX)
            out.base_mean_logp[i] = ref.result.base_mean_logp;  // the reference itself
        else
            order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return first_diff[a] / 6 > first_diff[b] / 6; });
    std::vector<std::unique_ptr<Pending>> live(changes.size());
    size_t next_i = 0;
    auto finish = [&](const Pending& p) {
        const size_t all = p.fixed_count + p.sink->count;
        out.base_mean_logp[p.index] = all ? (p.fixed_sum + p.sink->sum) / double(all) : kNaN;
    };
    auto next = [&]() -> std::unique_ptr<Job> {
        while (next_i < order.size()) {
            const size_t idx = order[next_i++];
            const size_t t = first_diff[idx] / 6;
            Prepared alt = prepare(tokenizer, options.tags, alts[idx]);
            auto p = std::make_unique<Pending>();
            p->index = idx;
            p->fixed_sum = csum[std::min(t, K)];
            p->fixed_count = ccount[std::min(t, K)];
            p->sink = std::make_unique<AltSumSink>(std::move(alt.upper));
            std::vector<Task> tasks = alt_tasks(idx, alt.dna.size());
            if (tasks.empty()) {  // the alternative ends before its first difference's 6-mer
                finish(*p);
                continue;
            }
            SeqId seq;
            if (share_prefix) {
                // `pre` holds the window's tokens before the row that predicts 6-mer t.
                const Task& w = tasks.front();
                extend_prefix(backend, pre.seq, ref.cache, ref.prep.prefix, ref.prep.dna, w.s, P + t - w.s - 1,
                              options.chunk_tokens, out.alt_tokens);
                seq = backend.fork_sequence(pre.seq);
                p->cache = ref.cache;
            } else {
                seq = backend.create_sequence();
            }
            Pending& pr = *p;
            live[idx] = std::move(p);
            auto job = std::make_unique<Job>(backend, seq, true, pr.cache, std::move(alt.prefix), std::move(alt.dna),
                                             std::move(tasks), *pr.sink);
            job->tag = idx;
            job->fed_total = &out.alt_tokens;
            return job;
        }
        return nullptr;
    };
    Runner runner(backend, tokenizer, false, options, L.prefix_tokens + L.window_tokens);
    const bool finished = runner.run(next, report, [&](Job& j) {
        finish(*live[j.tag]);
        live[j.tag].reset();
    });
    out.cancelled = !finished;
    out.reference = std::move(ref.result);
    if (progress && finished) {  // the plan was an estimate: end at exactly what was done
        const size_t all = out.reference_tokens + out.alt_tokens;
        progress(all, all);
    }
    return out;
}

}  // namespace carbon
