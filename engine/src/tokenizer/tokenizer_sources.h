// What a tokenizer was read from (a checkpoint folder's files, or a GGUF file's metadata), before
// the checks every source goes through (Tokenizer::build, tokenizer_build.cpp). Internal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bpe.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon::detail {

inline constexpr std::string_view kDnaOpen = "<dna>", kDnaClose = "</dna>", kOov = "<oov>";
inline constexpr std::string_view kKmerSuffix = "\xEE\x80\x80";  // U+E000, as GGUF conversions mark 6-mers

// Where each token was seen: the DNA names and 6-mers are looked up in every listing, and must
// agree. A listing holds an added-token list whole, but only the DNA names and marked 6-mers of a
// BPE vocabulary.
struct Listing {
    std::string where;
    std::vector<std::pair<std::string, int32_t>> tokens;  // content, id
    bool added = true;  // an added-token list (else a BPE vocabulary's DNA names and 6-mers)
};

// A 6-mer listed as a token: exactly six of A/C/G/T, optionally marked with U+E000; else -1.
int listed_kmer_index(std::string_view content);
// A 6-mer marked with U+E000 in a BPE vocabulary (raw or in byte-level form), or -1. Unmarked
// 6-letter words there are text ("CCCCCC" is a Qwen token), never DNA.
int marked_vocab_kmer_index(const std::string& key);
Listing vocab_listing(const std::string& where, const std::unordered_map<std::string, int32_t>& vocab);

struct TokenizerSources {
    std::string where;            // the folder or file, for messages
    std::string vocab_size_from;  // what gave vocab_size ("config.json vocab_size"), for messages
    BpeSpec spec;
    std::vector<Listing> listings;
    std::unordered_map<int32_t, std::string> extra_names;
    TokenizerInfo info;           // source, tokenizer_class, bpe_from; the rest is filled by build
    std::string no_kmers;         // why the 6-mer layout rule cannot stand in for a listing
};

}  // namespace carbon::detail
