// carbon-cli bench's workloads beyond prefill/decode (cli_bench_workloads.cpp): generation (FNS or
// direct), base-level scoring of fixed-size windows, and speculative decoding with a draft model.
// Each appends one row per batch size to report["runs"] and prints a table on stdout.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"

namespace carbon::cli {

struct BenchSettings {
    std::vector<int> batches;
    int repeat = 1;        // best of this many runs per batch size
    uint64_t seed = 1;
    size_t length_bp = 600;   // generate, speculative: bases per design
    std::vector<GenerationMode> modes{GenerationMode::Fns, GenerationMode::Direct};  // generate
    double temperature = 1.0;  // generate (speculative is greedy)
    size_t window_bp = 8192;   // score: bases per window, one window per sequence
    size_t draft_tokens = 4;   // speculative: the draft's first k (adaptive)
};

void bench_generate(Model& model, const BenchSettings& settings, nlohmann::json& report);
void bench_score(Model& model, const BenchSettings& settings, nlohmann::json& report);
// Target alone, with the draft (switch-off disabled, so speculation is measured throughout) and as
// users run it (switch-off on); greedy, identity verification. False when any run's designs differ
// from the target alone's.
bool bench_speculative(Model& model, Model& draft, const BenchSettings& settings, nlohmann::json& report);

}  // namespace carbon::cli
