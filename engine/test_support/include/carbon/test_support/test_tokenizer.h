// Stand-in Carbon tokenizer files for test models (make-test-model, the tokenizer tests and fuzzing):
// not part of the engine, which only reads tokenizers.
#pragma once

#include <cstdint>
#include <filesystem>

namespace carbon {

// Writes stand-in tokenizer files for make-test-model: a small byte-level BPE text vocabulary
// (Qwen2 pre-tokenizer, trained on a built-in corpus) at ids below the DNA tokens, Qwen's special
// tokens, then <dna>, </dna>, <oov> and the 4,096 6-mers in the HybridDNATokenizer layout.
struct TestTokenizerOptions {
    int vocab_size = 155776;          // config vocab_size; padding ids fill up to it
    int32_t dna_open_id = 151669;     // the real layout; a smaller value gives a compact vocab
    int num_merges = 2000;            // BPE merges in the stand-in vocabulary
    bool list_kmers = false;          // also list the 6-mers as added tokens in tokenizer_config.json
};
void write_test_tokenizer(const std::filesystem::path& dir, const TestTokenizerOptions& options);

}  // namespace carbon
