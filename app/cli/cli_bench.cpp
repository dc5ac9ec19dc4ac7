// carbon-cli bench: prefill and decode throughput of the engine on one checkpoint, at several
// batch sizes, with peak memory; --workload generate|score|speculative times those paths
// (cli_bench_workloads.cpp). The transformers peer (tests/bench/bench_transformers.py) reads
// the prompts this writes to --json, so both run the same token ids.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "carbon/cpu/bandwidth_probe.h"
#include "carbon/cpu/cpu_features.h"
#include "carbon/fns/sampling.h"
#include "carbon/model.h"
#include "carbon/support/output_file.h"
#include "carbon/support/thread_pool.h"
#include "cli_args.h"
#include "cli_bench.h"
#include "cli_common.h"
#include "commands.h"

namespace carbon::cli {

size_t peak_rss_bytes() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return size_t(std::stoull(line.substr(6))) * 1024;
    return 0;
}

namespace {

std::vector<int> parse_list(const std::string& s) {
    std::vector<int> v;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, ',')) {
        char* end = nullptr;
        long x = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end || x < 1 || x > 4096) throw Error("--batches: '" + part + "' is not a batch size in 1..4096");
        v.push_back(int(x));
    }
    if (v.empty()) throw Error("--batches is empty");
    return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_report(const Args& a, const nlohmann::json& report) {
    if (auto path = a.get("json")) {
        OutputFile f(*path);
        f.stream() << report.dump(1) << "\n";
        f.commit();
    }
}

}  // namespace

const char* kBenchUsage = R"(usage: carbon-cli bench --model DIR [--workload forward|generate|score|speculative]
             [--batches 1,8] [--repeat N] [--seed S] [--json FILE] [--backend cpu|cuda|auto] [--threads N]
             [--cpu-kernels auto|fp32|portable|avx2|avx512|avx512-bf16|amx] [--weights native|int8|q8_0]
             forward:     [--prompt-tokens N] [--decode-tokens N]
             generate:    [--mode fns,direct] [--length BP] [--temperature T]
             score:       [--window-bp BP]
             speculative: --draft DIR [--draft-tokens K] [--length BP]
  forward (the default): prefill and decode speed of a backend (the CPU's unless --backend says
  otherwise) at each batch size (tokens/s, bp/s), and the peak memory against the weights' size; on
  the CPU, also this machine's read bandwidth with the same threads and the batch-1 decode as a
  share of it. generate: designs of --length bases (default 600) after a 42 bp context, batch =
  designs per run, each --mode (FNS base by base, direct 6-mer by 6-mer), bp/s. score: base-level
  scores of batch random windows of --window-bp bases (default 8192, one model window each), bp/s.
  speculative: greedy FNS designs by the target alone, with --draft (switch-off disabled: the
  speed-up at the measured acceptance) and with switch-off on (what users get); exits 1 when the
  designs differ from the target alone's. Each runs the path carbon-cli generate / score runs.
  Best of --repeat runs (default 3 for forward, 1 otherwise). Figures: docs/benchmarks.md
  (tests/bench/cpu_bench.sh; the GPU proof, tests/gpu/prove.sh).
)";

int cmd_bench(const std::vector<std::string>& argv) {
    if (wants_help(argv, kBenchUsage)) return 0;
    using json = nlohmann::json;
    Args a(argv,
           {"model", "threads", "prompt-tokens", "decode-tokens", "batches", "repeat", "json", "seed", "backend", "cpu-kernels",
            "workload", "mode", "length", "temperature", "window-bp", "draft", "draft-tokens", "weights"},
           {});
    const std::string workload = a.get_or("workload", "forward");
    if (workload != "forward" && workload != "generate" && workload != "score" && workload != "speculative")
        throw Error("--workload must be forward, generate, score or speculative, not '" + workload + "'");
    // Each workload's own options are refused elsewhere, so a typo'd combination never runs silently.
    const std::map<std::string, std::vector<std::string>> own = {
        {"forward", {"prompt-tokens", "decode-tokens"}},
        {"generate", {"mode", "length", "temperature"}},
        {"score", {"window-bp"}},
        {"speculative", {"draft", "draft-tokens", "length"}}};
    for (const auto& [w, names] : own)
        for (const std::string& n : names)
            if (a.get(n) && std::find(own.at(workload).begin(), own.at(workload).end(), n) == own.at(workload).end())
                throw Error("--" + n + " is not an option of --workload " + workload);
    ModelOptions mo;
    mo.backend = parse_backend_kind(a.get_or("backend", "cpu"));
    mo.threads = int(a.integer("threads", 0, 0, 1024));
    mo.cpu_kernels = a.get_or("cpu-kernels", "auto");
    mo.weights = a.get_or("weights", "");
    const size_t prompt_tokens = size_t(a.integer("prompt-tokens", 128, 1, 1 << 20));
    const size_t decode_tokens = size_t(a.integer("decode-tokens", 32, 1, 1 << 20));
    const int repeat = int(a.integer("repeat", workload == "forward" ? 3 : 1, 1, 100));
    const uint64_t seed = uint64_t(a.integer("seed", 1, 0, 1ll << 62));
    const std::vector<int> batches = parse_list(a.get_or("batches", "1,8"));
    BenchSettings settings;
    settings.batches = batches;
    settings.repeat = repeat;
    settings.seed = seed;
    settings.length_bp = size_t(a.integer("length", 600, 1, 1 << 24));
    settings.temperature = a.number("temperature", 1.0, 0.0, 100.0);
    settings.window_bp = size_t(a.integer("window-bp", 8192, 6, 1 << 24));
    settings.draft_tokens = size_t(a.integer("draft-tokens", 4, 1, 64));
    if (auto modes = a.get("mode")) {
        settings.modes.clear();
        std::stringstream ss(*modes);
        for (std::string part; std::getline(ss, part, ',');) {
            if (part == "fns") settings.modes.push_back(GenerationMode::Fns);
            else if (part == "direct") settings.modes.push_back(GenerationMode::Direct);
            else throw Error("--mode: '" + part + "' is not fns or direct");
        }
        if (settings.modes.empty()) throw Error("--mode is empty");
    }
    if (workload == "speculative" && !a.get("draft")) throw Error("--workload speculative needs --draft DIR");

    const auto t_load = std::chrono::steady_clock::now();
    auto m = Model::load(a.required("model"), mo);
    const double load_s = seconds_since(t_load);
    Backend& be = m->backend();
    const Tokenizer& tok = m->tokenizer();
    if (!m->notice().empty()) std::fprintf(stderr, "note: %s\n", m->notice().c_str());
    std::fprintf(stderr, "bench: %s on %s (load %.2f s)\n", m->checkpoint().dir().c_str(), be.describe().c_str(), load_s);

    json report;
    report["model"] = m->checkpoint().dir().string();
    report["backend"] = be.describe();
    report["cpu_flags"] = cpu_flags();
    report["threads"] = mo.threads;
    report["prompt_tokens"] = prompt_tokens;
    report["decode_tokens"] = decode_tokens;
    report["weights_bytes"] = be.memory_plan().weights;
    report["workload"] = workload;
    report["runs"] = json::array();

    if (workload != "forward") {
        bool ok = true;
        if (workload == "generate") bench_generate(*m, settings, report);
        if (workload == "score") bench_score(*m, settings, report);
        if (workload == "speculative") {
            auto draft = Model::load(*a.get("draft"), mo);
            report["draft"] = draft->checkpoint().dir().string();
            report["draft_backend"] = draft->backend().describe();
            ok = bench_speculative(*m, *draft, settings, report);
        }
        write_report(a, report);
        if (!ok) std::fprintf(stderr, "bench: speculative designs DIFFER from the target alone's\n");
        return ok ? 0 : 1;
    }

    const int max_batch = *std::max_element(batches.begin(), batches.end());
    // Prompts: <dna> + random 6-mers, one per sequence, the same for every batch size.
    std::vector<std::vector<int32_t>> prompts(static_cast<size_t>(max_batch));
    for (int s = 0; s < max_batch; ++s) {
        prompts[size_t(s)].push_back(tok.dna_open_id());
        for (size_t t = 0; t < prompt_tokens; ++t)
            prompts[size_t(s)].push_back(tok.kmer_id(int(uniform01(seed, uint64_t(s), t, 0) * kNumKmers)));
    }
    report["prompts"] = prompts;

    std::printf("%-6s %14s %14s %14s %14s\n", "batch", "prefill tok/s", "prefill bp/s", "decode tok/s", "decode bp/s");
    for (int B : batches) {
        double best_prefill = 1e30, best_decode = 1e30;
        for (int r = 0; r < repeat; ++r) {
            std::vector<SeqId> seqs;
            std::vector<ForwardItem> items;
            for (int s = 0; s < B; ++s) {
                seqs.push_back(be.create_sequence());
                items.push_back({seqs.back(), prompts[size_t(s)], false});
            }
            ForwardOutput out;
            auto t0 = std::chrono::steady_clock::now();
            be.forward(items, Head::Dna, out);
            best_prefill = std::min(best_prefill, seconds_since(t0));
            std::vector<int32_t> next(static_cast<size_t>(B));
            t0 = std::chrono::steady_clock::now();
            for (size_t step = 0; step < decode_tokens; ++step) {
                for (int s = 0; s < B; ++s) {
                    next[size_t(s)] = tok.kmer_id(int(argmax(std::span<const float>(out.row(size_t(s)), out.width))));
                    items[size_t(s)] = {seqs[size_t(s)], std::span(&next[size_t(s)], 1), false};
                }
                be.forward(items, Head::Dna, out);
            }
            best_decode = std::min(best_decode, seconds_since(t0));
            for (SeqId s : seqs) be.free_sequence(s);
        }
        // Tokens count <dna> too; bases count only the 6-mers (6 bp each).
        const double prefill_tok = double(B) * double(prompt_tokens + 1) / best_prefill;
        const double prefill_bp = double(B) * double(prompt_tokens) * 6 / best_prefill;
        const double decode_tok = double(B) * double(decode_tokens) / best_decode;
        std::printf("%-6d %14.1f %14.1f %14.2f %14.1f\n", B, prefill_tok, prefill_bp, decode_tok, decode_tok * 6);
        std::fflush(stdout);
        report["runs"].push_back({{"batch", B},
                                  {"prefill_seconds", best_prefill},
                                  {"prefill_tok_s", prefill_tok},
                                  {"prefill_bp_s", prefill_bp},
                                  {"decode_seconds", best_decode},
                                  {"decode_tok_s", decode_tok},
                                  {"decode_bp_s", decode_tok * 6}});
    }
    const size_t peak = peak_rss_bytes();  // before the bandwidth probe's buffer
    report["peak_rss_bytes"] = peak;
    std::printf("peak memory %s (weights %s, ratio %.2f)\n", human_bytes(double(peak)).c_str(),
                human_bytes(double(be.memory_plan().weights)).c_str(), double(peak) / double(be.memory_plan().weights));
    // The decode figures against this machine's own limit: a batch-1 step reads the weights once.
    if (be.name() == "cpu") {
        const int threads = mo.threads > 0 ? mo.threads : usable_cpus();
        const double bandwidth = measure_read_bandwidth(threads);
        const double step_bytes = double(decode_weight_bytes(m->checkpoint().weights(), 4096, quantised_bytes_per_weight(mo.weights)));
        report["read_bandwidth_bytes_s"] = bandwidth;
        report["decode_step_weight_bytes"] = step_bytes;
        std::printf("read bandwidth %.1f GB/s with %d threads; a batch-1 decode step reads %.3f GB of weights: "
                    "at most %.1f tok/s\n",
                    bandwidth / 1e9, threads, step_bytes / 1e9, bandwidth / step_bytes);
        for (const auto& run : report["runs"])
            if (run["batch"] == 1) {
                const double share = run["decode_tok_s"].get<double>() * step_bytes / bandwidth;
                report["decode_b1_bandwidth_share"] = share;
                std::printf("batch-1 decode at %.0f%% of the read bandwidth\n", 100 * share);
            }
    }
    write_report(a, report);
    return 0;
}

}  // namespace carbon::cli
