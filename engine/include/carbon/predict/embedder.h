// Frozen Carbon embeddings of DNA sequences, what a probe fitted to the user's measurements reads
// (carbon/predict/probe.h). Carbon's own conventions (huggingface/carbon clustering/): the input
// is <dna>SEQUENCE</dna> with no BOS, and the embedding is read from the final hidden state (after
// the model's last norm, transformers' hidden_states[-1]):
//  - dna-end: at </dna>, the row a fine-tuned regression head pools (extract_separator_embeddings.py);
//  - dna-mean: the mean over the DNA tokens (the 6-mers and <oov>s between <dna> and </dna>);
//  - both: the two side by side (2 x hidden_size wide; the default: each carries what the other
//    misses, and the probe's ridge penalty weighs them).
// Strands: forward, or the mean of the sequence's and its reverse complement's embeddings (the
// reverse-complement averaging of Carbon's fine-tuning recipes; for measurements that do not
// depend on orientation). Sequences are upper-cased and stripped of surrounding blanks; the
// tokenizer encodes them whole (the last 6-mer padded as it always is), never truncated.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/model.h"

namespace carbon {

enum class EmbeddingPool { DnaEnd, DnaMean, Both };

struct EmbeddingRecipe {
    EmbeddingPool pool = EmbeddingPool::Both;
    bool rc_average = false;

    size_t width(size_t hidden_size) const { return pool == EmbeddingPool::Both ? 2 * hidden_size : hidden_size; }
    // "dna-end", "dna-mean" or "both"; "forward" or "average".
    std::string pool_name() const;
    std::string strands_name() const { return rc_average ? "average" : "forward"; }
    // One line for reports and stored provenance.
    std::string describe() const;
    // From the names above; Error naming `where` and the accepted names otherwise.
    static EmbeddingPool parse_pool(std::string_view name, const std::string& where);
    static bool parse_strands(std::string_view name, const std::string& where);
};

// Called between batches with (sequences done, total); returning false cancels.
using EmbedProgress = std::function<bool(size_t done, size_t total)>;

struct Embeddings {
    size_t width = 0;
    std::vector<double> values;  // [sequence, width]
    size_t tokens_forwarded = 0;  // tokens the model forwarded for them
    bool cancelled = false;
    const double* row(size_t i) const { return values.data() + i * width; }
};

class SequenceEmbedder {
public:
    SequenceEmbedder(Model& model, EmbeddingRecipe recipe);
    const EmbeddingRecipe& recipe() const { return recipe_; }
    size_t width() const { return recipe_.width(size_t(model_.config().hidden_size)); }

    // <dna>SEQUENCE</dna> for `sequence`; Error naming `name` when it has no bases or does not
    // fit the model's context.
    std::vector<int32_t> tokens(std::string_view sequence, const std::string& name) const;

    // Embeddings of `sequences` (names for messages), `batch` sequences a forward pass. Every
    // sequence is checked before the first pass.
    Embeddings embed(std::span<const std::string> sequences, std::span<const std::string> names, size_t batch = 16,
                     const EmbedProgress& progress = {});
    // The same for sequences that are `reference` with a few bases changed: each forked from the
    // reference's cache at its first changed token (ActivityPredictor::predict_near).
    Embeddings embed_near(std::string_view reference, std::span<const std::string> sequences, std::span<const std::string> names,
                          size_t batch = 16, const EmbedProgress& progress = {});

private:
    Embeddings embed_impl(const std::string_view* reference, std::span<const std::string> sequences, std::span<const std::string> names,
                          size_t batch, const EmbedProgress& progress);

    Model& model_;
    EmbeddingRecipe recipe_;
};

// The identity of a model's numbers, for a probe fitted on its embeddings: FNV-1a 64 over
// config.json, the tokenizer's files, and each weight file's size, safetensors header and 16
// evenly spaced 64 KiB samples of its data (a different fine-tune or dtype of the same shape has
// other bytes there; reading every byte of a 16 GB model would take a minute). "fnv1a64:HEX".
std::string model_fingerprint(const std::filesystem::path& checkpoint_dir);

}  // namespace carbon
