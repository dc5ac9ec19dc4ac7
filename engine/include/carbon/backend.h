// The engine's backend interface: everything above it (tokenizer, sampling, FNS, scoring,
// generation) is backend-independent and talks to the network only through this class. A
// backend owns the weights it needs, the KV caches of its sequences, and runs batched forward
// passes over ragged batches (each sequence appends its own number of tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "carbon/checkpoint.h"

namespace carbon {

using SeqId = int32_t;

// Which rows of the output head a forward pass evaluates.
enum class Head {
    None,  // no logits (pure prefill of a prefix)
    Dna,   // only the 4,096 DNA 6-mer rows, in 6-mer index order (what FNS and DNA generation need)
    Full,  // the whole vocabulary
};

struct ForwardItem {
    SeqId seq = -1;
    std::span<const int32_t> tokens;  // appended at the sequence's current end
    bool all_positions = false;       // logits for every appended token, else for the last only
};

struct ForwardOutput {
    size_t width = 0;              // 4096 for Head::Dna, vocab_size for Head::Full, 0 for None
    std::vector<float> logits;     // [rows, width] fp32, rows in item order then position order
    std::vector<size_t> row_begin;  // first row of each item; row_begin[items] = total rows
    const float* row(size_t item, size_t position = 0) const { return logits.data() + (row_begin[item] + position) * width; }
};

struct BackendOptions {
    int threads = 0;  // CPU worker threads; <= 0: all cores
};

// What a backend will hold in memory (bytes).
struct MemoryPlan {
    size_t weights = 0;          // weights as the backend holds them (mapped or copied)
    size_t kv_per_token = 0;     // KV cache bytes per cached token (all layers)
    size_t workspace = 0;        // activations etc. for the largest batch seen so far
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // What the user should know about how this backend runs, if anything (it runs with fewer
    // threads than asked because the system refused more); empty otherwise.
    virtual std::string notice() const { return {}; }
    // One line describing the device/threads/precision, for logs and `carbon-cli info`.
    virtual std::string describe() const = 0;

    virtual SeqId create_sequence() = 0;
    virtual void free_sequence(SeqId seq) = 0;
    // A new sequence whose cache holds a copy of `src`'s (shared prompts, many designs).
    virtual SeqId fork_sequence(SeqId src) = 0;
    virtual size_t sequence_length(SeqId seq) const = 0;
    // Drops cached tokens at positions >= n_tokens (speculative-decoding rollback, rescoring
    // after an edit). n_tokens must not exceed the current length.
    virtual void truncate_sequence(SeqId seq, size_t n_tokens) = 0;

    // Appends each item's tokens to its sequence (one forward pass over the whole ragged batch)
    // and returns the requested logits. Each sequence may appear at most once per call.
    virtual void forward(std::span<const ForwardItem> items, Head head, ForwardOutput& out) = 0;

    virtual MemoryPlan memory_plan() const = 0;
    // Bytes this backend can still allocate for caches and workspace (host memory for the CPU
    // backend, device memory for a GPU's), for memory plans made before a request starts.
    virtual size_t memory_available() const;
};

// Every backend calls this on its output: a non-finite logit (damaged weights, a config whose
// numbers overflow) is reported where it arose, naming the item and position, instead of
// flowing on as NaN scores or all-A designs. `model` names the checkpoint for the message.
void require_finite_logits(const ForwardOutput& out, std::span<const ForwardItem> items, const std::string& model);

// The CPU backend (the reference every other backend is checked against). `dna_rows` are the
// vocabulary ids of the 4,096 6-mers in index order (Tokenizer::kmer_ids()).
std::unique_ptr<Backend> make_cpu_backend(const Checkpoint& checkpoint, std::vector<int32_t> dna_rows,
                                          const BackendOptions& options);

}  // namespace carbon
