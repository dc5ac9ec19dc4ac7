// open_gguf_model (gguf_model.h): a Carbon GGUF file's llama.* keys become the config.json the
// engine already checks, and its tensors the Hugging Face names and shapes the checkpoint resolver
// looks up.
#include "carbon/loader/gguf_model.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace carbon {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The config keys, as the converter writes them (gguf-py's Keys.LLM / Keys.Attention / Keys.Rope),
// beside the config.json key each stands for (named in messages).
struct KeyMap {
    const char* gguf;
    const char* hf;
};
constexpr KeyMap kRequired[] = {
    {"block_count", "num_hidden_layers"},      {"embedding_length", "hidden_size"},
    {"feed_forward_length", "intermediate_size"}, {"attention.head_count", "num_attention_heads"},
    {"context_length", "max_position_embeddings"},
};

std::string key_list() {
    std::string s;
    for (const KeyMap& k : kRequired) s += std::string(s.empty() ? "" : ", ") + "llama." + k.gguf + " = " + k.hf;
    return s + ", llama.attention.head_count_kv = num_key_value_heads, llama.attention.key_length = head_dim, "
               "llama.attention.layer_norm_rms_epsilon = rms_norm_eps, llama.rope.freq_base = rope_theta";
}

class Keys {
public:
    explicit Keys(const GgufFile& f) : f_(f), file_(f.path().string()) {}
    const GgufValue* find(const std::string& key) const { return f_.find(key); }
    int64_t integer(const std::string& key) const {
        const GgufValue* v = find(key);
        if (!v) throw Error(file_ + ": metadata key '" + key + "' is missing (a Llama GGUF file has it)");
        return checked([&] { return v->as_int(key); });
    }
    std::optional<int64_t> integer_if(const std::string& key) const {
        if (!find(key)) return std::nullopt;
        return integer(key);
    }
    std::optional<double> number_if(const std::string& key) const {
        const GgufValue* v = find(key);
        if (!v) return std::nullopt;
        return checked([&] { return v->as_float(key); });
    }
    std::string text(const std::string& key) const {
        const GgufValue* v = find(key);
        if (!v) throw Error(file_ + ": metadata key '" + key + "' is missing");
        return checked([&] { return v->as_string(key); });
    }

private:
    template <typename F>
    auto checked(F f) const -> decltype(f()) {
        try {
            return f();
        } catch (const Error& e) {
            throw Error(file_ + ": " + e.what());
        }
    }
    const GgufFile& f_;
    std::string file_;
};

// The config.json the file's keys describe; parse_config then checks it as it checks any other.
json config_json(const GgufFile& g) {
    const Keys k(g);
    const std::string file = g.path().string();
    const std::string arch = k.text("general.architecture");
    if (arch != "llama")
        throw Error(file + ": general.architecture is \"" + arch + "\"; Carbon models are Llama decoders (\"llama\")");
    json c;
    c["model_type"] = "llama";
    c["architectures"] = json::array({"LlamaForCausalLM"});
    for (const KeyMap& m : kRequired) c[m.hf] = k.integer("llama." + std::string(m.gguf));
    c["num_key_value_heads"] = k.integer_if("llama.attention.head_count_kv").value_or(c["num_attention_heads"].get<int64_t>());
    const auto key_length = k.integer_if("llama.attention.key_length");
    const auto value_length = k.integer_if("llama.attention.value_length");
    if (key_length && value_length && *key_length != *value_length)
        throw Error(file + ": llama.attention.key_length " + std::to_string(*key_length) + " and value_length " +
                    std::to_string(*value_length) + " differ; a Llama head has one size");
    if (key_length) c["head_dim"] = *key_length;
    // A rotary dimension other than the head's is a partial rotary embedding, which Llama has not.
    const int64_t head_dim = key_length ? *key_length
                                        : (c["num_attention_heads"].get<int64_t>() > 0
                                               ? c["hidden_size"].get<int64_t>() / c["num_attention_heads"].get<int64_t>()
                                               : 0);
    if (const auto rot = k.integer_if("llama.rope.dimension_count"); rot && *rot != head_dim)
        throw Error(file + ": llama.rope.dimension_count is " + std::to_string(*rot) + " but the head is " +
                    std::to_string(head_dim) + " wide; the Llama network rotates the whole head");
    const auto eps = k.number_if("llama.attention.layer_norm_rms_epsilon");
    if (!eps) throw Error(file + ": metadata key 'llama.attention.layer_norm_rms_epsilon' is missing (a Llama GGUF file has it)");
    c["rms_norm_eps"] = *eps;
    c["rope_theta"] = k.number_if("llama.rope.freq_base").value_or(10000.0);
    // The vocabulary: llama.vocab_size where written, else the token list's length.
    if (const auto v = k.integer_if("llama.vocab_size")) {
        c["vocab_size"] = *v;
    } else if (const GgufValue* t = g.find("tokenizer.ggml.tokens"); t && t->type == GgufType::Array) {
        c["vocab_size"] = int64_t(t->items.size());
    } else {
        throw Error(file + ": neither llama.vocab_size nor tokenizer.ggml.tokens says how large the vocabulary is");
    }
    if (g.find("llama.rope.scaling.type")) {
        const std::string type = k.text("llama.rope.scaling.type");
        if (type == "linear") {
            c["rope_scaling"] = {{"rope_type", "linear"}, {"factor", k.number_if("llama.rope.scaling.factor").value_or(1.0)}};
        } else if (type == "yarn") {
            json y = {{"rope_type", "yarn"}};
            const auto factor = k.number_if("llama.rope.scaling.factor");
            const auto original = k.integer_if("llama.rope.scaling.original_context_length");
            if (!factor || !original)
                throw Error(file + ": llama.rope.scaling.type is yarn but llama.rope.scaling.factor or "
                                   "original_context_length is missing");
            y["factor"] = *factor;
            y["original_max_position_embeddings"] = *original;
            if (const auto v = k.number_if("llama.rope.scaling.yarn_beta_fast")) y["beta_fast"] = *v;
            if (const auto v = k.number_if("llama.rope.scaling.yarn_beta_slow")) y["beta_slow"] = *v;
            if (const auto v = k.number_if("llama.rope.scaling.yarn_attn_factor")) y["attention_factor"] = *v;
            if (const auto v = k.number_if("llama.rope.scaling.yarn_ext_factor"); v && *v != 1.0)
                throw Error(file + ": llama.rope.scaling.yarn_ext_factor " + std::to_string(*v) +
                            " has no transformers equivalent (YaRN's extrapolation factor is 1 there)");
            c["rope_scaling"] = y;
        } else if (type != "none") {
            throw Error(file + ": llama.rope.scaling.type \"" + type + "\" is not read (none, linear and yarn are)");
        }
    }
    for (const char* id : {"bos", "eos", "padding"})
        if (const auto v = k.integer_if(std::string("tokenizer.ggml.") + id + "_token_id"))
            c[std::string(id) == "padding" ? "pad_token_id" : std::string(id) + "_token_id"] = *v;
    return c;
}

DType tensor_dtype(const GgufTensor& t, const std::string& file) {
    switch (t.type) {
        case 0: return DType::F32;
        case 1: return DType::F16;
        case 30: return DType::BF16;
        case 8: return DType::Q8_0;
        default: {
            const GgmlTypeInfo* info = ggml_type_info(t.type);
            throw Error(file + ": tensor '" + t.name + "' is " + (info ? info->name : "type " + std::to_string(t.type)) +
                        "; Carbon Studio reads F32, F16, BF16 and Q8_0 GGUF tensors (convert with --outtype bf16 or q8_0)");
        }
    }
}

// The Hugging Face name of a llama.cpp tensor name ("" when it is not one the network uses).
std::string hf_name(const std::string& g) {
    static const std::pair<const char*, const char*> top[] = {
        {"token_embd.weight", "model.embed_tokens.weight"}, {"output_norm.weight", "model.norm.weight"}, {"output.weight", "lm_head.weight"}};
    for (const auto& [a, b] : top)
        if (g == a) return b;
    static const std::pair<const char*, const char*> layer[] = {
        {"attn_norm.weight", "input_layernorm.weight"}, {"attn_q.weight", "self_attn.q_proj.weight"},
        {"attn_k.weight", "self_attn.k_proj.weight"},    {"attn_v.weight", "self_attn.v_proj.weight"},
        {"attn_output.weight", "self_attn.o_proj.weight"}, {"attn_q.bias", "self_attn.q_proj.bias"},
        {"attn_k.bias", "self_attn.k_proj.bias"},        {"attn_v.bias", "self_attn.v_proj.bias"},
        {"attn_output.bias", "self_attn.o_proj.bias"},   {"ffn_norm.weight", "post_attention_layernorm.weight"},
        {"ffn_gate.weight", "mlp.gate_proj.weight"},     {"ffn_up.weight", "mlp.up_proj.weight"},
        {"ffn_down.weight", "mlp.down_proj.weight"},     {"ffn_gate.bias", "mlp.gate_proj.bias"},
        {"ffn_up.bias", "mlp.up_proj.bias"},             {"ffn_down.bias", "mlp.down_proj.bias"},
    };
    if (!g.starts_with("blk.")) return "";
    const size_t dot = g.find('.', 4);
    if (dot == std::string::npos || dot == 4) return "";
    const std::string index = g.substr(4, dot - 4), rest = g.substr(dot + 1);
    for (char ch : index)
        if (ch < '0' || ch > '9') return "";
    for (const auto& [a, b] : layer)
        if (rest == a) return "model.layers." + index + "." + b;
    return "";
}

// A Q8_0 tensor's blocks, checked before use: every scale finite, every value within +-127 (what
// llama.cpp's and gguf-py's quantisers write, and what the int8 kernels take). Named by the
// file's tensor name, row and block.
void check_q8_0(const GgufTensor& t, const std::string& file) {
    const uint64_t blocks = t.nbytes / 34, per_row = t.dims[0] / 32;
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint8_t* p = t.data + b * 34;
        const bool finite = (p[1] & 0x7C) != 0x7C;  // the fp16 scale's exponent (little-endian high byte)
        unsigned minus_128 = 0;
        for (int i = 2; i < 34; ++i) minus_128 |= p[i] == 0x80;
        if (finite && !minus_128) continue;
        throw Error(file + ": tensor '" + t.name + "' (Q8_0): block " + std::to_string(b % per_row) + " of row " +
                    std::to_string(b / per_row) +
                    (finite ? " holds the value -128, which llama.cpp's and gguf-py's quantisers never write (they stay within "
                              "+-127, as the int8 kernels require)"
                            : " has a scale that is not finite") +
                    ": the file is damaged or was not made by them");
    }
}

}  // namespace

std::vector<uint8_t> unpermute_gguf_rows(const uint8_t* data, size_t rows, size_t row_bytes, size_t heads) {
    std::vector<uint8_t> out(rows * row_bytes);
    const size_t hd = rows / heads, half = hd / 2;
    for (size_t h = 0; h < heads; ++h)
        for (size_t t = 0; t < 2; ++t)
            for (size_t j = 0; j < half; ++j)
                std::memcpy(out.data() + (h * hd + t * half + j) * row_bytes, data + (h * hd + 2 * j + t) * row_bytes, row_bytes);
    return out;
}

GgufModel open_gguf_model(const fs::path& path) {
    GgufModel m;
    auto file = std::make_shared<const GgufFile>(GgufFile::open(path));
    const std::string where = path.string();
    try {
        m.config = parse_config(config_json(*file).dump(), path);
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.find("llama.") != std::string::npos || what.find("general.") != std::string::npos) throw;
        throw Error(what + " (the config read from the GGUF file's keys: " + key_list() + ")");
    }
    if (file->tensor("rope_freqs.weight"))
        throw Error(where + ": tensor 'rope_freqs.weight' (llama3-style RoPE frequency factors) is not read from GGUF files; "
                            "load the Hugging Face checkpoint instead");
    m.config.tie_word_embeddings = file->tensor("output.weight") == nullptr;
    m.config.attention_bias = file->tensor("blk.0.attn_q.bias") != nullptr;
    m.config.mlp_bias = file->tensor("blk.0.ffn_gate.bias") != nullptr;
    const size_t heads = size_t(m.config.num_attention_heads), kv_heads = size_t(m.config.num_key_value_heads);
    const size_t hd = size_t(m.config.head_dim);

    m.archive.set_source(path);
    m.archive.add_mapping(file->mapping());
    for (const GgufTensor& t : file->tensors()) {
        const std::string name = hf_name(t.name);
        if (name.empty()) continue;  // not part of the network (as extra safetensors tensors are ignored)
        TensorView v;
        v.name = name;
        v.dtype = tensor_dtype(t, where);
        for (auto d = t.dims.rbegin(); d != t.dims.rend(); ++d) v.shape.push_back(int64_t(*d));
        v.data = t.data;
        v.nbytes = size_t(t.nbytes);
        v.file = path;
        v.stored_name = t.name;
        // q and k rows back in Hugging Face order (weights and biases alike), when the shape is the
        // one the config gives; another shape is left for the resolver to name.
        const bool q = name.ends_with("q_proj.weight") || name.ends_with("q_proj.bias");
        const bool k = name.ends_with("k_proj.weight") || name.ends_with("k_proj.bias");
        if ((q || k) && hd % 2)
            throw Error(where + ": tensor '" + t.name + "': head_dim " + std::to_string(hd) +
                        " is odd, so llama.cpp's q/k row permutation (two halves per head) cannot have made it");
        const size_t n_heads = q ? heads : kv_heads;
        const bool unpermute = (q || k) && size_t(v.shape[0]) == n_heads * hd;
        // Q8_0 blocks are checked (a finite scale, no -128) where the file's bytes are read anyway,
        // so a file is read once: the embedding's here (its rows are dequantised as they are looked
        // up), q's and k's as they are un-permuted, every other matrix's by the CPU backend as it
        // takes the blocks (cpu::import_q8_0, naming the file's tensor and row).
        if (v.dtype == DType::Q8_0 && (unpermute || name == "model.embed_tokens.weight")) check_q8_0(t, where);
        if (unpermute) {
            const size_t rows = size_t(v.shape[0]), row_bytes = v.nbytes / rows;
            v.data = m.archive.own(unpermute_gguf_rows(t.data, rows, row_bytes, n_heads));
            // The file's copy was read once and is not read again: let its pages go.
            TensorView stored = v;
            stored.data = t.data;
            m.archive.release_pages(stored);
        } else if (v.dtype == DType::Q8_0 && name == "model.embed_tokens.weight") {
            m.archive.release_pages(v);  // the check read every page; lookups read rows back as needed
        }
        // A name the file gives twice under two llama.cpp names cannot happen (the map is one to
        // one), and GgufFile refuses a tensor name given twice.
        m.archive.add(std::move(v));
    }
    m.file = std::move(file);
    return m;
}

}  // namespace carbon
