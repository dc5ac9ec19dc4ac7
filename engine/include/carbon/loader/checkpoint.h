// A Hugging Face Llama checkpoint directory: config, weights (memory-mapped) and tokenizer,
// with every tensor the network needs found and checked against the config before use.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "carbon/loader/config.h"
#include "carbon/loader/tensor_archive.h"

namespace carbon {

class GgufFile;

// The tensors of one decoder layer. Biases are null unless the config enables them.
struct LayerWeights {
    const TensorView* attn_norm = nullptr;  // input_layernorm.weight [H]
    const TensorView* wq = nullptr;         // self_attn.q_proj.weight [n_heads*head_dim, H]
    const TensorView* wk = nullptr;         // self_attn.k_proj.weight [n_kv*head_dim, H]
    const TensorView* wv = nullptr;         // self_attn.v_proj.weight [n_kv*head_dim, H]
    const TensorView* wo = nullptr;         // self_attn.o_proj.weight [H, n_heads*head_dim]
    const TensorView* bq = nullptr;
    const TensorView* bk = nullptr;
    const TensorView* bv = nullptr;
    const TensorView* bo = nullptr;
    const TensorView* ffn_norm = nullptr;   // post_attention_layernorm.weight [H]
    const TensorView* w_gate = nullptr;     // mlp.gate_proj.weight [F, H]
    const TensorView* w_up = nullptr;       // mlp.up_proj.weight [F, H]
    const TensorView* w_down = nullptr;     // mlp.down_proj.weight [H, F]
    const TensorView* b_gate = nullptr;
    const TensorView* b_up = nullptr;
    const TensorView* b_down = nullptr;
};

struct ModelWeights {
    const TensorView* embed = nullptr;     // model.embed_tokens.weight [V, H]
    std::vector<LayerWeights> layers;
    const TensorView* final_norm = nullptr;  // model.norm.weight [H]
    const TensorView* lm_head = nullptr;     // lm_head.weight [V, H], or embed when tied; null for a
                                             // sequence-regression checkpoint (it has none)
    const TensorView* score = nullptr;       // score.weight [labels, H] of a sequence-regression checkpoint
    DType dtype = DType::BF16;               // the dtype of the float matrices (all the same); Q8_0 when
                                             // every matrix is Q8_0
    bool q8_0 = false;                       // some matrices are a GGUF file's Q8_0 blocks
};

class Checkpoint {
public:
    // Loads config.json and the safetensors of a Hugging Face checkpoint folder, or a GGUF file
    // (gguf_model.h; the path of a .gguf file, or a folder holding one and no config.json), then
    // resolves and checks every tensor: presence, shape against the config, one floating dtype
    // (f32, f16 or bf16) for all matrices (a GGUF file's may also be Q8_0). Throws Error naming
    // the directory/file and the tensor.
    static Checkpoint open(const std::filesystem::path& dir);

    // The path opened: a checkpoint folder or a GGUF file.
    const std::filesystem::path& dir() const { return dir_; }
    // The GGUF file the model was read from (its metadata carries the tokenizer); null for a
    // Hugging Face checkpoint.
    const GgufFile* gguf() const { return gguf_.get(); }
    bool from_gguf() const { return from_gguf_; }
    // Lets the GGUF file's metadata go (its tokenizer's arrays: some 40 MB for Carbon's vocabulary
    // and merges) once the tokenizer has been read from it; the tensors stay mapped.
    void drop_gguf_metadata() { gguf_.reset(); }
    const ModelConfig& config() const { return config_; }
    const ModelWeights& weights() const { return weights_; }
    const TensorArchive& archive() const { return archive_; }

    // Extends the context with YaRN (factor f: the native max_position_embeddings becomes
    // original_max_position_embeddings and the context f times it), as the Carbon card does for
    // long inputs. Error when the config already scales RoPE or f <= 1.
    void extend_context_yarn(double factor);

    Checkpoint(Checkpoint&&) = default;
    Checkpoint& operator=(Checkpoint&&) = default;

private:
    Checkpoint() = default;
    std::filesystem::path dir_;
    ModelConfig config_;
    TensorArchive archive_;
    std::shared_ptr<const GgufFile> gguf_;
    bool from_gguf_ = false;
    ModelWeights weights_;
};

}  // namespace carbon
