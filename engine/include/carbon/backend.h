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

#include "carbon/fns/fns.h"
#include "carbon/fns/sampling.h"
#include "carbon/loader/checkpoint.h"

namespace carbon {

using SeqId = int32_t;

// Which rows of the output head a forward pass evaluates.
enum class Head {
    None,  // no logits (pure prefill of a prefix)
    Dna,   // only the 4,096 DNA 6-mer rows, in 6-mer index order (what FNS and DNA generation need)
    Full,  // the whole vocabulary
    Hidden,  // no head: the final hidden state after the model's last norm (hidden_size wide), what
             // a sequence-regression head or an embedding reads
};

struct ForwardItem {
    SeqId seq = -1;
    std::span<const int32_t> tokens;  // appended at the sequence's current end
    bool all_positions = false;       // logits for every appended token, else for the last only
};

struct ForwardOutput {
    size_t width = 0;              // 4096 for Head::Dna, vocab_size for Head::Full, hidden_size for
                                   // Head::Hidden, 0 for None
    std::vector<float> logits;     // [rows, width] fp32, rows in item order then position order
                                   // (Head::Hidden: the normed hidden states)
    std::vector<size_t> row_begin;  // first row of each item; row_begin[items] = total rows
    const float* row(size_t item, size_t position = 0) const { return logits.data() + (row_begin[item] + position) * width; }
};

struct BackendOptions {
    int threads = 0;  // CPU worker threads; <= 0: all cores
    // CPU backend's instruction-set path: "" or "auto" (CARBON_CPU_KERNELS from the environment,
    // else the best this CPU has), "fp32" (the best with fp32 activations), or portable, avx2,
    // avx512, avx512-bf16, amx (cpu_isa.h).
    std::string cpu_kernels;
    // The weights as the backend holds them: "" or "native" as the checkpoint stores them; "int8":
    // the projections and the DNA head quantised at load with one scale per output row, the
    // activations per row (cpu/cpu_q8.h, the rows scheme: the fastest); "q8_0": in groups of 32
    // with fp16 scales, the activations per group (GGUF Q8_0's layout, the groups scheme: the
    // closest to the stored weights). int8 runs on the CPU and CUDA backends to the same products
    // (exact int32 sums, the same scales); q8_0 on the CPU backend only.
    std::string weights;
};

// What a backend will hold in memory (bytes).
struct MemoryPlan {
    size_t weights = 0;          // weights as the backend holds them (mapped or copied)
    size_t kv_per_token = 0;     // KV cache bytes per cached token (all layers)
    size_t workspace = 0;        // activations etc. for the largest batch seen so far
};

// What a backend guarantees about its numbers; callers check instead of assuming (identity-verified
// speculative decoding needs batch invariance: a token's logits the same whether it is decoded
// alone, inside a batch or inside a multi-token verification pass).
// A backend promises it for passes of at most invariant_new_tokens new tokens per sequence and
// invariant_rows new tokens in all (0: never; SIZE_MAX: always).
struct BackendGuarantees {
    size_t invariant_new_tokens = 0;
    size_t invariant_rows = 0;
    bool batch_invariant(size_t new_tokens_per_sequence, size_t rows) const {
        return new_tokens_per_sequence <= invariant_new_tokens && rows <= invariant_rows;
    }
};

// FNS on the backend: one row per item (its last appended token), the base masks of the six
// positions that token decides, and the design's random stream and token step (for backends that
// choose on the device and certify the choice; the sampling parameters come with the call).
struct FnsRowRequest {
    std::array<BaseMask, 6> masks{kAnyBase, kAnyBase, kAnyBase, kAnyBase, kAnyBase, kAnyBase};
    uint64_t stream = 0;
    uint64_t step = 0;
};

// What the host computes from the row's 4,096 DNA logits (fns.h): the plain marginals, the
// marginals under the masks and the mass the masks allow (0: no 6-mer is allowed; masked is then
// all zero). A backend returns exactly what dna_softmax + fns_marginals + fns_masked_marginals give
// on its own logits, or, when it computes them elsewhere, values whose every FNS choice (under the
// call's sampling parameters, every re-pick of a constraint search included) is the one those
// host functions would make.
struct FnsRow {
    Marginals plain{};
    Marginals masked{};
    double masked_total = 0;
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

    // Appends the items' tokens as forward() does and returns, per item, the FNS data of its last
    // row instead of 4,096 logits. The default runs forward(Head::Dna) and the host functions; a GPU
    // backend computes it next to the logits and ships 48 numbers a row instead of 4,096.
    virtual void forward_fns(std::span<const ForwardItem> items, std::span<const FnsRowRequest> rows,
                             const SamplingParams& sampling, std::vector<FnsRow>& out);
    virtual BackendGuarantees guarantees() const { return {}; }

    virtual MemoryPlan memory_plan() const = 0;
    // Bytes this backend can still allocate for caches and workspace (host memory for the CPU
    // backend, device memory for a GPU's), for memory plans made before a request starts.
    virtual size_t memory_available() const;
    // Gives back what the backend keeps for reuse between requests (freed KV blocks or pages,
    // per-step buffers grown for the largest batch seen), between requests: after a large run or
    // a cancelled one, the memory returns to the system (or the device). Sequences still held
    // stay valid; the next request grows the buffers again.
    virtual void release_cached_memory() {}
};

// What a backend throws for Head::Dna or Head::Full on a checkpoint without a language-model head
// (a sequence-regression checkpoint): it predicts but does not generate or score.
[[noreturn]] void throw_no_language_model_head(const ModelConfig& config);

// Every backend calls this on its output: a non-finite logit (damaged weights, a config whose
// numbers overflow) is reported where it arose, naming the item and position, instead of
// flowing on as NaN scores or all-A designs. `model` names the checkpoint for the message.
void require_finite_logits(const ForwardOutput& out, std::span<const ForwardItem> items, const std::string& model);

// The host computation behind Backend::forward_fns's default, for one row of 4,096 DNA logits.
FnsRow fns_row_on_host(const float* logits, size_t width, const std::array<BaseMask, 6>& masks);

// The CPU backend (the reference every other backend is checked against). `dna_rows` are the
// vocabulary ids of the 4,096 6-mers in index order (Tokenizer::kmer_ids()).
std::unique_ptr<Backend> make_cpu_backend(const Checkpoint& checkpoint, std::vector<int32_t> dna_rows,
                                          const BackendOptions& options);

}  // namespace carbon
