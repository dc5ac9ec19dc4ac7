// The model's config.json as the engine uses it: every Llama field that changes the network,
// read by name from the file (never assumed), with defaults only where transformers has them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "carbon/support/common.h"

namespace carbon {

enum class RopeType { Default, Linear, Yarn, Llama3 };
const char* rope_type_name(RopeType t);

// rope_scaling (legacy key) or rope_parameters (transformers 5) resolved to one description.
struct RopeScaling {
    RopeType type = RopeType::Default;
    double factor = 1.0;                           // yarn, llama3, linear
    int original_max_position_embeddings = 0;      // yarn, llama3 (yarn: defaults to max_position_embeddings)
    double beta_fast = 32.0, beta_slow = 1.0;      // yarn
    std::optional<double> attention_factor;        // yarn; derived from factor/mscale when absent
    std::optional<double> mscale, mscale_all_dim;  // yarn
    bool truncate = true;                          // yarn
    double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
};

struct ModelConfig {
    std::filesystem::path path;  // the config.json this came from
    std::string model_type;      // "llama"
    std::vector<std::string> architectures;
    int vocab_size = 0;
    int hidden_size = 0;
    int intermediate_size = 0;
    int num_hidden_layers = 0;
    int num_attention_heads = 0;
    int num_key_value_heads = 0;  // defaults to num_attention_heads
    int head_dim = 0;             // defaults to hidden_size / num_attention_heads
    int max_position_embeddings = 0;
    double rms_norm_eps = 1e-6;
    double rope_theta = 10000.0;
    double partial_rotary_factor = 1.0;
    RopeScaling rope_scaling;
    bool tie_word_embeddings = false;
    bool attention_bias = false;
    bool mlp_bias = false;
    std::string hidden_act = "silu";
    DType torch_dtype = DType::BF16;
    std::optional<int> bos_token_id, eos_token_id, pad_token_id;
    // A sequence-regression checkpoint (architectures: LlamaForSequenceClassification, a linear
    // head `score` pooled at the last token that is not pad_token_id, as transformers pools): its
    // outputs' names, id2label in index order ("LABEL_i" where it gives none), and problem_type as
    // written ("" when absent). Empty for a language model.
    std::vector<std::string> labels;
    std::string problem_type;
    bool sequence_head() const;

    int rotary_dim() const { return int(head_dim * partial_rotary_factor); }
    int64_t parameter_count() const;  // from the shapes, with the head counted once when tied
};

// Parses and validates config.json. Throws carbon::Error naming the file and the key for a
// missing/ill-typed key, a non-Llama model type, non-positive sizes, heads that do not divide,
// an unsupported hidden_act or rope type, and so on.
ModelConfig load_config(const std::filesystem::path& config_json);
ModelConfig parse_config(const std::string& json_text, const std::filesystem::path& where);

}  // namespace carbon
