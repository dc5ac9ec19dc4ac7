// carbon-cli bench: prefill and decode throughput of the engine on one checkpoint, at several
// batch sizes, with peak memory. The transformers peer (tests/bench/bench_transformers.py) reads
// the prompts this writes to --json, so both run the same token ids.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "carbon/cpu/bandwidth_probe.h"
#include "carbon/cpu/cpu_features.h"
#include "carbon/fns/sampling.h"
#include "carbon/model.h"
#include "carbon/support/output_file.h"
#include "carbon/support/thread_pool.h"
#include "cli_args.h"
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

}  // namespace

const char* kBenchUsage = R"(usage: carbon-cli bench --model DIR [--threads N] [--prompt-tokens N] [--decode-tokens N]
             [--batches 1,8] [--repeat N] [--seed S] [--json FILE] [--backend cpu|cuda|auto]
             [--cpu-kernels auto|fp32|portable|avx2|avx512|avx512-bf16|amx]
  Prefill and decode speed of a backend (the CPU's unless --backend says otherwise) at each batch
  size (tokens/s, bp/s), and the peak memory against the weights' size; on the CPU, also this
  machine's read bandwidth with the same threads and the batch-1 decode as a share of it. Figures: docs/benchmarks.md (tests/bench/cpu_bench.sh runs it
  beside transformers).
)";

int cmd_bench(const std::vector<std::string>& argv) {
    if (wants_help(argv, kBenchUsage)) return 0;
    using json = nlohmann::json;
    Args a(argv, {"model", "threads", "prompt-tokens", "decode-tokens", "batches", "repeat", "json", "seed", "backend", "cpu-kernels"}, {});
    ModelOptions mo;
    mo.backend = parse_backend_kind(a.get_or("backend", "cpu"));
    mo.threads = int(a.integer("threads", 0, 0, 1024));
    mo.cpu_kernels = a.get_or("cpu-kernels", "auto");
    const size_t prompt_tokens = size_t(a.integer("prompt-tokens", 128, 1, 1 << 20));
    const size_t decode_tokens = size_t(a.integer("decode-tokens", 32, 1, 1 << 20));
    const int repeat = int(a.integer("repeat", 3, 1, 100));
    const uint64_t seed = uint64_t(a.integer("seed", 1, 0, 1ll << 62));
    const std::vector<int> batches = parse_list(a.get_or("batches", "1,8"));

    const auto t_load = std::chrono::steady_clock::now();
    auto m = Model::load(a.required("model"), mo);
    const double load_s = seconds_since(t_load);
    Backend& be = m->backend();
    const Tokenizer& tok = m->tokenizer();
    std::fprintf(stderr, "bench: %s on %s (load %.2f s)\n", m->checkpoint().dir().c_str(), be.describe().c_str(), load_s);

    json report;
    report["model"] = m->checkpoint().dir().string();
    report["backend"] = be.describe();
    report["cpu_flags"] = cpu_flags();
    report["threads"] = mo.threads;
    report["prompt_tokens"] = prompt_tokens;
    report["decode_tokens"] = decode_tokens;
    report["weights_bytes"] = be.memory_plan().weights;
    report["runs"] = json::array();

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
        const double step_bytes = double(decode_weight_bytes(m->checkpoint().weights()));
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
    if (auto path = a.get("json")) {
        OutputFile f(*path);
        f.stream() << report.dump(1) << "\n";
        f.commit();
    }
    return 0;
}

}  // namespace carbon::cli
