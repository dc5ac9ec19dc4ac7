// make-test-model: streams random weights straight into safetensors files (an 8B-shape
// checkpoint never has to fit in memory), then writes config.json and the tokenizer files.
#include "carbon/test_support/test_model.h"

#include "carbon/support/host_memory.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "carbon/support/thread_pool.h"
#include "carbon/test_support/test_tokenizer.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// splitmix64: a small, fully specified generator, so a seed gives the same weights everywhere.
uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct Spec {
    std::string name;
    std::vector<int64_t> shape;
    double std = 0.0;   // normal(mean, std)
    double mean = 0.0;
    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
};

// Fills `out` (numel elements of dtype) with normal(mean, std) values from a stream keyed by the
// tensor's index, in parallel over fixed-size chunks (each chunk has its own derived seed).
void fill_tensor(ThreadPool& pool, const Spec& spec, uint64_t seed, size_t tensor_index, DType dtype,
                 std::vector<uint8_t>& out) {
    const size_t n = size_t(spec.numel()), esz = dtype_size(dtype);
    out.resize(n * esz);
    constexpr size_t kChunk = 1 << 16;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    pool.parallel_for(chunks, 1, [&](size_t c0, size_t c1, int) {
        for (size_t c = c0; c < c1; ++c) {
            uint64_t state = seed * 0x9E3779B97F4A7C15ull ^ (uint64_t(tensor_index) << 40) ^ uint64_t(c);
            splitmix(state);
            const size_t b = c * kChunk, e = std::min(n, b + kChunk);
            for (size_t i = b; i < e; i += 2) {
                // Box-Muller: two normals per pair of uniforms.
                const double u1 = (double(splitmix(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
                const double u2 = double(splitmix(state) >> 11) * (1.0 / 9007199254740992.0);
                const double r = std::sqrt(-2.0 * std::log(u1));
                const double z[2] = {r * std::cos(2 * M_PI * u2), r * std::sin(2 * M_PI * u2)};
                for (size_t k = 0; k < 2 && i + k < e; ++k) {
                    const float v = float(spec.mean + spec.std * z[k]);
                    uint8_t* dst = out.data() + (i + k) * esz;
                    if (dtype == DType::F32) {
                        std::memcpy(dst, &v, 4);
                    } else {
                        const uint16_t h = dtype == DType::BF16 ? f32_to_bf16(v) : f32_to_f16(v);
                        std::memcpy(dst, &h, 2);
                    }
                }
            }
        }
    });
}

const char* st_dtype(DType t) { return t == DType::F32 ? "F32" : t == DType::F16 ? "F16" : "BF16"; }

std::vector<Spec> tensor_specs(const ModelConfig& c) {
    const int64_t H = c.hidden_size, F = c.intermediate_size, V = c.vocab_size, hd = c.head_dim;
    const int64_t q = int64_t(c.num_attention_heads) * hd, kv = int64_t(c.num_key_value_heads) * hd;
    const double L = c.num_hidden_layers;
    // Scales: unit-variance projections, residual branches damped by 1/sqrt(2L), and an output
    // head with logit standard deviation ~2.5 so greedy and sampled choices are not ties.
    const double in_h = 1.0 / std::sqrt(double(H)), in_f = 1.0 / std::sqrt(double(F)), in_q = 1.0 / std::sqrt(double(q));
    const double resid = 1.0 / std::sqrt(2.0 * L);
    std::vector<Spec> s;
    s.push_back({"model.embed_tokens.weight", {V, H}, 2.5 * in_h});
    for (int l = 0; l < c.num_hidden_layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        s.push_back({p + "input_layernorm.weight", {H}, 0.1, 1.0});
        s.push_back({p + "self_attn.q_proj.weight", {q, H}, 1.5 * in_h});
        s.push_back({p + "self_attn.k_proj.weight", {kv, H}, 1.5 * in_h});
        s.push_back({p + "self_attn.v_proj.weight", {kv, H}, in_h});
        s.push_back({p + "self_attn.o_proj.weight", {H, q}, in_q * resid});
        s.push_back({p + "post_attention_layernorm.weight", {H}, 0.1, 1.0});
        s.push_back({p + "mlp.gate_proj.weight", {F, H}, in_h});
        s.push_back({p + "mlp.up_proj.weight", {F, H}, in_h});
        s.push_back({p + "mlp.down_proj.weight", {H, F}, in_f * resid});
    }
    s.push_back({"model.norm.weight", {H}, 0.1, 1.0});
    if (c.sequence_head())
        s.push_back({"score.weight", {int64_t(c.labels.size()), H}, in_h});
    else if (!c.tie_word_embeddings)
        s.push_back({"lm_head.weight", {V, H}, 2.5 * in_h});
    return s;
}

json header_entry(const Spec& s, DType t, size_t begin, size_t end) {
    return json{{"dtype", st_dtype(t)}, {"shape", s.shape}, {"data_offsets", {begin, end}}};
}

// Header bytes as the reference writer lays them out: JSON padded with spaces to 8 bytes.
std::string header_bytes(const json& header) {
    std::string h = header.dump();
    while (h.size() % 8) h.push_back(' ');
    return h;
}

json config_json(const ModelConfig& c, const TestModelOptions& o, int32_t eos_id) {
    json j;
    j["architectures"] = {c.sequence_head() ? "LlamaForSequenceClassification" : "LlamaForCausalLM"};
    if (c.sequence_head()) {
        j["problem_type"] = c.problem_type;
        j["num_labels"] = c.labels.size();
        json id2label = json::object(), label2id = json::object();
        for (size_t i = 0; i < c.labels.size(); ++i) {
            id2label[std::to_string(i)] = c.labels[i];
            label2id[c.labels[i]] = i;
        }
        j["id2label"] = id2label;
        j["label2id"] = label2id;
    }
    j["model_type"] = "llama";
    j["vocab_size"] = c.vocab_size;
    j["hidden_size"] = c.hidden_size;
    j["intermediate_size"] = c.intermediate_size;
    j["num_hidden_layers"] = c.num_hidden_layers;
    j["num_attention_heads"] = c.num_attention_heads;
    j["num_key_value_heads"] = c.num_key_value_heads;
    j["head_dim"] = c.head_dim;
    j["max_position_embeddings"] = c.max_position_embeddings;
    j["rms_norm_eps"] = c.rms_norm_eps;
    j["hidden_act"] = "silu";
    j["tie_word_embeddings"] = c.tie_word_embeddings;
    j["attention_bias"] = false;
    j["attention_dropout"] = 0.0;
    j["mlp_bias"] = false;
    j["initializer_range"] = 0.02;
    j["use_cache"] = true;
    j["torch_dtype"] = dtype_name(c.torch_dtype);
    j["bos_token_id"] = nullptr;
    j["eos_token_id"] = eos_id;
    j["pad_token_id"] = eos_id;
    json scaling = nullptr;
    const RopeScaling& r = c.rope_scaling;
    if (r.type == RopeType::Yarn) {
        scaling = {{"rope_type", "yarn"}, {"factor", r.factor}, {"original_max_position_embeddings", r.original_max_position_embeddings},
                   {"beta_fast", r.beta_fast}, {"beta_slow", r.beta_slow}};
    } else if (r.type == RopeType::Llama3) {
        scaling = {{"rope_type", "llama3"}, {"factor", r.factor}, {"original_max_position_embeddings", r.original_max_position_embeddings},
                   {"low_freq_factor", r.low_freq_factor}, {"high_freq_factor", r.high_freq_factor}};
    }
    if (o.rope_parameters_form) {
        json rp = scaling.is_null() ? json{{"rope_type", "default"}} : scaling;
        rp["rope_theta"] = c.rope_theta;
        j["rope_parameters"] = rp;
    } else {
        j["rope_theta"] = c.rope_theta;
        j["rope_scaling"] = scaling;
    }
    j["transformers_version"] = "4.57.0";
    return j;
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw Error("cannot write " + path.string());
}

}  // namespace

ModelConfig test_model_config(const TestModelOptions& o) {
    ModelConfig c;
    c.model_type = "llama";
    c.rms_norm_eps = 1e-6;
    c.torch_dtype = o.dtype;
    c.vocab_size = 155776;
    if (o.preset == "tiny") {
        c.num_hidden_layers = 2, c.hidden_size = 64, c.intermediate_size = 160;
        c.num_attention_heads = 4, c.num_key_value_heads = 2, c.head_dim = 16;
        c.max_position_embeddings = 2048, c.rope_theta = 10000.0, c.tie_word_embeddings = true;
    } else if (o.preset == "carbon-500m") {
        c.num_hidden_layers = 28, c.hidden_size = 1024, c.intermediate_size = 3072;
        c.num_attention_heads = 16, c.num_key_value_heads = 8, c.head_dim = 64;
        c.max_position_embeddings = 8192, c.rope_theta = 5000000.0, c.tie_word_embeddings = true;
    } else if (o.preset == "carbon-3b") {
        c.num_hidden_layers = 30, c.hidden_size = 3072, c.intermediate_size = 8448;
        c.num_attention_heads = 32, c.num_key_value_heads = 4, c.head_dim = 96;
        c.max_position_embeddings = 32768, c.rope_theta = 5000000.0, c.tie_word_embeddings = true;
    } else if (o.preset == "carbon-8b") {
        c.num_hidden_layers = 32, c.hidden_size = 4096, c.intermediate_size = 14336;
        c.num_attention_heads = 32, c.num_key_value_heads = 8, c.head_dim = 128;
        c.max_position_embeddings = 32768, c.rope_theta = 5000000.0, c.tie_word_embeddings = false;
    } else {
        throw Error("unknown preset '" + o.preset + "' (expected tiny, carbon-500m, carbon-3b or carbon-8b)");
    }
    if (o.layers) c.num_hidden_layers = *o.layers;
    if (o.hidden) c.hidden_size = *o.hidden;
    if (o.intermediate) c.intermediate_size = *o.intermediate;
    if (o.heads) c.num_attention_heads = *o.heads;
    if (o.kv_heads) c.num_key_value_heads = *o.kv_heads;
    if (o.head_dim) c.head_dim = *o.head_dim;
    if (o.max_position) c.max_position_embeddings = *o.max_position;
    if (o.tie) c.tie_word_embeddings = *o.tie;
    if (!o.regression_labels.empty()) {
        c.architectures = {"LlamaForSequenceClassification"};
        c.labels = o.regression_labels;
        c.problem_type = "regression";
    }
    if (o.rope_theta > 0) c.rope_theta = o.rope_theta;
    if (o.compact_vocab) c.vocab_size = 6144;
    for (int v : {c.num_hidden_layers, c.hidden_size, c.intermediate_size, c.num_attention_heads, c.num_key_value_heads,
                  c.head_dim, c.max_position_embeddings})
        if (v <= 0) throw Error("make-test-model: every size must be positive");
    if (c.num_attention_heads % c.num_key_value_heads)
        throw Error("make-test-model: heads (" + std::to_string(c.num_attention_heads) + ") must be a multiple of kv heads (" +
                    std::to_string(c.num_key_value_heads) + ")");
    if (c.hidden_size % c.num_attention_heads)
        throw Error("make-test-model: hidden size must be a multiple of the number of heads (transformers requires it)");
    if (c.head_dim % 2) throw Error("make-test-model: head_dim must be even");
    if (o.rope == "yarn") {
        c.rope_scaling.type = RopeType::Yarn;
        c.rope_scaling.factor = 4.0;
        c.rope_scaling.original_max_position_embeddings = c.max_position_embeddings;
        c.max_position_embeddings *= 4;
    } else if (o.rope == "llama3") {
        c.rope_scaling.type = RopeType::Llama3;
        c.rope_scaling.factor = 8.0;
        c.rope_scaling.low_freq_factor = 1.0;
        c.rope_scaling.high_freq_factor = 4.0;
        // Small enough that a tiny model's frequencies fall in all three llama3 bands.
        c.rope_scaling.original_max_position_embeddings = 64;
    } else if (o.rope != "none") {
        throw Error("make-test-model: unknown rope '" + o.rope + "' (expected none, yarn or llama3)");
    }
    return c;
}

void make_test_model(const fs::path& dir, const TestModelOptions& o, const std::function<bool(size_t, size_t)>& progress) {
    const ModelConfig c = test_model_config(o);
    // The plan before anything is written: the weights on disk, and the largest tensor in memory
    // while it is filled (sizes multiply: --hidden 1048576 asks for terabytes).
    const double bytes_per = double(dtype_size(o.dtype));
    double largest = 0;
    for (const Spec& s : tensor_specs(c)) largest = std::max(largest, double(s.numel()) * bytes_per);
    const double disk = double(c.parameter_count()) * bytes_per;
    std::error_code ec;
    fs::path existing = dir;
    while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
    if (existing.empty()) existing = ".";
    const fs::space_info space = fs::space(existing, ec);
    if (!ec && disk > double(space.available))
        throw Error("this checkpoint needs " + human_bytes(disk) + " on disk (" + std::to_string(c.parameter_count()) +
                    " parameters in " + dtype_name(o.dtype) + "), but " + existing.string() + " has " +
                    human_bytes(double(space.available)) + " free");
    if (largest > double(available_host_memory()))
        throw Error("this checkpoint's largest tensor needs " + human_bytes(largest) + " of memory while it is written, but " +
                    human_bytes(double(available_host_memory())) + " is available");
    fs::create_directories(dir, ec);
    if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message());
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n.starts_with("model") && (n.ends_with(".safetensors") || n.ends_with(".index.json"))) fs::remove(e.path());
    }

    TestTokenizerOptions to;
    to.vocab_size = c.vocab_size;
    if (o.compact_vocab) {
        to.dna_open_id = 2000;
        to.num_merges = 1500;
    }
    to.list_kmers = o.list_kmers;
    write_test_tokenizer(dir, to);
    const int32_t eos = to.dna_open_id + 1;  // </dna> ends a DNA sequence

    // Plan shards: consecutive tensors, each shard at most shard_bytes (one tensor may exceed it).
    const std::vector<Spec> specs = tensor_specs(c);
    const size_t esz = dtype_size(o.dtype);
    std::vector<std::vector<size_t>> shards(1);
    size_t in_shard = 0, total = 0;
    for (size_t i = 0; i < specs.size(); ++i) {
        const size_t b = size_t(specs[i].numel()) * esz;
        if (o.shard_bytes && in_shard > 0 && in_shard + b > o.shard_bytes) {
            shards.emplace_back();
            in_shard = 0;
        }
        shards.back().push_back(i);
        in_shard += b;
        total += b;
    }
    ThreadPool pool(0);
    std::vector<uint8_t> buf;
    size_t written = 0;
    json weight_map = json::object();
    for (size_t sh = 0; sh < shards.size(); ++sh) {
        char name[64];
        if (shards.size() == 1)
            std::snprintf(name, sizeof name, "model.safetensors");
        else
            std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", sh + 1, shards.size());
        json header = json::object();
        size_t off = 0;
        for (size_t i : shards[sh]) {
            const size_t b = size_t(specs[i].numel()) * esz;
            header[specs[i].name] = header_entry(specs[i], o.dtype, off, off + b);
            off += b;
            weight_map[specs[i].name] = name;
        }
        header["__metadata__"] = {{"format", "pt"}};
        const std::string h = header_bytes(header);
        const fs::path tmp = dir / (std::string(name) + ".tmp");
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        try {
            const uint64_t n = h.size();
            f.write(reinterpret_cast<const char*>(&n), 8);
            f.write(h.data(), std::streamsize(h.size()));
            for (size_t i : shards[sh]) {
                fill_tensor(pool, specs[i], o.seed, i, o.dtype, buf);
                f.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(buf.size()));
                written += buf.size();
                if (progress && !progress(written, total)) throw Error("make-test-model cancelled");
            }
            f.close();
            if (!f) throw Error("cannot write " + tmp.string() + " (disk full?)");
        } catch (...) {  // no half-written shard is left behind
            f.close();
            fs::remove(tmp, ec);
            throw;
        }
        fs::rename(tmp, dir / name);
    }
    if (shards.size() > 1) {
        json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
        write_text(dir / "model.safetensors.index.json", index.dump(2) + "\n");
    }
    write_text(dir / "config.json", config_json(c, o, eos).dump(2) + "\n");
    json gen = {{"_from_model_config", true}, {"eos_token_id", eos}, {"pad_token_id", eos}};
    write_text(dir / "generation_config.json", gen.dump(2) + "\n");
}

}  // namespace carbon
