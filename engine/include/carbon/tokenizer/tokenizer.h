// The Carbon hybrid tokenizer: Qwen-style byte-level BPE for text (metadata tags) and fixed
// 6-mer tokens for DNA after <dna>. Every id comes from the checkpoint's own files; the only
// rule applied without a listing is the documented HybridDNATokenizer layout (carbon-spec.md:
// 6-mers at <oov>+1+index, A=0 T=1 C=2 G=3, first base most significant), checked against
// vocab_size.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/support/common.h"

namespace carbon {

// Base order of the 6-mer index: A=0, T=1, C=2, G=3 (not alphabetical).
inline constexpr std::array<char, 4> kKmerBases = {'A', 'T', 'C', 'G'};
inline constexpr int kKmer = 6;
inline constexpr int kNumKmers = 4096;
// 0..3 for A/T/C/G (upper case only), -1 otherwise.
inline int base_code(char c) {
    switch (c) {
        case 'A': return 0;
        case 'T': return 1;
        case 'C': return 2;
        case 'G': return 3;
        default: return -1;
    }
}

// Something the encoder changed or could not represent, reported to the user (never silent).
struct DnaNotice {
    enum Kind { Lowercase, NonAcgt } kind;
    size_t position;  // 0-based base position in the input
    char character;   // the input character (for NonAcgt), first one for a Lowercase run
    size_t count;     // length of the run of consecutive positions this notice covers
};

struct DnaEncoding {
    std::vector<int32_t> ids;       // <dna>, the 6-mer/<oov> tokens, and </dna> when closed
    size_t n_bases = 0;             // real bases encoded (input length)
    size_t n_padding = 0;           // 'A' bases appended to fill the last 6-mer (0..5)
    std::vector<DnaNotice> notices;  // lowercase runs upper-cased; non-ACGT runs (their 6-mers are <oov>)
    size_t first_dna_token = 0;     // index in ids of the first 6-mer token (after <dna>)
};

class BpeModel;  // byte-level BPE for text; internal
class GgufFile;
namespace detail {
struct TokenizerSources;
}

struct TokenizerInfo {
    std::string source;          // files the tokenizer was read from
    std::string tokenizer_class;  // tokenizer_config.json's tokenizer_class, if any
    std::string kmer_ids_from;   // how the 6-mer ids were found (listing in which file, or the layout rule)
    std::string bpe_from;        // which file(s) the BPE vocabulary and merges came from
    std::string pretokenizer;    // "qwen2", "gpt2", ...
    bool nfc = false;            // NFC normalizer before BPE
    size_t bpe_vocab_size = 0;
    size_t num_merges = 0;
    size_t num_added_tokens = 0;
};

class Tokenizer {
public:
    // Reads tokenizer.json, tokenizer_config.json, vocab.json + merges.txt, added_tokens.json,
    // special_tokens_map.json from `dir`, whichever exist. `vocab_size` is config.json's, used to
    // check that every id fits. Throws Error naming the file and what is missing or malformed.
    static Tokenizer load(const std::filesystem::path& dir, int vocab_size);
    // The tokenizer a GGUF file carries (tokenizer.ggml.*: the token list with the 6-mers marked
    // by U+E000, token types, BPE merges, pre-tokenizer), as llama.cpp's converter writes Carbon's
    // HybridDNATokenizer, with the same checks. Throws Error naming the file and the key.
    static Tokenizer from_gguf(const GgufFile& file, int vocab_size);

    Tokenizer();
    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    int32_t dna_open_id() const { return dna_open_; }
    int32_t dna_close_id() const { return dna_close_; }
    int32_t oov_id() const { return oov_; }
    // Token id of 6-mer number `index` (0..4095 in A/T/C/G base-4 order).
    int32_t kmer_id(int index) const { return kmer_ids_[size_t(index)]; }
    const std::vector<int32_t>& kmer_ids() const { return kmer_ids_; }
    // 6-mer index of a token id, or -1 when the id is not a 6-mer.
    int kmer_index(int32_t id) const;
    // Text of a 6-mer index, e.g. 0 -> "AAAAAA".
    static std::string kmer_text(int index);
    // Index of a 6-mer text of A/C/G/T (upper case), or -1.
    static int kmer_index_of(std::string_view six);

    // Byte-level BPE of plain text (no DNA handling), splitting out added/special tokens first,
    // exactly as the Python `tokenizers` library encodes with add_special_tokens=False.
    std::vector<int32_t> encode_text(std::string_view text) const;

    // DNA as the reference tokenizer encodes it: upper-cases (with a notice), <oov> for any
    // 6-mer holding a character other than ACGT (with a notice), right-pads the last block with
    // 'A'. `closed` appends </dna> (scoring form); open (generation form) does not.
    DnaEncoding encode_dna(std::string_view bases, bool closed) const;

    // [metadata text as BPE][<dna>]bases[</dna>]: the whole prompt the application builds.
    // metadata may be empty. The returned encoding's ids include the metadata tokens and
    // first_dna_token points past them and <dna>.
    DnaEncoding encode_prompt(std::string_view metadata, std::string_view bases, bool closed) const;

    // Bases of 6-mer tokens; <oov> decodes to "NNNNNN"; <dna>/</dna> are skipped. Any other id
    // throws Error naming the position.
    std::string decode_dna(const std::vector<int32_t>& ids) const;
    // Text of any id (BPE tokens decoded from byte-level form, special tokens as their content).
    std::string id_to_text(int32_t id) const;

    const TokenizerInfo& info() const { return info_; }

private:
    static Tokenizer build(detail::TokenizerSources s, int vocab_size);
    std::unique_ptr<BpeModel> bpe_;
    int32_t dna_open_ = -1, dna_close_ = -1, oov_ = -1;
    std::vector<int32_t> kmer_ids_;         // 4096
    std::vector<int16_t> kmer_index_of_id_;  // vocab_size entries, -1 for non-6-mers
    TokenizerInfo info_;
};

}  // namespace carbon
