// Checkpoint::open: config.json + safetensors, every tensor the Llama network needs resolved by
// its Hugging Face name and checked (presence, shape against the config, dtype) before any use.
#include "carbon/loader/checkpoint.h"

#include "carbon/loader/gguf_model.h"
#include "carbon/loader/safetensors.h"

#include <algorithm>
#include <cstdlib>

namespace carbon {

namespace fs = std::filesystem;

namespace {

std::string shape_str(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Finds tensors and checks their shapes; remembers the first matrix's dtype so the rest must agree.
class Resolver {
public:
    Resolver(const TensorArchive& a, const ModelConfig& c) : archive_(a), config_(c) {}

    // `why` names the config keys the expected shape comes from, for the message.
    const TensorView* require(const std::string& name, std::vector<int64_t> shape, const std::string& why) {
        const TensorView& t = archive_.get(name);
        check(t, shape, why);
        return &t;
    }

    // A tensor of any supported float type (a head computed on the host in double: a regression
    // head kept in fp32 beside a bf16 backbone is read as it is).
    const TensorView* require_any_dtype(const std::string& name, std::vector<int64_t> shape, const std::string& why) {
        const TensorView& t = archive_.get(name);
        if (t.shape != shape)
            throw Error(t.file.string() + ": tensor '" + t.name + "' has shape " + shape_str(t.shape) + " but " +
                        config_.path.filename().string() + " (" + why + ") requires " + shape_str(shape));
        return &t;
    }

    // The float matrices' dtype; Q8_0 when every matrix is Q8_0.
    DType matrix_dtype() const { return first_matrix_.empty() && q8_0_ ? DType::Q8_0 : matrix_dtype_; }
    bool q8_0() const { return q8_0_; }

private:
    void check(const TensorView& t, const std::vector<int64_t>& shape, const std::string& why) {
        if (t.shape != shape)
            throw Error(t.file.string() + ": tensor '" + t.name + "' has shape " + shape_str(t.shape) + " but " +
                        config_.path.filename().string() + " (" + why + ") requires " + shape_str(shape));
        if (shape.size() != 2) {  // norms and biases may use any supported float type
            if (t.dtype == DType::Q8_0)
                throw Error(t.file.string() + ": tensor '" + t.name + "' is Q8_0; only weight matrices may be quantised");
            return;
        }
        if (t.dtype == DType::Q8_0) {  // a GGUF file's Q8_0 matrices beside its float ones
            q8_0_ = true;
            return;
        }
        if (first_matrix_.empty()) {
            first_matrix_ = t.name;
            matrix_dtype_ = t.dtype;
        } else if (t.dtype != matrix_dtype_) {
            throw Error(t.file.string() + ": tensor '" + t.name + "' is " + dtype_name(t.dtype) +
                        " but the other weight matrices (e.g. '" + first_matrix_ + "') are " +
                        dtype_name(matrix_dtype_) + "; all matrices must share one dtype");
        }
    }

    const TensorArchive& archive_;
    const ModelConfig& config_;
    std::string first_matrix_;
    DType matrix_dtype_ = DType::BF16;
    bool q8_0_ = false;
};

}  // namespace

// A folder with config.json is a Hugging Face checkpoint; a .gguf file (or a folder holding one
// GGUF file and no config.json) a GGUF model.
Checkpoint Checkpoint::open(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error(dir.string() + ": checkpoint directory not found");
    fs::path gguf;
    if (fs::is_regular_file(dir, ec)) {
        if (dir.extension() != ".gguf" && (dir.extension() == ".safetensors" || dir.extension() == ".json"))
            throw Error(dir.string() + ": a file of a Hugging Face checkpoint; give the folder that holds it (config.json, "
                                       "safetensors, tokenizer files), or a .gguf file");
        gguf = dir;
    } else if (!fs::is_directory(dir, ec)) {
        throw Error(dir.string() + ": not a directory (expected a checkpoint directory or a .gguf file)");
    } else if (!fs::exists(dir / "config.json", ec)) {
        std::vector<fs::path> found;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".gguf") found.push_back(e.path());
        std::sort(found.begin(), found.end());
        if (found.empty())
            throw Error((dir / "config.json").string() +
                        ": not found (a Hugging Face checkpoint directory has config.json; a GGUF model is a .gguf file)");
        if (found.size() > 1) {
            std::string names;
            for (const fs::path& f : found) names += (names.empty() ? "" : ", ") + f.filename().string();
            throw Error(dir.string() + ": holds " + std::to_string(found.size()) + " GGUF files (" + names +
                        ") and no config.json; choose one of the files");
        }
        gguf = found.front();
    }
    const fs::path config_path = gguf.empty() ? dir / "config.json" : gguf;

    Checkpoint ck;
    ck.dir_ = dir;
    if (gguf.empty()) {
        ck.config_ = load_config(config_path);
        ck.archive_ = open_safetensors_dir(dir);
    } else {
        GgufModel g = open_gguf_model(gguf);
        ck.config_ = std::move(g.config);
        ck.archive_ = std::move(g.archive);
        ck.gguf_ = std::move(g.file);
        ck.from_gguf_ = true;
    }

    const ModelConfig& c = ck.config_;
    const int64_t H = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
    const int64_t Q = int64_t(c.num_attention_heads) * c.head_dim, KV = int64_t(c.num_key_value_heads) * c.head_dim;
    const std::string h = "hidden_size=" + std::to_string(H);
    const std::string vh = "vocab_size=" + std::to_string(V) + ", " + h;
    const std::string hd = ", head_dim=" + std::to_string(c.head_dim);
    const std::string q_why = h + ", num_attention_heads=" + std::to_string(c.num_attention_heads) + hd;
    const std::string kv_why = h + ", num_key_value_heads=" + std::to_string(c.num_key_value_heads) + hd;
    const std::string f_why = h + ", intermediate_size=" + std::to_string(F);

    Resolver r(ck.archive_, c);
    ModelWeights& w = ck.weights_;
    w.embed = r.require("model.embed_tokens.weight", {V, H}, vh);
    // The layer count sizes what follows: check it against the layers the weights hold first,
    // so a damaged config.json (num_hidden_layers: 2147483647) is named, not an allocation failure.
    // (A layer that is present but incomplete is named tensor by tensor below.)
    long held = 0;  // 1 + the highest layer index of any tensor
    for (const auto& [name, view] : ck.archive_.tensors()) {
        if (!name.starts_with("model.layers.")) continue;
        const long index = std::strtol(name.c_str() + 13, nullptr, 10);
        if (index >= 0 && index < (1L << 30)) held = std::max(held, index + 1);
    }
    if (c.num_hidden_layers > held)
        throw Error(config_path.string() + ": num_hidden_layers=" + std::to_string(c.num_hidden_layers) + " but the weights in " +
                    dir.string() + " hold " + std::to_string(held) + " layer(s)" +
                    (held ? " (model.layers.0-" + std::to_string(held - 1) + ")" : ""));
    w.layers.resize(size_t(c.num_hidden_layers));
    for (int i = 0; i < c.num_hidden_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        LayerWeights& l = w.layers[size_t(i)];
        l.attn_norm = r.require(p + "input_layernorm.weight", {H}, h);
        l.wq = r.require(p + "self_attn.q_proj.weight", {Q, H}, q_why);
        l.wk = r.require(p + "self_attn.k_proj.weight", {KV, H}, kv_why);
        l.wv = r.require(p + "self_attn.v_proj.weight", {KV, H}, kv_why);
        l.wo = r.require(p + "self_attn.o_proj.weight", {H, Q}, q_why);
        if (c.attention_bias) {  // biases present without the flag are ignored, as transformers does
            l.bq = r.require(p + "self_attn.q_proj.bias", {Q}, q_why);
            l.bk = r.require(p + "self_attn.k_proj.bias", {KV}, kv_why);
            l.bv = r.require(p + "self_attn.v_proj.bias", {KV}, kv_why);
            l.bo = r.require(p + "self_attn.o_proj.bias", {H}, h);
        }
        l.ffn_norm = r.require(p + "post_attention_layernorm.weight", {H}, h);
        l.w_gate = r.require(p + "mlp.gate_proj.weight", {F, H}, f_why);
        l.w_up = r.require(p + "mlp.up_proj.weight", {F, H}, f_why);
        l.w_down = r.require(p + "mlp.down_proj.weight", {H, F}, f_why);
        if (c.mlp_bias) {
            l.b_gate = r.require(p + "mlp.gate_proj.bias", {F}, f_why);
            l.b_up = r.require(p + "mlp.up_proj.bias", {F}, f_why);
            l.b_down = r.require(p + "mlp.down_proj.bias", {H}, h);
        }
    }
    w.final_norm = r.require("model.norm.weight", {H}, h);
    if (c.sequence_head()) {
        // LlamaForSequenceClassification: a linear head `score` (no bias) and no lm_head.
        const std::string what = config_path.string() + ": architectures names LlamaForSequenceClassification";
        if (c.problem_type != "regression" && !(c.problem_type.empty() && c.labels.size() == 1))
            throw Error(what + (c.problem_type.empty() ? " with " + std::to_string(c.labels.size()) + " labels and no problem_type"
                                                       : " with problem_type \"" + c.problem_type + "\"") +
                        ": Carbon Studio predicts with regression heads (problem_type \"regression\", as Carbon's fine-tuning "
                        "recipes write), not classification heads");
        if (!ck.archive_.contains("score.weight"))
            throw Error(dir.string() + ": tensor 'score.weight' is missing (" + what + ", whose head it is)");
        if (ck.archive_.contains("score.bias"))
            throw Error(dir.string() + ": tensor 'score.bias' is present, but transformers' LlamaForSequenceClassification head "
                                       "has no bias: this checkpoint was not written by it");
        w.score = r.require_any_dtype("score.weight", {int64_t(c.labels.size()), H},
                            "num_labels=" + std::to_string(c.labels.size()) + ", " + h);
        w.dtype = r.matrix_dtype();
        w.q8_0 = r.q8_0();
        return ck;
    }
    if (c.tie_word_embeddings) {
        // transformers ties the head to the embedding even when a stale lm_head.weight is stored.
        w.lm_head = w.embed;
    } else {
        if (!ck.archive_.contains("lm_head.weight"))
            throw Error(dir.string() + ": tensor 'lm_head.weight' is missing and " + config_path.filename().string() +
                        " has tie_word_embeddings=false");
        w.lm_head = r.require("lm_head.weight", {V, H}, vh);
    }
    w.dtype = r.matrix_dtype();
    w.q8_0 = r.q8_0();
    return ck;
}

void Checkpoint::extend_context_yarn(double factor) {
    if (!(factor > 1.0) || factor > 64.0)
        throw Error("YaRN factor must be in (1, 64], got " + std::to_string(factor));
    if (config_.rope_scaling.type != RopeType::Default)
        throw Error(config_.path.string() + " already uses " + rope_type_name(config_.rope_scaling.type) +
                    " RoPE scaling; a YaRN extension on top of it is not defined");
    RopeScaling y;
    y.type = RopeType::Yarn;
    y.factor = factor;
    y.original_max_position_embeddings = config_.max_position_embeddings;
    config_.rope_scaling = y;
    config_.max_position_embeddings = int(double(config_.max_position_embeddings) * factor);
}

}  // namespace carbon
