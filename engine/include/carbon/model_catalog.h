// What a model folder holds, found without loading it: config, tensor headers (every tensor
// checked against the config, as loading would), the tokenizer and its DNA ids, sizes and the
// memory the CPU backend will need. Also the Hugging Face cache's model snapshots, and the check
// that a draft model can draft for a target. Reads files only; never touches the network.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "carbon/loader/config.h"

namespace carbon {

class Tokenizer;

struct ModelFolderInfo {
    std::filesystem::path dir;
    std::string name;        // "ORG/NAME" for a Hugging Face cache snapshot, else the folder name
    std::string revision;    // the snapshot's commit hash; "" for a plain folder
    bool current = false;    // the snapshot refs/main points to
    bool ok = false;
    std::string error;  // why the folder does not load when !ok: the loader's own message (file,
                        // key or tensor named), and any links to deleted cache blobs
    // When ok:
    ModelConfig config;
    int64_t parameters = 0;
    DType weights_dtype = DType::BF16;  // of the stored matrices
    uint64_t weight_bytes = 0;          // tensor payload of the safetensors
    uint64_t disk_bytes = 0;            // every file of the folder (symlinks followed)
    uint64_t kv_bytes_per_token = 0;    // the CPU backend's KV cache per cached token
    int32_t dna_open = -1, dna_close = -1, oov = -1, first_kmer = -1, last_kmer = -1;
    std::string kmer_ids_from;          // where the tokenizer found the 6-mer ids
    // Weights plus the KV cache of `batch` sequences of `tokens` tokens each.
    uint64_t memory_needed(uint64_t tokens, uint64_t batch = 1) const { return weight_bytes + kv_bytes_per_token * tokens * batch; }
};

ModelFolderInfo inspect_model_folder(const std::filesystem::path& dir);

// The Hugging Face hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
std::filesystem::path default_hf_hub_dir();

// Every model snapshot under a hub cache (models--ORG--NAME/snapshots/<revision>/ holding a
// config.json, if only as a link to a deleted blob), the current one (refs/main) first within each
// repository; inspected unless `inspect` is false (then only dir, name, revision and current are
// set). A missing cache gives an empty list.
std::vector<ModelFolderInfo> find_hf_snapshots(const std::filesystem::path& hub_root, bool inspect = true);

// Error unless `draft` uses the target's DNA token ids (<dna>, </dna>, <oov> and the 4,096
// 6-mers), so that its proposals mean the same tokens to the target.
void check_draft_compatible(const Tokenizer& target, const Tokenizer& draft);

// The KV cache bytes per token of the CPU backend (fp32 K and V for every layer and KV head).
uint64_t cpu_kv_bytes_per_token(const ModelConfig& config);

}  // namespace carbon
