// config.json -> ModelConfig, mirroring transformers 5's LlamaConfig (defaults, rope_scaling /
// rope_parameters standardization, YaRN/llama3 defaults) so the engine builds the same network.
#include "carbon/loader/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "carbon/support/input_file.h"
#include <sstream>

namespace carbon {

using nlohmann::json;

const char* rope_type_name(RopeType t) {
    switch (t) {
        case RopeType::Default:
            return "default";
        case RopeType::Linear:
            return "linear";
        case RopeType::Yarn:
            return "yarn";
        case RopeType::Llama3:
            return "llama3";
    }
    return "?";
}

bool ModelConfig::sequence_head() const {
    return std::find(architectures.begin(), architectures.end(), "LlamaForSequenceClassification") != architectures.end();
}

int64_t ModelConfig::parameter_count() const {
    const int64_t H = hidden_size, F = intermediate_size, V = vocab_size;
    const int64_t q = int64_t(num_attention_heads) * head_dim, kv = int64_t(num_key_value_heads) * head_dim;
    int64_t layer = 2 * H;                // input_layernorm + post_attention_layernorm
    layer += H * q + 2 * H * kv + q * H;  // q, k, v, o
    if (attention_bias) layer += q + 2 * kv + H;
    layer += 3 * H * F;  // gate, up, down
    if (mlp_bias) layer += 2 * F + H;
    int64_t total = V * H + int64_t(num_hidden_layers) * layer + H;
    if (sequence_head())
        total += int64_t(labels.size()) * H;  // score.weight in place of an lm_head
    else if (!tie_word_embeddings)
        total += V * H;
    return total;
}

namespace {

// Reads keys of one JSON object with messages that name the file and the (dotted) key.
class Reader {
public:
    Reader(const json& obj, std::string file, std::string prefix = "")
        : obj_(obj), file_(std::move(file)), prefix_(std::move(prefix)) {}

    bool has(const char* key) const { return obj_.contains(key) && !obj_.at(key).is_null(); }
    const json& at(const char* key) const { return obj_.at(key); }
    std::string name(const char* key) const { return prefix_ + key; }

    [[noreturn]] void fail(const char* key, const std::string& what) const {
        throw Error(file_ + ": key '" + name(key) + "' " + what);
    }
    void require(const char* key) const {
        if (!obj_.contains(key)) fail(key, "is missing");
        if (obj_.at(key).is_null()) fail(key, "is null");
    }

    int integer(const char* key) const {
        const json& v = obj_.at(key);
        // JSON written by Python holds ints as ints; 4096.0 means someone edited the file by hand.
        if (!v.is_number_integer()) fail(key, "must be an integer, got " + v.dump());
        if (v.is_number_unsigned()) {
            if (v.get<uint64_t>() > uint64_t(std::numeric_limits<int>::max()))
                fail(key, "is out of range: " + v.dump());
        } else {
            const int64_t x = v.get<int64_t>();
            if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
                fail(key, "is out of range: " + v.dump());
        }
        return v.get<int>();
    }
    int required_int(const char* key) const {
        require(key);
        return integer(key);
    }
    int optional_int(const char* key, int fallback) const { return has(key) ? integer(key) : fallback; }
    int positive_int(const char* key) const {
        const int v = required_int(key);
        if (v <= 0) fail(key, "must be positive, got " + std::to_string(v));
        return v;
    }

    double number(const char* key) const {
        const json& v = obj_.at(key);
        if (!v.is_number()) fail(key, "must be a number, got " + v.dump());
        const double d = v.get<double>();
        if (!std::isfinite(d)) fail(key, "must be finite");
        return d;
    }
    double optional_number(const char* key, double fallback) const { return has(key) ? number(key) : fallback; }
    std::optional<double> maybe_number(const char* key) const {
        if (!has(key)) return std::nullopt;
        return number(key);
    }

    bool boolean(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        const json& v = obj_.at(key);
        if (!v.is_boolean()) fail(key, "must be true or false, got " + v.dump());
        return v.get<bool>();
    }
    std::string string(const char* key) const {
        const json& v = obj_.at(key);
        if (!v.is_string()) fail(key, "must be a string, got " + v.dump());
        return v.get<std::string>();
    }

private:
    const json& obj_;
    std::string file_;
    std::string prefix_;
};

std::string fmt(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

DType parse_dtype(const Reader& r, const char* key) {
    const std::string s = r.string(key);
    if (s == "bfloat16") return DType::BF16;
    if (s == "float16") return DType::F16;
    if (s == "float32") return DType::F32;
    r.fail(key, "names an unsupported dtype \"" + s + "\" (expected bfloat16, float16 or float32)");
}

// A special-token id: an int, null, or (eos only) a list whose first entry is the one the engine
// stops on. Ids outside the vocabulary (pad_token_id = -1 is common on the Hub, and transformers
// only warns) mean "no such token", so they become nullopt rather than an index that would crash.
std::optional<int> token_id(const Reader& r, const char* key, int vocab_size, bool allow_list) {
    if (!r.has(key)) return std::nullopt;
    const json& v = r.at(key);
    int id = 0;
    if (v.is_array() && allow_list) {
        if (v.empty()) return std::nullopt;
        if (!v[0].is_number_integer()) r.fail(key, "must hold integers, got " + v.dump());
        id = v[0].get<int>();
    } else {
        id = r.integer(key);
    }
    if (id < 0 || id >= vocab_size) return std::nullopt;
    return id;
}

// Resolves the RoPE description the way transformers 5 does: a truthy legacy rope_scaling wins
// over rope_parameters; "rope_type" wins over "type"; rope_theta inside the dict wins over the
// top-level key (default 10000); original_max_position_embeddings comes from the top level when
// present (transformers re-standardizes with it before computing frequencies), then the dict,
// then max_position_embeddings.
void parse_rope(const json& root, const std::string& file, ModelConfig& c) {
    const Reader top(root, file);
    const json* dict = nullptr;
    const char* dict_key = nullptr;
    for (const char* key : {"rope_scaling", "rope_parameters"}) {
        if (!top.has(key)) continue;
        const json& v = top.at(key);
        if (!v.is_object()) top.fail(key, "must be an object or null, got " + v.dump());
        if (v.empty()) continue;  // Python treats {} as falsy
        dict = &v;
        dict_key = key;
        break;
    }
    c.rope_theta = top.optional_number("rope_theta", 10000.0);
    c.partial_rotary_factor = top.optional_number("partial_rotary_factor", 1.0);
    RopeScaling& s = c.rope_scaling;
    s = RopeScaling{};
    if (!dict) return;

    const Reader r(*dict, file, std::string(dict_key) + ".");
    c.rope_theta = r.optional_number("rope_theta", c.rope_theta);
    c.partial_rotary_factor = r.optional_number("partial_rotary_factor", c.partial_rotary_factor);
    std::string type = "default";
    const char* type_key = r.has("rope_type") ? "rope_type" : "type";
    if (r.has(type_key)) type = r.string(type_key);

    auto original_max = [&]() {
        const int v = top.has("original_max_position_embeddings")
                          ? top.integer("original_max_position_embeddings")
                          : r.optional_int("original_max_position_embeddings", c.max_position_embeddings);
        if (v <= 0) throw Error(file + ": original_max_position_embeddings must be positive, got " + std::to_string(v));
        return v;
    };
    auto positive = [&](const char* key, double v) {
        if (!(v > 0)) r.fail(key, "must be positive, got " + fmt(v));
        return v;
    };
    auto required = [&](const char* key) {
        if (!r.has(key)) throw Error(file + ": rope type " + type + " needs '" + r.name(key) + "', which is missing");
        return r.number(key);
    };

    if (type == "default") {
        s.type = RopeType::Default;
    } else if (type == "linear") {
        s.type = RopeType::Linear;
        s.factor = positive("factor", required("factor"));
    } else if (type == "yarn") {
        s.type = RopeType::Yarn;
        s.original_max_position_embeddings = original_max();
        s.factor = r.has("factor") ? r.number("factor")
                                   : double(c.max_position_embeddings) / s.original_max_position_embeddings;
        positive("factor", s.factor);
        // transformers: `get("beta_fast") or 32`, so 0 and null both mean the default.
        const double bf = r.optional_number("beta_fast", 0.0), bs = r.optional_number("beta_slow", 0.0);
        s.beta_fast = bf != 0.0 ? bf : 32.0;
        s.beta_slow = bs != 0.0 ? bs : 1.0;
        // transformers: `get("truncate", True)`: absent is true, an explicit null is falsy.
        if (dict->contains("truncate") && dict->at("truncate").is_null())
            s.truncate = false;
        else
            s.truncate = r.boolean("truncate", true);
        s.mscale = r.maybe_number("mscale");
        s.mscale_all_dim = r.maybe_number("mscale_all_dim");
        s.attention_factor = r.maybe_number("attention_factor");
        if (!s.attention_factor) {
            // Filled here exactly as _compute_yarn_parameters derives it, so every backend reads one value.
            auto get_mscale = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
            if (s.mscale.value_or(0.0) != 0.0 && s.mscale_all_dim.value_or(0.0) != 0.0)
                s.attention_factor = get_mscale(s.factor, *s.mscale) / get_mscale(s.factor, *s.mscale_all_dim);
            else
                s.attention_factor = get_mscale(s.factor, 1.0);
        }
    } else if (type == "llama3") {
        s.type = RopeType::Llama3;
        s.factor = positive("factor", required("factor"));
        s.low_freq_factor = positive("low_freq_factor", required("low_freq_factor"));
        s.high_freq_factor = positive("high_freq_factor", required("high_freq_factor"));
        // transformers only warns, but the smoothing divides by (high - low).
        if (s.high_freq_factor <= s.low_freq_factor)
            throw Error(file + ": " + r.name("high_freq_factor") + " (" + fmt(s.high_freq_factor) +
                        ") must be greater than " + r.name("low_freq_factor") + " (" + fmt(s.low_freq_factor) + ")");
        // transformers' standardize_rope_params defaults it to max_position_embeddings for llama3 too.
        s.original_max_position_embeddings = original_max();
    } else {
        throw Error("unsupported rope type " + type + " in " + file + " (key '" + r.name(type_key) +
                    "'; supported: default, linear, yarn, llama3)");
    }
}

}  // namespace

// id2label / num_labels / problem_type of a LlamaForSequenceClassification checkpoint: id2label's
// keys must be 0 .. n-1, each once (transformers writes them as strings), and num_labels, when
// given too, n.
void parse_sequence_head(const Reader& r, ModelConfig& c) {
    if (!c.sequence_head()) return;
    if (r.has("problem_type")) c.problem_type = r.string("problem_type");
    int n = r.has("num_labels") ? r.positive_int("num_labels") : 0;
    if (r.has("id2label")) {
        const json& m = r.at("id2label");
        if (!m.is_object() || m.empty()) r.fail("id2label", "must be an object of label names by index");
        if (n && int(m.size()) != n)
            r.fail("id2label", "names " + std::to_string(m.size()) + " labels where num_labels is " + std::to_string(n));
        n = int(m.size());
        c.labels.assign(size_t(n), "");
        for (const auto& [key, value] : m.items()) {
            size_t used = 0;
            int index = -1;
            try {
                index = std::stoi(key, &used);
            } catch (const std::exception&) {
            }
            if (used != key.size() || index < 0 || index >= n || !c.labels[size_t(index)].empty())
                r.fail("id2label", "has the key \"" + key + "\"; its keys must be 0 to " + std::to_string(n - 1) + ", each once");
            if (!value.is_string() || value.get<std::string>().empty()) r.fail("id2label", "names label " + key + " with " + value.dump());
            c.labels[size_t(index)] = value.get<std::string>();
        }
    } else {
        if (!n) n = 2;  // PretrainedConfig's default
        for (int i = 0; i < n; ++i) c.labels.push_back("LABEL_" + std::to_string(i));
    }
}

ModelConfig parse_config(const std::string& json_text, const std::filesystem::path& where) {
    const std::string file = where.string();
    json root;
    try {
        root = json::parse(json_text);
    } catch (const json::exception& e) {  // parse errors, and number overflow ('1e400', out_of_range.406)
        // e.what() carries "line L, column C" for the position of the error.
        throw Error(file + ": malformed JSON: " + e.what());
    }
    if (!root.is_object()) throw Error(file + ": expected a JSON object at the top level");
    const Reader r(root, file);

    ModelConfig c;
    c.path = where;
    r.require("model_type");
    c.model_type = r.string("model_type");
    if (c.model_type != "llama")
        throw Error(file + ": model_type is \"" + c.model_type + "\", but only \"llama\" checkpoints are supported");
    if (r.has("architectures")) {
        const json& a = r.at("architectures");
        if (!a.is_array()) r.fail("architectures", "must be a list of strings");
        for (const json& e : a) {
            if (!e.is_string()) r.fail("architectures", "must be a list of strings");
            c.architectures.push_back(e.get<std::string>());
        }
    }

    // The shape-defining sizes have LlamaConfig defaults (Llama-2-7B's), but a checkpoint that
    // omits them is broken: requiring them gives a clear error instead of a shape mismatch later.
    c.vocab_size = r.positive_int("vocab_size");
    c.hidden_size = r.positive_int("hidden_size");
    c.intermediate_size = r.positive_int("intermediate_size");
    c.num_hidden_layers = r.positive_int("num_hidden_layers");
    c.num_attention_heads = r.positive_int("num_attention_heads");
    c.max_position_embeddings = r.positive_int("max_position_embeddings");
    c.num_key_value_heads = r.optional_int("num_key_value_heads", c.num_attention_heads);
    if (c.num_key_value_heads <= 0)
        r.fail("num_key_value_heads", "must be positive, got " + std::to_string(c.num_key_value_heads));
    // LlamaConfig.validate_architecture rejects this even when head_dim is given explicitly.
    if (c.hidden_size % c.num_attention_heads != 0)
        throw Error(file + ": hidden_size (" + std::to_string(c.hidden_size) +
                    ") is not a multiple of num_attention_heads (" + std::to_string(c.num_attention_heads) + ")");
    if (c.num_attention_heads % c.num_key_value_heads != 0)
        throw Error(file + ": num_attention_heads (" + std::to_string(c.num_attention_heads) +
                    ") is not a multiple of num_key_value_heads (" + std::to_string(c.num_key_value_heads) + ")");
    c.head_dim = r.optional_int("head_dim", c.hidden_size / c.num_attention_heads);
    if (c.head_dim <= 0) r.fail("head_dim", "must be positive, got " + std::to_string(c.head_dim));
    if (c.head_dim % 2 != 0)
        r.fail("head_dim", "is odd (" + std::to_string(c.head_dim) + "); rotate-half RoPE needs an even head_dim");

    c.rms_norm_eps = r.optional_number("rms_norm_eps", 1e-6);
    if (c.rms_norm_eps < 0) r.fail("rms_norm_eps", "must not be negative, got " + fmt(c.rms_norm_eps));
    c.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
    c.attention_bias = r.boolean("attention_bias", false);
    c.mlp_bias = r.boolean("mlp_bias", false);

    c.hidden_act = r.has("hidden_act") ? r.string("hidden_act") : "silu";
    // transformers maps "swish" to the same function (nn.SiLU); store one spelling for the backends.
    if (c.hidden_act == "swish") c.hidden_act = "silu";
    if (c.hidden_act != "silu") r.fail("hidden_act", "is \"" + c.hidden_act + "\", but only silu is supported");

    // transformers 5 writes "dtype"; older files "torch_dtype". With both, dtype wins (as there).
    if (r.has("dtype"))
        c.torch_dtype = parse_dtype(r, "dtype");
    else if (r.has("torch_dtype"))
        c.torch_dtype = parse_dtype(r, "torch_dtype");
    else
        c.torch_dtype = DType::BF16;

    parse_sequence_head(r, c);

    c.bos_token_id = token_id(r, "bos_token_id", c.vocab_size, false);
    c.eos_token_id = token_id(r, "eos_token_id", c.vocab_size, true);
    c.pad_token_id = token_id(r, "pad_token_id", c.vocab_size, false);

    parse_rope(root, file, c);
    if (!(c.rope_theta > 0)) throw Error(file + ": rope_theta must be positive, got " + fmt(c.rope_theta));
    // LlamaRotaryEmbedding ignores partial_rotary_factor for default RoPE and fails on a shape
    // mismatch for the scaled types, so there is no reference behaviour to match other than 1.
    if (c.partial_rotary_factor != 1.0) {
        if (c.rotary_dim() % 2 != 0)
            throw Error(file + ": partial_rotary_factor " + fmt(c.partial_rotary_factor) +
                        " gives an odd rotary dimension " + std::to_string(c.rotary_dim()) + " (head_dim " +
                        std::to_string(c.head_dim) + ")");
        throw Error(file + ": partial_rotary_factor " + fmt(c.partial_rotary_factor) +
                    " is not supported: transformers' Llama rotates the whole head (head_dim " +
                    std::to_string(c.head_dim) + ")");
    }
    return c;
}

ModelConfig load_config(const std::filesystem::path& config_json) {
    // A genuine config.json is a few kB.
    return parse_config(read_regular_file(config_json, "config.json", 16u << 20), config_json);
}

}  // namespace carbon
