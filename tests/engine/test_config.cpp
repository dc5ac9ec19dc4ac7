// config.json parsing: LlamaConfig defaults, both RoPE spellings (rope_scaling / rope_parameters)
// with transformers' YaRN/llama3 defaults, and validation messages that name the file and key.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "carbon/loader/config.h"
#include "check.h"

using carbon::ModelConfig;
using carbon::RopeType;
using nlohmann::json;

namespace {

const char* kFile = "/models/tiny/config.json";

json base() {
    return json{{"model_type", "llama"},
                {"architectures", {"LlamaForCausalLM"}},
                {"vocab_size", 320},
                {"hidden_size", 64},
                {"intermediate_size", 96},
                {"num_hidden_layers", 2},
                {"num_attention_heads", 4},
                {"num_key_value_heads", 2},
                {"max_position_embeddings", 4096},
                {"rms_norm_eps", 1e-5},
                {"rope_theta", 5000000.0},
                {"bos_token_id", 1},
                {"eos_token_id", 2},
                {"torch_dtype", "bfloat16"}};
}

ModelConfig parse(const json& j) {
    return carbon::parse_config(j.dump(), kFile);
}

// transformers' get_mscale, for the expected YaRN attention factor.
double mscale(double scale, double m) {
    return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
}

}  // namespace

TEST(defaults_follow_llama_config) {
    json j = base();
    j.erase("num_key_value_heads");
    j.erase("rms_norm_eps");
    j.erase("rope_theta");
    j.erase("torch_dtype");
    j.erase("eos_token_id");
    const ModelConfig c = parse(j);
    CHECK_EQ(c.path.string(), std::string(kFile));
    CHECK_EQ(c.num_key_value_heads, 4);
    CHECK_EQ(c.head_dim, 16);
    CHECK_EQ(c.rms_norm_eps, 1e-6);
    CHECK_EQ(c.rope_theta, 10000.0);
    CHECK_EQ(c.partial_rotary_factor, 1.0);
    CHECK(c.rope_scaling.type == RopeType::Default);
    CHECK(!c.tie_word_embeddings);
    CHECK(!c.attention_bias);
    CHECK(!c.mlp_bias);
    CHECK_EQ(c.hidden_act, std::string("silu"));
    CHECK(c.torch_dtype == carbon::DType::BF16);
    CHECK(c.bos_token_id == 1);
    CHECK(!c.eos_token_id);
    CHECK(!c.pad_token_id);
    CHECK_EQ(c.rotary_dim(), 16);
    CHECK_EQ(c.architectures.size(), size_t(1));
}

TEST(explicit_fields_are_read) {
    json j = base();
    j["head_dim"] = 32;  // need not equal hidden/heads (Carbon-3B: 3072/32 = 96 is derived, others set it)
    j["tie_word_embeddings"] = true;
    j["attention_bias"] = true;
    j["mlp_bias"] = true;
    j["dtype"] = "float16";
    j["torch_dtype"] = "float32";  // transformers keeps `dtype` when both are present
    j["eos_token_id"] = {7, 2, 3};
    j["pad_token_id"] = nullptr;
    const ModelConfig c = parse(j);
    CHECK_EQ(c.head_dim, 32);
    CHECK(c.tie_word_embeddings);
    CHECK(c.attention_bias);
    CHECK(c.mlp_bias);
    CHECK(c.torch_dtype == carbon::DType::F16);
    CHECK(c.eos_token_id == 7);
    CHECK(!c.pad_token_id);
    CHECK_EQ(c.rope_theta, 5000000.0);
}

TEST(head_dim_null_and_swish) {
    json j = base();
    j["head_dim"] = nullptr;
    j["num_key_value_heads"] = nullptr;
    j["hidden_act"] = "swish";
    j["torch_dtype"] = "float32";
    const ModelConfig c = parse(j);
    CHECK_EQ(c.head_dim, 16);
    CHECK_EQ(c.num_key_value_heads, 4);
    CHECK_EQ(c.hidden_act, std::string("silu"));
    CHECK(c.torch_dtype == carbon::DType::F32);
}

TEST(out_of_vocab_special_ids_mean_none) {
    json j = base();
    j["pad_token_id"] = -1;
    j["bos_token_id"] = 320;
    const ModelConfig c = parse(j);
    CHECK(!c.pad_token_id);
    CHECK(!c.bos_token_id);
}

TEST(a_sequence_regression_head_names_its_outputs_in_index_order) {
    json j = base();
    j["architectures"] = {"LlamaForSequenceClassification"};
    j["problem_type"] = "regression";
    j["id2label"] = {{"1", "HepG2_scaled"}, {"0", "K562_scaled"}, {"2", "SKNSH_scaled"}};
    const ModelConfig c = parse(j);
    CHECK(c.sequence_head());
    CHECK(c.labels == (std::vector<std::string>{"K562_scaled", "HepG2_scaled", "SKNSH_scaled"}));
    CHECK_EQ(c.problem_type, std::string("regression"));
    CHECK_EQ(c.parameter_count(), parse(base()).parameter_count() - 320 * 64 + 3 * 64);  // score in place of lm_head
    // num_labels alone: transformers' LABEL_i names.
    j.erase("id2label");
    j["num_labels"] = 2;
    CHECK(parse(j).labels == (std::vector<std::string>{"LABEL_0", "LABEL_1"}));
    // A language model has none.
    CHECK(parse(base()).labels.empty());
    // id2label that is not 0 .. n-1, each once; num_labels that disagrees.
    j["id2label"] = {{"0", "a"}, {"2", "b"}};
    j.erase("num_labels");
    CHECK_THROWS_WITH(parse(j), "id2label", "its keys must be 0 to 1");
    j["id2label"] = {{"0", "a"}, {"x", "b"}};
    CHECK_THROWS_WITH(parse(j), "has the key \"x\"");
    j["id2label"] = {{"0", "a"}, {"1", 5}};
    CHECK_THROWS_WITH(parse(j), "names label 1 with 5");
    j["id2label"] = {{"0", "a"}, {"1", "b"}};
    j["num_labels"] = 3;
    CHECK_THROWS_WITH(parse(j), "names 2 labels where num_labels is 3");
}

TEST(parameter_count) {
    json j = base();
    ModelConfig c = parse(j);
    // V=320 H=64 F=96 L=2 heads=4 kv=2 hd=16: q=o=64x64, k=v=32x64
    const int64_t layer = 2 * 64 + 64 * 64 * 2 + 32 * 64 * 2 + 3 * 64 * 96;
    CHECK_EQ(c.parameter_count(), int64_t(320 * 64 * 2 + 2 * layer + 64));
    c.tie_word_embeddings = true;
    CHECK_EQ(c.parameter_count(), int64_t(320 * 64 + 2 * layer + 64));
    c.attention_bias = true;
    c.mlp_bias = true;
    CHECK_EQ(c.parameter_count(), int64_t(320 * 64 + 2 * (layer + 64 + 32 + 32 + 64 + 96 + 96 + 64) + 64));
}

TEST(carbon_3b_shape) {
    json j = base();
    j["vocab_size"] = 155776;
    j["hidden_size"] = 3072;
    j["intermediate_size"] = 8448;
    j["num_hidden_layers"] = 30;
    j["num_attention_heads"] = 32;
    j["num_key_value_heads"] = 4;
    j["tie_word_embeddings"] = true;
    const ModelConfig c = parse(j);
    CHECK_EQ(c.head_dim, 96);
    // ~3B parameters; exact value from the shapes.
    const int64_t layer = 2 * 3072 + 3072 * 3072 * 2 + 384 * 3072 * 2 + 3 * 3072 * 8448;
    CHECK_EQ(c.parameter_count(), int64_t(155776) * 3072 + 30 * layer + 3072);
}

TEST(yarn_legacy_rope_scaling) {
    json j = base();
    j["max_position_embeddings"] = 65536;
    j["rope_scaling"] = {{"type", "yarn"}, {"factor", 2.0}, {"original_max_position_embeddings", 32768}};
    const ModelConfig c = parse(j);
    const auto& s = c.rope_scaling;
    CHECK(s.type == RopeType::Yarn);
    CHECK_EQ(s.factor, 2.0);
    CHECK_EQ(s.original_max_position_embeddings, 32768);
    CHECK_EQ(s.beta_fast, 32.0);
    CHECK_EQ(s.beta_slow, 1.0);
    CHECK(s.truncate);
    CHECK(!s.mscale);
    CHECK(s.attention_factor.has_value());
    CHECK_NEAR(s.attention_factor.value_or(0), 0.1 * std::log(2.0) + 1.0, 1e-15);
    CHECK_EQ(c.rope_theta, 5000000.0);
    CHECK_EQ(std::string(carbon::rope_type_name(s.type)), std::string("yarn"));
}

TEST(yarn_defaults_as_transformers) {
    // No factor: max_position_embeddings / original. No original: max_position_embeddings.
    json j = base();
    j["max_position_embeddings"] = 65536;
    j["rope_scaling"] = {{"rope_type", "yarn"},
                         {"original_max_position_embeddings", 16384},
                         {"beta_fast", 0},
                         {"beta_slow", nullptr},
                         {"truncate", false}};
    ModelConfig c = parse(j);
    CHECK_EQ(c.rope_scaling.factor, 4.0);
    CHECK_EQ(c.rope_scaling.beta_fast, 32.0);  // `get("beta_fast") or 32`: 0 counts as absent
    CHECK_EQ(c.rope_scaling.beta_slow, 1.0);
    CHECK(!c.rope_scaling.truncate);
    CHECK_NEAR(c.rope_scaling.attention_factor.value_or(0), 0.1 * std::log(4.0) + 1.0, 1e-15);

    j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 8.0}, {"truncate", nullptr}};
    c = parse(j);
    CHECK_EQ(c.rope_scaling.original_max_position_embeddings, 65536);
    CHECK(!c.rope_scaling.truncate);  // `get("truncate", True)` returns None, which is falsy

    // A top-level original_max_position_embeddings wins (transformers re-standardizes with it).
    j["original_max_position_embeddings"] = 8192;
    j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 8.0}, {"original_max_position_embeddings", 4096}};
    c = parse(j);
    CHECK_EQ(c.rope_scaling.original_max_position_embeddings, 8192);
}

TEST(yarn_mscale_and_explicit_attention_factor) {
    json j = base();
    j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0},           {"original_max_position_embeddings", 1024},
                         {"mscale", 1.0},       {"mscale_all_dim", 0.707}, {"beta_fast", 16},
                         {"beta_slow", 2}};
    ModelConfig c = parse(j);
    CHECK_NEAR(c.rope_scaling.attention_factor.value_or(0), mscale(4.0, 1.0) / mscale(4.0, 0.707), 1e-15);
    CHECK_EQ(c.rope_scaling.mscale.value_or(0), 1.0);
    CHECK_EQ(c.rope_scaling.mscale_all_dim.value_or(0), 0.707);
    CHECK_EQ(c.rope_scaling.beta_fast, 16.0);
    CHECK_EQ(c.rope_scaling.beta_slow, 2.0);

    j["rope_scaling"]["mscale_all_dim"] = 0;  // falsy: falls back to get_mscale(factor)
    c = parse(j);
    CHECK_NEAR(c.rope_scaling.attention_factor.value_or(0), mscale(4.0, 1.0), 1e-15);

    j["rope_scaling"]["attention_factor"] = 0.5;
    c = parse(j);
    CHECK_EQ(c.rope_scaling.attention_factor.value_or(0), 0.5);
}

TEST(rope_parameters_form) {
    // transformers 5 writes rope_parameters with rope_theta inside; it wins over the top level.
    json j = base();
    j.erase("rope_theta");
    j["rope_parameters"] = {
        {"rope_type", "yarn"}, {"rope_theta", 1000000.0}, {"factor", 2.0}, {"original_max_position_embeddings", 2048}};
    ModelConfig c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Yarn);
    CHECK_EQ(c.rope_theta, 1000000.0);
    CHECK_EQ(c.rope_scaling.original_max_position_embeddings, 2048);

    j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 250000.0}};
    j["rope_theta"] = 7.0;
    c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Default);
    CHECK_EQ(c.rope_theta, 250000.0);

    // A legacy rope_scaling beside rope_parameters wins, as `rope_scaling or rope_parameters`.
    j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.5}};
    c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Linear);
    CHECK_EQ(c.rope_scaling.factor, 2.5);
    CHECK_EQ(c.rope_theta, 7.0);

    j["rope_scaling"] = json::object();  // empty dict is falsy in Python
    c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Default);
    j["rope_scaling"] = nullptr;
    c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Default);
}

TEST(llama3) {
    json j = base();
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", 8.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 1024}};
    ModelConfig c = parse(j);
    CHECK(c.rope_scaling.type == RopeType::Llama3);
    CHECK_EQ(c.rope_scaling.factor, 8.0);
    CHECK_EQ(c.rope_scaling.low_freq_factor, 1.0);
    CHECK_EQ(c.rope_scaling.high_freq_factor, 4.0);
    CHECK_EQ(c.rope_scaling.original_max_position_embeddings, 1024);

    // transformers' standardize_rope_params defaults original_max_position_embeddings here too.
    j["rope_scaling"].erase("original_max_position_embeddings");
    c = parse(j);
    CHECK_EQ(c.rope_scaling.original_max_position_embeddings, 4096);

    for (const char* key : {"factor", "low_freq_factor", "high_freq_factor"}) {
        json k = j;
        k["rope_scaling"].erase(key);
        CHECK_THROWS_WITH(parse(k), kFile, key, "llama3", "missing");
    }
    j["rope_scaling"]["high_freq_factor"] = 1.0;
    CHECK_THROWS_WITH(parse(j), kFile, "high_freq_factor", "low_freq_factor");
}

TEST(unsupported_rope_types) {
    for (const char* t : {"dynamic", "longrope", "proportional", "su"}) {
        json j = base();
        j["rope_scaling"] = {{"type", t}, {"factor", 2.0}};
        // CHECK_THROWS_WITH keeps raw pointers: the expected text must outlive the macro.
        const std::string want = std::string("unsupported rope type ") + t + " in " + kFile;
        CHECK_THROWS_WITH(parse(j), want.c_str());
    }
    json j = base();
    j["rope_scaling"] = {{"rope_type", "linear"}};
    CHECK_THROWS_WITH(parse(j), kFile, "rope_scaling.factor", "linear");
    j["rope_scaling"] = "yarn";
    CHECK_THROWS_WITH(parse(j), kFile, "rope_scaling", "object");
}

TEST(model_type_and_activation) {
    json j = base();
    j["model_type"] = "mistral";
    CHECK_THROWS_WITH(parse(j), kFile, "mistral", "llama");
    j.erase("model_type");
    CHECK_THROWS_WITH(parse(j), kFile, "model_type", "missing");
    j = base();
    j["hidden_act"] = "gelu";
    CHECK_THROWS_WITH(parse(j), kFile, "hidden_act", "gelu", "silu");
    j = base();
    j["torch_dtype"] = "int8";
    CHECK_THROWS_WITH(parse(j), kFile, "torch_dtype", "int8");
}

TEST(missing_and_ill_typed_keys) {
    for (const char* key : {"vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
                            "num_attention_heads", "max_position_embeddings"}) {
        json j = base();
        j.erase(key);
        CHECK_THROWS_WITH(parse(j), kFile, key, "missing");
        j[key] = "64";
        CHECK_THROWS_WITH(parse(j), kFile, key, "integer");
        j[key] = 64.0;
        CHECK_THROWS_WITH(parse(j), kFile, key, "integer");
        j[key] = 0;
        CHECK_THROWS_WITH(parse(j), kFile, key, "positive");
        j[key] = nullptr;
        CHECK_THROWS_WITH(parse(j), kFile, key, "null");
    }
    json j = base();
    j["rms_norm_eps"] = "1e-5";
    CHECK_THROWS_WITH(parse(j), kFile, "rms_norm_eps", "number");
    j = base();
    j["tie_word_embeddings"] = 1;
    CHECK_THROWS_WITH(parse(j), kFile, "tie_word_embeddings", "true or false");
    j = base();
    j["hidden_size"] = 1ll << 40;
    CHECK_THROWS_WITH(parse(j), kFile, "hidden_size", "range");
    CHECK_THROWS_WITH(carbon::parse_config("[1, 2]", kFile), kFile, "object");
}

TEST(shape_validation) {
    json j = base();
    j["num_key_value_heads"] = 3;
    CHECK_THROWS_WITH(parse(j), kFile, "num_attention_heads (4)", "num_key_value_heads (3)");
    j = base();
    j["num_attention_heads"] = 5;
    j["num_key_value_heads"] = 5;
    CHECK_THROWS_WITH(parse(j), kFile, "hidden_size (64)", "num_attention_heads (5)");
    j = base();
    j["head_dim"] = 15;
    CHECK_THROWS_WITH(parse(j), kFile, "head_dim", "odd");
    j = base();
    j["hidden_size"] = 36;  // 36/4 = 9: an odd derived head_dim
    CHECK_THROWS_WITH(parse(j), kFile, "head_dim", "odd");
    j = base();
    j["rms_norm_eps"] = -1e-6;
    CHECK_THROWS_WITH(parse(j), kFile, "rms_norm_eps", "negative");
    j = base();
    j["num_key_value_heads"] = -2;
    CHECK_THROWS_WITH(parse(j), kFile, "num_key_value_heads", "positive");
    j = base();
    j["rope_theta"] = 0;
    CHECK_THROWS_WITH(parse(j), kFile, "rope_theta", "positive");
}

TEST(partial_rotary_factor) {
    json j = base();
    j["head_dim"] = 12;
    j["partial_rotary_factor"] = 0.25;  // 3 rotary dims: odd
    CHECK_THROWS_WITH(parse(j), kFile, "partial_rotary_factor", "odd");
    j["partial_rotary_factor"] = 0.5;  // even, but transformers' Llama never rotates part of a head
    CHECK_THROWS_WITH(parse(j), kFile, "partial_rotary_factor", "not supported");
    j["partial_rotary_factor"] = 1.0;
    CHECK_EQ(parse(j).rotary_dim(), 12);
}

TEST(malformed_json_names_file_and_position) {
    CHECK_THROWS_WITH(carbon::parse_config("{\"model_type\": \"llama\",\n \"vocab_size\": }", kFile), kFile,
                      "malformed JSON", "line 2");
}

TEST(load_config_from_disk) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("carbon-test-config-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path p = dir / "config.json";
    { std::ofstream(p) << base().dump(2); }
    const ModelConfig c = carbon::load_config(p);
    CHECK_EQ(c.path, p);
    CHECK_EQ(c.vocab_size, 320);
    const std::string missing = (dir / "nope.json").string(), file = p.string();
    CHECK_THROWS_WITH(carbon::load_config(dir / "nope.json"), missing.c_str(), "No such file or directory");
    { std::ofstream(p) << "{ \"model_type\": "; }
    CHECK_THROWS_WITH(carbon::load_config(p), file.c_str(), "malformed JSON", "line 1");
    fs::remove_all(dir);
}

TEST(rope_type_names) {
    CHECK_EQ(std::string(carbon::rope_type_name(RopeType::Default)), std::string("default"));
    CHECK_EQ(std::string(carbon::rope_type_name(RopeType::Linear)), std::string("linear"));
    CHECK_EQ(std::string(carbon::rope_type_name(RopeType::Llama3)), std::string("llama3"));
}

CHECK_MAIN()
