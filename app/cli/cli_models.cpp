// carbon-cli models: the model folders the application would offer (the Hugging Face cache's
// snapshots and any folders given), described without loading them, with the reason a folder
// does not load.
#include <cstdio>

#include "carbon/model_catalog.h"
#include "carbon/support/common.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kModelsUsage = R"(usage: carbon-cli models [--hub DIR] [DIR...]
  Lists the model snapshots in the Hugging Face cache (--hub DIR, default $HF_HUB_CACHE, else
  $HF_HOME/hub, else ~/.cache/huggingface/hub) and each model folder DIR given: parameters,
  context, dtype, size on disk, memory needed on the CPU for one full-context sequence, and the
  DNA token ids; or why the folder does not load. Nothing is downloaded.
)";

void print(const ModelFolderInfo& m) {
    std::printf("%s%s%s\n  %s\n", m.name.c_str(), m.revision.empty() ? "" : (" @ " + m.revision.substr(0, 12)).c_str(),
                m.current ? " (refs/main)" : "", m.dir.string().c_str());
    if (!m.ok) {
        std::printf("  does not load: %s\n", m.error.c_str());
        return;
    }
    const ModelConfig& c = m.config;
    std::printf("  %.3g M parameters, %d layers, hidden %d, %d heads (%d KV), context %d tokens (%d bp), %s weights\n",
                double(m.parameters) / 1e6, c.num_hidden_layers, c.hidden_size, c.num_attention_heads,
                c.num_key_value_heads, c.max_position_embeddings, c.max_position_embeddings * 6,
                dtype_name(m.weights_dtype));
    std::printf("  on disk %s; CPU memory %s (weights %s + KV cache %s for one full-context sequence)\n",
                human_bytes(double(m.disk_bytes)).c_str(), human_bytes(double(m.memory_needed(uint64_t(c.max_position_embeddings)))).c_str(),
                human_bytes(double(m.weight_bytes)).c_str(),
                human_bytes(double(m.kv_bytes_per_token) * c.max_position_embeddings).c_str());
    std::printf("  tokenizer: <dna>=%d </dna>=%d <oov>=%d, 6-mers %d..%d (%s)\n", m.dna_open, m.dna_close, m.oov, m.first_kmer,
                m.last_kmer, m.kmer_ids_from.c_str());
}

}  // namespace

int cmd_models(const std::vector<std::string>& args) {
    std::filesystem::path hub = default_hf_hub_dir();
    std::vector<std::filesystem::path> folders;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            std::fputs(kModelsUsage, stdout);
            return 0;
        }
        if (args[i] == "--hub") {
            if (i + 1 >= args.size()) throw Error("--hub needs a folder");
            hub = args[++i];
        } else if (args[i].rfind("--", 0) == 0) {
            throw Error("models: unknown option '" + args[i] + "'\n" + kModelsUsage);
        } else {
            folders.push_back(args[i]);
        }
    }
    const auto snaps = find_hf_snapshots(hub);
    std::printf("Hugging Face cache %s: %zu model snapshot(s)\n", hub.empty() ? "(none: HOME is not set)" : hub.string().c_str(),
                snaps.size());
    for (const auto& m : snaps) print(m);
    for (const auto& f : folders) print(inspect_model_folder(f));
    return 0;
}

}  // namespace carbon::cli
