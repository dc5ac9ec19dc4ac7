// Random-weight checkpoints in the exact Hugging Face layout (config.json, safetensors with an
// index when sharded, tokenizer files in the Carbon id layout), so tests and benchmarks run on
// real shapes without the real weights. Weights are scaled so logits are far from flat.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "carbon/loader/config.h"
#include "carbon/support/common.h"

namespace carbon {

struct TestModelOptions {
    std::string preset = "tiny";  // tiny | carbon-500m | carbon-3b | carbon-8b
    uint64_t seed = 0;
    std::optional<int> layers, hidden, intermediate, heads, kv_heads, head_dim, max_position;
    std::optional<bool> tie;
    DType dtype = DType::BF16;
    std::string rope = "none";     // none | yarn | llama3 (tiny: applied with test-friendly factors)
    double rope_theta = 0;         // 0: the preset's
    size_t shard_bytes = 0;        // > 0: shard the weights into files of at most this many bytes
    bool compact_vocab = false;    // DNA tokens right after a small text vocabulary (vocab ~ 6k)
    bool list_kmers = false;       // list the 6-mers as added tokens instead of relying on the layout rule
    bool rope_parameters_form = false;  // write transformers-5 "rope_parameters" instead of rope_theta/rope_scaling
    // Non-empty: a sequence-regression checkpoint as LlamaForSequenceClassification.save_pretrained
    // writes one (problem_type "regression", id2label these labels, a random `score.weight`
    // [labels, hidden] and no lm_head), as Carbon's fine-tuning recipes make them.
    std::vector<std::string> regression_labels;
};

// The preset's config (sizes, heads, rope), with options applied; vocab_size and dtype filled.
ModelConfig test_model_config(const TestModelOptions& options);

// Writes the checkpoint into `dir` (created; existing model files are replaced). `progress` gets
// (bytes written, total bytes) and may return false to cancel.
void make_test_model(const std::filesystem::path& dir, const TestModelOptions& options,
                     const std::function<bool(size_t, size_t)>& progress = {});

}  // namespace carbon
