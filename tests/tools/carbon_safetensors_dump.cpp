// Test tool for tests/python/test_safetensors_interop.py: prints what the engine reads from
// safetensors files, config.json and checkpoints as JSON, and writes files for Python to read.
//   carbon_safetensors_dump FILE|DIR          tensors: name -> dtype, shape, nbytes, sum (as f64)
//   carbon_safetensors_dump --config FILE     the parsed ModelConfig, or {"error": message}
//   carbon_safetensors_dump --checkpoint DIR  Checkpoint::open summary, or {"error": message}
//   carbon_safetensors_dump --write DIR       writes single.safetensors and sharded/ (values below)
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "carbon/loader/checkpoint.h"
#include "carbon/loader/safetensors.h"

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

const char* st_name(carbon::DType t) {
    switch (t) {
        case carbon::DType::F32:
            return "F32";
        case carbon::DType::F16:
            return "F16";
        case carbon::DType::BF16:
            return "BF16";
        case carbon::DType::Q8_0:
        case carbon::DType::I8:
        case carbon::DType::I32:
            break;  // not a safetensors type here
    }
    return "?";
}

ordered_json dump_archive(const carbon::TensorArchive& a) {
    ordered_json out;
    out["files"] = ordered_json::array();
    for (const fs::path& f : a.files()) out["files"].push_back(f.filename().string());
    out["tensors"] = ordered_json::object();
    for (const auto& [name, t] : a.tensors()) {
        double sum = 0;
        for (int64_t i = 0; i < t.numel(); ++i) sum += carbon::load_as_f32(t.data, t.dtype, size_t(i));
        out["tensors"][name] = {{"dtype", st_name(t.dtype)}, {"shape", t.shape}, {"nbytes", t.nbytes}, {"sum", sum}};
    }
    return out;
}

ordered_json dump_config(const carbon::ModelConfig& c) {
    const carbon::RopeScaling& s = c.rope_scaling;
    ordered_json rope = {{"rope_type", carbon::rope_type_name(s.type)},
                         {"factor", s.factor},
                         {"original_max_position_embeddings", s.original_max_position_embeddings},
                         {"beta_fast", s.beta_fast},
                         {"beta_slow", s.beta_slow},
                         {"truncate", s.truncate},
                         {"low_freq_factor", s.low_freq_factor},
                         {"high_freq_factor", s.high_freq_factor}};
    rope["attention_factor"] = s.attention_factor ? ordered_json(*s.attention_factor) : ordered_json(nullptr);
    ordered_json j = {{"vocab_size", c.vocab_size},
                      {"hidden_size", c.hidden_size},
                      {"intermediate_size", c.intermediate_size},
                      {"num_hidden_layers", c.num_hidden_layers},
                      {"num_attention_heads", c.num_attention_heads},
                      {"num_key_value_heads", c.num_key_value_heads},
                      {"head_dim", c.head_dim},
                      {"max_position_embeddings", c.max_position_embeddings},
                      {"rms_norm_eps", c.rms_norm_eps},
                      {"rope_theta", c.rope_theta},
                      {"tie_word_embeddings", c.tie_word_embeddings},
                      {"attention_bias", c.attention_bias},
                      {"mlp_bias", c.mlp_bias},
                      {"dtype", carbon::dtype_name(c.torch_dtype)},
                      {"parameter_count", c.parameter_count()},
                      {"rope", rope}};
    j["eos_token_id"] = c.eos_token_id ? ordered_json(*c.eos_token_id) : ordered_json(nullptr);
    return j;
}

// Deterministic values that bf16 and f16 hold exactly: Python recomputes them the same way.
float value(int64_t i, int k) {
    return float((i * 37 + k * 11) % 101 - 50) / 16.0f;
}

carbon::TensorToWrite make(const std::string& name, carbon::DType t, std::vector<int64_t> shape, int k) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> bytes(size_t(n) * carbon::dtype_size(t));
    for (int64_t i = 0; i < n; ++i) {
        const float v = value(i, k);
        if (t == carbon::DType::F32) {
            std::memcpy(bytes.data() + 4 * i, &v, 4);
        } else {
            const uint16_t h = t == carbon::DType::F16 ? carbon::f32_to_f16(v) : carbon::f32_to_bf16(v);
            std::memcpy(bytes.data() + 2 * i, &h, 2);
        }
    }
    return {name, t, std::move(shape), std::move(bytes)};
}

void write_samples(const fs::path& dir) {
    fs::create_directories(dir / "sharded");
    std::vector<carbon::TensorToWrite> ts;
    ts.push_back(make("f32.matrix", carbon::DType::F32, {3, 5}, 0));
    ts.push_back(make("f16.vector", carbon::DType::F16, {7}, 1));
    ts.push_back(make("bf16.cube", carbon::DType::BF16, {2, 3, 4}, 2));
    ts.push_back(make("scalar", carbon::DType::F32, {}, 3));
    ts.push_back(make("empty", carbon::DType::BF16, {0, 3}, 4));
    ts.push_back(make("odd.bf16", carbon::DType::BF16, {3}, 5));  // 6 bytes: later offsets unaligned
    ts.push_back(make("after.odd", carbon::DType::F32, {2}, 6));
    carbon::write_safetensors(dir / "single.safetensors", ts);
    carbon::write_sharded_safetensors(dir / "sharded", ts, 64);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string usage =
        "usage: carbon_safetensors_dump FILE|DIR | --config FILE | --checkpoint DIR | --write DIR";
    if (argc < 2 || argc > 3) {
        std::cerr << usage << "\n";
        return 2;
    }
    const std::string mode = argc == 3 ? argv[1] : "";
    const fs::path arg = argv[argc - 1];
    try {
        ordered_json out;
        if (mode.empty()) {
            out = fs::is_directory(arg) ? dump_archive(carbon::open_safetensors_dir(arg))
                                        : dump_archive(carbon::open_safetensors_file(arg));
        } else if (mode == "--config") {
            out = dump_config(carbon::load_config(arg));
        } else if (mode == "--checkpoint") {
            const carbon::Checkpoint ck = carbon::Checkpoint::open(arg);
            out = dump_config(ck.config());
            out["weights_dtype"] = carbon::dtype_name(ck.weights().dtype);
            out["lm_head_is_embedding"] = ck.weights().lm_head == ck.weights().embed;
            out["layers"] = ck.weights().layers.size();
            out["archive"] = dump_archive(ck.archive());
        } else if (mode == "--write") {
            write_samples(arg);
            out = {{"written", arg.string()}};
        } else {
            std::cerr << usage << "\n";
            return 2;
        }
        std::cout << out.dump(1) << "\n";
    } catch (const carbon::Error& e) {
        std::cout << ordered_json{{"error", e.what()}}.dump() << "\n";
        return 3;
    }
    return 0;
}
