// Checkpoint::open on tiny Llama checkpoints written here: valid layouts (single file, shards,
// tied/untied, bf16/f16/f32, biases) and broken ones, whose errors must name the file and tensor.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "carbon/loader/checkpoint.h"
#include "carbon/loader/safetensors.h"
#include "carbon/loader/rope.h"

#include <sys/stat.h>
#include "check.h"

namespace fs = std::filesystem;
using carbon::Checkpoint;
using carbon::DType;
using carbon::TensorToWrite;
using nlohmann::json;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("carbon-test-ckpt-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// The tiny model: V=32 H=16 F=24, 2 layers, 4 heads / 2 KV heads of dim 4.
constexpr int V = 32, H = 16, F = 24, L = 2, NH = 4, NKV = 2, HD = 4;

struct Spec {
    DType dtype = DType::BF16;       // matrices
    DType norm_dtype = DType::BF16;  // 1-D tensors
    bool tied = false;
    bool write_lm_head = true;
    bool attention_bias = false;
    bool mlp_bias = false;
    size_t shard_bytes = 1 << 30;  // one file unless smaller
    // Last-minute edits of the tensor list (drop one, change a shape, ...).
    std::function<void(std::vector<TensorToWrite>&)> edit;
};

json config_for(const Spec& s) {
    return json{{"architectures", {"LlamaForCausalLM"}},
                {"model_type", "llama"},
                {"vocab_size", V},
                {"hidden_size", H},
                {"intermediate_size", F},
                {"num_hidden_layers", L},
                {"num_attention_heads", NH},
                {"num_key_value_heads", NKV},
                {"max_position_embeddings", 128},
                {"rms_norm_eps", 1e-5},
                {"rope_theta", 10000.0},
                {"tie_word_embeddings", s.tied},
                {"attention_bias", s.attention_bias},
                {"mlp_bias", s.mlp_bias},
                {"dtype", carbon::dtype_name(s.dtype)}};
}

// Element i of tensor number k holds k + i/1000 (exact enough in bf16 for the checks below).
TensorToWrite make(const std::string& name, std::vector<int64_t> shape, DType t, int k) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * carbon::dtype_size(t));
    for (int64_t i = 0; i < n; ++i) {
        const float v = float(k) + float(i % 8) / 8.f;
        if (t == DType::F32) {
            std::memcpy(bytes.data() + 4 * i, &v, 4);
        } else {
            const uint16_t h = t == DType::F16 ? carbon::f32_to_f16(v) : carbon::f32_to_bf16(v);
            std::memcpy(bytes.data() + 2 * i, &h, 2);
        }
    }
    return {name, t, std::move(shape), std::move(bytes)};
}

std::vector<TensorToWrite> tensors_for(const Spec& s) {
    std::vector<TensorToWrite> ts;
    int k = 0;
    auto mat = [&](const std::string& n, int64_t r, int64_t c) { ts.push_back(make(n, {r, c}, s.dtype, k++)); };
    auto vec = [&](const std::string& n, int64_t r) { ts.push_back(make(n, {r}, s.norm_dtype, k++)); };
    mat("model.embed_tokens.weight", V, H);
    for (int i = 0; i < L; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        vec(p + "input_layernorm.weight", H);
        mat(p + "self_attn.q_proj.weight", NH * HD, H);
        mat(p + "self_attn.k_proj.weight", NKV * HD, H);
        mat(p + "self_attn.v_proj.weight", NKV * HD, H);
        mat(p + "self_attn.o_proj.weight", H, NH * HD);
        if (s.attention_bias) {
            vec(p + "self_attn.q_proj.bias", NH * HD);
            vec(p + "self_attn.k_proj.bias", NKV * HD);
            vec(p + "self_attn.v_proj.bias", NKV * HD);
            vec(p + "self_attn.o_proj.bias", H);
        }
        vec(p + "post_attention_layernorm.weight", H);
        mat(p + "mlp.gate_proj.weight", F, H);
        mat(p + "mlp.up_proj.weight", F, H);
        mat(p + "mlp.down_proj.weight", H, F);
        if (s.mlp_bias) {
            vec(p + "mlp.gate_proj.bias", F);
            vec(p + "mlp.up_proj.bias", F);
            vec(p + "mlp.down_proj.bias", H);
        }
        vec(p + "self_attn.rotary_emb.inv_freq", HD / 2);  // old checkpoints carry it; ignored
    }
    vec("model.norm.weight", H);
    if (s.write_lm_head) mat("lm_head.weight", V, H);
    if (s.edit) s.edit(ts);
    return ts;
}

void write_checkpoint(const fs::path& dir, const Spec& s) {
    std::ofstream(dir / "config.json") << config_for(s).dump(2);
    carbon::write_sharded_safetensors(dir, tensors_for(s), s.shard_bytes);
}

void drop(std::vector<TensorToWrite>& ts, const std::string& name) {
    std::erase_if(ts, [&](const TensorToWrite& t) { return t.name == name; });
}

TensorToWrite& find(std::vector<TensorToWrite>& ts, const std::string& name) {
    for (TensorToWrite& t : ts)
        if (t.name == name) return t;
    throw std::runtime_error("test bug: no tensor " + name);
}

float first(const carbon::TensorView* t) {
    return carbon::load_as_f32(t->data, t->dtype, 0);
}

}  // namespace

// ---- Valid checkpoints ----------------------------------------------------------------------

TEST(single_file_bf16_untied) {
    TempDir d;
    write_checkpoint(d.path, Spec{});
    const Checkpoint ck = Checkpoint::open(d.path);
    const auto& w = ck.weights();
    CHECK_EQ(ck.dir(), d.path);
    CHECK_EQ(ck.config().num_hidden_layers, L);
    CHECK(w.dtype == DType::BF16);
    CHECK_EQ(w.layers.size(), size_t(L));
    CHECK_EQ(w.embed->name, std::string("model.embed_tokens.weight"));
    CHECK_EQ(w.lm_head->name, std::string("lm_head.weight"));
    CHECK(w.lm_head != w.embed);
    CHECK_EQ(w.final_norm->name, std::string("model.norm.weight"));
    const auto& l1 = w.layers[1];
    CHECK_EQ(l1.wk->name, std::string("model.layers.1.self_attn.k_proj.weight"));
    CHECK((l1.wk->shape == std::vector<int64_t>{NKV * HD, H}));
    CHECK((l1.wo->shape == std::vector<int64_t>{H, NH * HD}));
    CHECK((l1.w_down->shape == std::vector<int64_t>{H, F}));
    CHECK_EQ(l1.ffn_norm->name, std::string("model.layers.1.post_attention_layernorm.weight"));
    CHECK(l1.bq == nullptr && l1.bo == nullptr && l1.b_gate == nullptr && l1.b_down == nullptr);
    // Values come through the mapping: tensor number k starts at k (embed 0, layer0 norm 1, q 2).
    CHECK_EQ(first(w.embed), 0.f);
    CHECK_EQ(first(w.layers[0].wq), 2.f);
    CHECK_EQ(carbon::load_as_f32(w.layers[0].wq->data, DType::BF16, 3), 2.375f);
    CHECK(ck.archive().contains("model.layers.0.self_attn.rotary_emb.inv_freq"));
}

TEST(tied_f16_uses_the_embedding_even_with_a_stale_head) {
    TempDir d;
    Spec s;
    s.dtype = s.norm_dtype = DType::F16;
    s.tied = true;  // lm_head.weight is still written: it must be ignored
    write_checkpoint(d.path, s);
    const Checkpoint ck = Checkpoint::open(d.path);
    CHECK(ck.weights().dtype == DType::F16);
    CHECK(ck.weights().lm_head == ck.weights().embed);

    TempDir d2;
    s.write_lm_head = false;
    write_checkpoint(d2.path, s);
    const Checkpoint ck2 = Checkpoint::open(d2.path);
    CHECK(ck2.weights().lm_head == ck2.weights().embed);
}

TEST(sharded_f32_with_biases_and_mixed_norm_dtype) {
    TempDir d;
    Spec s;
    s.dtype = DType::F32;
    s.norm_dtype = DType::BF16;  // 1-D tensors may use another float type
    s.attention_bias = s.mlp_bias = true;
    s.shard_bytes = 4096;
    write_checkpoint(d.path, s);
    CHECK(fs::exists(d.path / "model.safetensors.index.json"));
    const Checkpoint ck = Checkpoint::open(d.path);
    CHECK(ck.archive().files().size() > size_t(2));
    const auto& w = ck.weights();
    CHECK(w.dtype == DType::F32);
    for (const auto& l : w.layers) {
        CHECK(l.bq && l.bk && l.bv && l.bo && l.b_gate && l.b_up && l.b_down);
        CHECK((l.bk->shape == std::vector<int64_t>{NKV * HD}));
        CHECK((l.bo->shape == std::vector<int64_t>{H}));
        CHECK((l.b_up->shape == std::vector<int64_t>{F}));
        CHECK((l.b_down->shape == std::vector<int64_t>{H}));
        CHECK(l.attn_norm->dtype == DType::BF16);
    }
    CHECK_EQ(ck.config().parameter_count(), int64_t([&] {
                 int64_t n = 0;
                 for (const auto& [name, t] : ck.archive().tensors())
                     if (name.find("rotary_emb") == std::string::npos) n += t.numel();
                 return n;
             }()));
}

TEST(biases_present_without_the_flag_are_ignored) {
    TempDir d;
    Spec s;
    s.attention_bias = true;
    write_checkpoint(d.path, s);
    std::ofstream(d.path / "config.json") << config_for(Spec{}).dump();
    const Checkpoint ck = Checkpoint::open(d.path);
    CHECK(ck.weights().layers[0].bq == nullptr);
}

TEST(views_survive_moving_the_checkpoint) {
    TempDir d;
    write_checkpoint(d.path, Spec{});
    Checkpoint a = Checkpoint::open(d.path);
    const carbon::TensorView* wq = a.weights().layers[0].wq;
    Checkpoint b = std::move(a);
    CHECK(b.weights().layers[0].wq == wq);
    CHECK(&b.archive().get("model.layers.0.self_attn.q_proj.weight") == wq);
    CHECK_EQ(first(b.weights().layers[0].wq), 2.f);
}

// ---- Broken checkpoints ---------------------------------------------------------------------

TEST(missing_directory_or_config) {
    TempDir d;
    const std::string gone = (d.path / "nope").string();
    CHECK_THROWS_WITH(Checkpoint::open(d.path / "nope"), gone.c_str(), "not found");
    const std::string cfg = (d.path / "config.json").string();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), cfg.c_str(), "not found");
}

TEST(malformed_or_foreign_config) {
    TempDir d;
    write_checkpoint(d.path, Spec{});
    const std::string cfg = (d.path / "config.json").string();
    std::ofstream(d.path / "config.json") << "{\"model_type\": \"llama\",,}";
    CHECK_THROWS_WITH(Checkpoint::open(d.path), cfg.c_str(), "malformed JSON", "line 1");
    json j = config_for(Spec{});
    j["model_type"] = "qwen2";
    std::ofstream(d.path / "config.json") << j.dump();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), cfg.c_str(), "qwen2");
    j = config_for(Spec{});
    j["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 2.0}};
    std::ofstream(d.path / "config.json") << j.dump();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), "unsupported rope type dynamic", cfg.c_str());
}

// Values that pass the config's own range checks but cannot be right for these weights, or that
// overflow later: refused when the checkpoint is opened, naming the file and key.
TEST(config_values_the_weights_or_numbers_contradict) {
    TempDir d;
    write_checkpoint(d.path, Spec{});
    const std::string cfg = (d.path / "config.json").string();
    json j = config_for(Spec{});
    j["num_hidden_layers"] = 2147483647;  // used to end in std::bad_alloc
    std::ofstream(d.path / "config.json") << j.dump();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), cfg.c_str(), "num_hidden_layers=2147483647", "hold 2 layer(s)", "model.layers.0-1");
    j = config_for(Spec{});
    j["rope_theta"] = 1e-300;  // every frequency infinite: every logit NaN
    std::ofstream(d.path / "config.json") << j.dump();
    CHECK_THROWS_WITH(compute_rope(Checkpoint::open(d.path).config()), cfg.c_str(), "rope_theta 1e-300", "non-finite");
    std::ofstream(d.path / "config.json") << "{\"model_type\": \"llama\", \"rope_theta\": 1e400}";
    CHECK_THROWS_WITH(Checkpoint::open(d.path), cfg.c_str(), "malformed JSON");
}

// A named pipe in place of a model file is refused at once, not waited on forever.
TEST(named_pipes_in_place_of_model_files) {
    for (const char* name : {"config.json", "model.safetensors"}) {
        TempDir d;
        write_checkpoint(d.path, Spec{});
        fs::remove(d.path / name);
        CHECK(::mkfifo((d.path / name).c_str(), 0600) == 0);
        const std::string want = (d.path / name).string() + ": is a named pipe";
        CHECK_THROWS_WITH(Checkpoint::open(d.path), want.c_str());
    }
}

TEST(no_weights) {
    TempDir d;
    std::ofstream(d.path / "config.json") << config_for(Spec{}).dump();
    std::ofstream(d.path / "model.bin") << "x";
    const std::string dir = d.path.string();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), dir.c_str(), "model.safetensors", "model.bin");
}

TEST(missing_tensor) {
    TempDir d;
    Spec s;
    s.edit = [](auto& ts) { drop(ts, "model.layers.1.mlp.up_proj.weight"); };
    write_checkpoint(d.path, s);
    const std::string want = d.path.string() + ": tensor 'model.layers.1.mlp.up_proj.weight' is missing";
    CHECK_THROWS_WITH(Checkpoint::open(d.path), want.c_str());
}

TEST(missing_head_when_untied) {
    TempDir d;
    Spec s;
    s.write_lm_head = false;
    write_checkpoint(d.path, s);
    const std::string dir = d.path.string();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), dir.c_str(), "'lm_head.weight' is missing",
                      "tie_word_embeddings=false");
}

TEST(missing_bias_when_enabled) {
    TempDir d;
    Spec s;
    s.mlp_bias = true;
    s.edit = [](auto& ts) { drop(ts, "model.layers.0.mlp.down_proj.bias"); };
    write_checkpoint(d.path, s);
    CHECK_THROWS_WITH(Checkpoint::open(d.path), "'model.layers.0.mlp.down_proj.bias' is missing");
}

TEST(wrong_shape_against_config) {
    TempDir d;
    Spec s;
    s.edit = [](auto& ts) {
        find(ts, "model.layers.1.self_attn.k_proj.weight") =
            make("model.layers.1.self_attn.k_proj.weight", {NH * HD, H}, DType::BF16, 9);
    };
    write_checkpoint(d.path, s);
    const std::string want = (d.path / "model.safetensors").string() +
                             ": tensor 'model.layers.1.self_attn.k_proj.weight' has shape [16, 16] but config.json "
                             "(hidden_size=16, num_key_value_heads=2, head_dim=4) requires [8, 16]";
    CHECK_THROWS_WITH(Checkpoint::open(d.path), want.c_str());

    TempDir d2;
    s.edit = [](auto& ts) {
        find(ts, "model.embed_tokens.weight") = make("model.embed_tokens.weight", {V + 1, H}, DType::BF16, 0);
    };
    write_checkpoint(d2.path, s);
    CHECK_THROWS_WITH(Checkpoint::open(d2.path), "'model.embed_tokens.weight' has shape [33, 16]", "vocab_size=32",
                      "requires [32, 16]");

    TempDir d3;
    s.edit = [](auto& ts) { find(ts, "model.norm.weight") = make("model.norm.weight", {H, 1}, DType::BF16, 0); };
    write_checkpoint(d3.path, s);
    CHECK_THROWS_WITH(Checkpoint::open(d3.path), "'model.norm.weight' has shape [16, 1]", "requires [16]");

    TempDir d4;
    s.edit = [](auto& ts) {
        find(ts, "model.layers.0.mlp.down_proj.weight") =
            make("model.layers.0.mlp.down_proj.weight", {F, H}, DType::BF16, 0);
    };
    write_checkpoint(d4.path, s);
    CHECK_THROWS_WITH(Checkpoint::open(d4.path), "'model.layers.0.mlp.down_proj.weight' has shape [24, 16]",
                      "intermediate_size=24", "requires [16, 24]");
}

TEST(mixed_matrix_dtypes) {
    TempDir d;
    Spec s;
    s.edit = [](auto& ts) {
        find(ts, "model.layers.1.mlp.gate_proj.weight") =
            make("model.layers.1.mlp.gate_proj.weight", {F, H}, DType::F16, 0);
    };
    s.shard_bytes = 3000;
    write_checkpoint(d.path, s);
    CHECK_THROWS_WITH(Checkpoint::open(d.path), "model-0000", "'model.layers.1.mlp.gate_proj.weight' is float16",
                      "'model.embed_tokens.weight'", "bfloat16");
}

TEST(broken_shards) {
    TempDir d;
    Spec s;
    s.shard_bytes = 3000;
    write_checkpoint(d.path, s);
    const fs::path shard = d.path / "model-00002-of-00004.safetensors";
    CHECK(fs::exists(shard));
    fs::remove(shard);
    CHECK_THROWS_WITH(Checkpoint::open(d.path), "model.safetensors.index.json",
                      "shard model-00002-of-00004.safetensors is missing");

    // The index promises a tensor that the shard does not hold.
    TempDir d2;
    write_checkpoint(d2.path, s);
    std::ifstream in(d2.path / "model.safetensors.index.json");
    json index = json::parse(in);
    index["weight_map"]["model.layers.9.mlp.up_proj.weight"] = "model-00001-of-00004.safetensors";
    std::ofstream(d2.path / "model.safetensors.index.json") << index.dump();
    const std::string first_shard = (d2.path / "model-00001-of-00004.safetensors").string();
    CHECK_THROWS_WITH(Checkpoint::open(d2.path), first_shard.c_str(), "'model.layers.9.mlp.up_proj.weight'", "lacks");
}

TEST(truncated_weights_file) {
    TempDir d;
    write_checkpoint(d.path, Spec{});
    const fs::path f = d.path / "model.safetensors";
    fs::resize_file(f, fs::file_size(f) - 100);
    const std::string file = f.string();
    CHECK_THROWS_WITH(Checkpoint::open(d.path), file.c_str(), "lm_head.weight", "data_offsets");
}

CHECK_MAIN()
