// carbon-cli bench --workload generate|score|speculative: the engine's user-level paths timed at
// several batch sizes, through the same runs carbon-cli generate and score use (runs::run_generation,
// runs::score_in_groups), so a figure here is what those commands give. The GPU proof
// (tests/gpu/prove.sh) reads their --json beside the roofline of tests/bench/gpu_perf_model.py.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "carbon/fns/sampling.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/scoring_run.h"
#include "cli_bench.h"

namespace carbon::cli {

namespace {

// The 42 bp context of the CPU benchmarks (tests/bench/fns_bench.sh, spec_bench.sh): 7 whole 6-mers.
constexpr const char* kContext = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

DesignRequest design_request(const BenchSettings& s, int batch, GenerationMode mode) {
    DesignRequest r;
    r.left_context = kContext;
    r.length = s.length_bp;
    r.count = size_t(batch);
    r.mode = mode;
    r.sampling.temperature = float(s.temperature);
    r.sampling.seed = s.seed;
    return r;
}

// Best of `repeat` runs of `request` (score_designs off: generation alone is timed).
runs::GenerationRun best_run(Model& m, const DesignRequest& request, const runs::GenerationRunOptions& o, int repeat) {
    runs::GenerationRun best;
    for (int r = 0; r < repeat; ++r) {
        runs::GenerationRun run = runs::run_generation(m, request, o);
        if (run.result.designs.size() != request.count)
            throw Error("bench: the run returned " + std::to_string(run.result.designs.size()) + " of " +
                        std::to_string(request.count) + " designs");
        if (r == 0 || run.seconds < best.seconds) best = std::move(run);
    }
    return best;
}

std::vector<std::string> bases_by_index(const GenerationResult& r) {
    std::vector<std::string> v(r.designs.size());
    for (const Design& d : r.designs) v.at(d.index) = d.bases;
    return v;
}

}  // namespace

void bench_generate(Model& m, const BenchSettings& s, nlohmann::json& report) {
    runs::GenerationRunOptions o;
    o.score_designs = false;
    std::printf("%-7s %-6s %10s %14s\n", "mode", "batch", "seconds", "bp/s");
    for (GenerationMode mode : s.modes) {
        for (int B : s.batches) {
            const runs::GenerationRun run = best_run(m, design_request(s, B, mode), o, s.repeat);
            std::printf("%-7s %-6d %10.3f %14.1f\n", generation_mode_name(mode), B, run.seconds, run.bases_per_second);
            std::fflush(stdout);
            report["runs"].push_back({{"mode", generation_mode_name(mode)}, {"batch", B}, {"length_bp", s.length_bp},
                                      {"seconds", run.seconds}, {"bp_s", run.bases_per_second}});
        }
    }
}

void bench_score(Model& m, const BenchSettings& s, nlohmann::json& report) {
    const size_t window_tokens = (s.window_bp + 5) / 6;
    const int max_batch = *std::max_element(s.batches.begin(), s.batches.end());
    // Random windows, one per sequence, the same for every batch size.
    std::vector<std::string> windows(static_cast<size_t>(max_batch), std::string(s.window_bp, 'A'));
    for (size_t w = 0; w < windows.size(); ++w)
        for (size_t i = 0; i < s.window_bp; ++i) windows[w][i] = "ACGT"[int(uniform01(s.seed, w, i, 3) * 4) & 3];
    std::printf("%-6s %10s %14s  (%zu bp windows, %zu tokens, base-level scores)\n", "batch", "seconds", "bp/s", s.window_bp,
                window_tokens);
    for (int B : s.batches) {
        ScoreOptions o;
        o.token_score = false;  // base-level (FNS marginals): the DNA head only
        o.per_base_track = false;
        o.context_tokens = size_t(m.config().max_position_embeddings);
        o.window_tokens = window_tokens;
        o.max_sequences = size_t(B);
        runs::ScoringRunCallbacks cb;
        cb.sequence = [&](size_t i) -> const std::string& { return windows[i]; };
        size_t windows_used = 0;
        cb.on_group = [&](size_t, std::vector<SequenceScore>& scores) {
            for (const SequenceScore& sc : scores) windows_used += sc.windows;
        };
        double best = 1e30;
        for (int r = 0; r < s.repeat; ++r) {
            windows_used = 0;
            const auto t0 = std::chrono::steady_clock::now();
            const size_t done = runs::score_in_groups(m, size_t(B), o, cb);
            best = std::min(best, seconds_since(t0));
            if (done != size_t(B) * s.window_bp)
                throw Error("bench: scored " + std::to_string(done) + " of " + std::to_string(size_t(B) * s.window_bp) + " bases");
        }
        const double bp_s = double(B) * double(s.window_bp) / best;
        std::printf("%-6d %10.3f %14.1f\n", B, best, bp_s);
        std::fflush(stdout);
        report["runs"].push_back({{"batch", B}, {"window_bp", s.window_bp}, {"windows", windows_used}, {"seconds", best},
                                  {"bp_s", bp_s}});
    }
}

bool bench_speculative(Model& m, Model& draft, const BenchSettings& s, nlohmann::json& report) {
    bool all_identical = true;
    runs::GenerationRunOptions plain;
    plain.score_designs = false;
    std::printf("%-6s %10s %10s %10s %10s %12s %10s %10s %10s  %s\n", "batch", "plain s", "spec s", "speed-up", "accepted",
                "tok/pass", "in-run", "auto s", "auto x", "identical");
    for (int B : s.batches) {
        DesignRequest req = design_request(s, B, GenerationMode::Fns);
        req.sampling.temperature = 0;  // greedy, identity verification: the designs must be the target's own
        const runs::GenerationRun alone = best_run(m, req, plain, s.repeat);
        const std::vector<std::string> want = bases_by_index(alone.result);
        auto with_draft = [&](bool auto_disable) {
            runs::GenerationRunOptions o = plain;
            o.draft = &draft;
            o.draft_options.draft_tokens = s.draft_tokens;
            o.draft_options.verify = SpeculativeVerify::Identical;
            o.draft_options.auto_disable = auto_disable;
            return best_run(m, req, o, s.repeat);
        };
        const runs::GenerationRun spec = with_draft(false);  // speculation measured throughout
        const runs::GenerationRun guarded = with_draft(true);  // as users run it: switched off when it does not pay
        const bool identical = bases_by_index(spec.result) == want && bases_by_index(guarded.result) == want;
        all_identical = all_identical && identical;
        const SpeculativeStats& st = spec.result.speculative;
        std::printf("%-6d %10.3f %10.3f %9.2fx %9.1f%% %12.2f %9.2fx %10.3f %9.2fx  %s%s\n", B, alone.seconds, spec.seconds,
                    alone.seconds / spec.seconds, 100 * st.acceptance_rate(), st.tokens_per_target_pass(), st.speedup(),
                    guarded.seconds, alone.seconds / guarded.seconds, identical ? "yes" : "NO",
                    guarded.result.speculative.disabled ? "  (auto: switched off)" : "");
        std::fflush(stdout);
        report["runs"].push_back({{"batch", B},
                                  {"length_bp", s.length_bp},
                                  {"plain_seconds", alone.seconds},
                                  {"plain_bp_s", alone.bases_per_second},
                                  {"speculative_seconds", spec.seconds},
                                  {"speculative_bp_s", spec.bases_per_second},
                                  {"speedup", alone.seconds / spec.seconds},
                                  {"speedup_in_run", st.speedup()},
                                  {"acceptance", st.acceptance_rate()},
                                  {"tokens_per_target_pass", st.tokens_per_target_pass()},
                                  {"auto_disable_seconds", guarded.seconds},
                                  {"auto_disable_speedup", alone.seconds / guarded.seconds},
                                  {"auto_disable_switched_off", guarded.result.speculative.disabled},
                                  {"identical", identical}});
    }
    return all_identical;
}

}  // namespace carbon::cli
