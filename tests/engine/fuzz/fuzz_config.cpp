// Fuzz target for config.json: parse_config must accept the input or refuse it with
// carbon::Error; an accepted config's RoPE table is computed too (its numbers must not overflow
// unnoticed) and its derived sizes must be consistent.
#include <nlohmann/json.hpp>

#include "carbon/loader/config.h"
#include "carbon/loader/rope.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    const nlohmann::json base = {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_size", 64},
                                 {"intermediate_size", 160}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                                 {"num_key_value_heads", 2}, {"vocab_size", 4399}, {"max_position_embeddings", 2048},
                                 {"rms_norm_eps", 1e-6}, {"rope_theta", 500000.0}, {"tie_word_embeddings", true},
                                 {"torch_dtype", "bfloat16"}};
    nlohmann::json yarn = base, llama3 = base, v5 = base;
    yarn["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 512}};
    llama3["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                              {"original_max_position_embeddings", 256}};
    v5.erase("rope_theta");
    v5["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 10000.0}};
    v5["head_dim"] = 24;
    return {base.dump(2), yarn.dump(), llama3.dump(), v5.dump(), "{}", "[1, 2]"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const carbon::ModelConfig c = carbon::parse_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz/config.json");
        if (c.hidden_size <= 0 || c.num_attention_heads <= 0 || c.num_key_value_heads <= 0 || c.head_dim <= 0 ||
            c.num_attention_heads % c.num_key_value_heads != 0)
            __builtin_trap();  // parse_config promises these
        (void)c.parameter_count();
        (void)carbon::compute_rope(c);
    } catch (const carbon::Error&) {
    }
    return 0;
}
