// Byte-level BPE as the Python `tokenizers` library runs it (added tokens, NFC, pre-tokenizer,
// GPT-2 byte mapping, merges by rank). Internal; tokenizer.cpp reads the files into a BpeSpec.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "unicode.h"

namespace carbon {

struct AddedToken {
    std::string content;
    int32_t id = -1;
    bool special = false;
    bool lstrip = false;
    bool rstrip = false;
    bool single_word = false;
    bool normalized = false;  // matched against the normalized text (content normalized too)
};

struct PreTokenizerSpec {
    std::vector<unicode::SplitPattern> splits;  // Split(Regex, Isolated) steps, in order
    bool byte_level_regex = false;              // ByteLevel(use_regex=true): GPT-2 pattern
    bool add_prefix_space = false;              // ByteLevel(add_prefix_space=true)
    std::string describe() const;               // "qwen2", "gpt2", "qwen2+gpt2", "+prefix-space"
};

// Everything the encoder needs, as read from tokenizer.json or vocab.json + merges.txt.
struct BpeSpec {
    std::string origin;                                       // file named in messages about the vocabulary and merges
    std::unordered_map<std::string, int32_t> vocab;           // byte-level token text -> id
    std::vector<std::pair<std::string, std::string>> merges;  // rank order
    std::vector<AddedToken> added;
    bool nfc = false;
    PreTokenizerSpec pre;
    bool ignore_merges = false;
    bool byte_fallback = false;
    bool fuse_unk = false;
    std::optional<std::string> unk_token;
};

// GPT-2's bytes_to_unicode: every byte has a printable stand-in character.
char32_t byte_to_unicode(uint8_t b);
int unicode_to_byte(char32_t c);  // -1 when c stands for no byte
std::string byte_level_encode(std::string_view bytes);
std::string byte_level_decode(std::string_view text);  // characters that stand for no byte stay

// The pre-tokenizer pieces of already-normalized, valid UTF-8 text (before byte mapping).
std::vector<std::string> pretokenize(const PreTokenizerSpec& pre, std::string_view text);

class BpeModel {
public:
    // Throws Error naming spec.origin when a merge refers to a token missing from the vocabulary.
    explicit BpeModel(BpeSpec spec);

    // Ids of `text` (valid UTF-8 is checked; an Error gives the byte offset of bad input).
    std::vector<int32_t> encode(std::string_view text) const;
    // Text of an id (added token content, or the byte-level token decoded to bytes, or a name
    // from set_extra_names).
    std::optional<std::string> id_to_text(int32_t id) const;
    // Names of ids that take no part in encoding text (tokens listed only in
    // tokenizer_config.json, say), so that id_to_text can show them.
    void set_extra_names(std::unordered_map<int32_t, std::string> names) { extra_names_ = std::move(names); }

    size_t vocab_size() const { return vocab_.size(); }
    size_t num_merges() const { return num_merges_; }
    const std::vector<AddedToken>& added_tokens() const { return added_; }
    const std::unordered_map<std::string, int32_t>& vocab() const { return vocab_; }
    bool nfc() const { return nfc_; }
    const PreTokenizerSpec& pre_tokenizer() const { return pre_; }

private:
    struct Merge {
        uint32_t rank;
        int32_t new_id;
    };
    // Added tokens matched leftmost-longest over bytes, as tokenizers' Aho-Corasick does.
    struct Trie {
        struct Node {
            std::vector<std::pair<uint8_t, int32_t>> next;  // sorted by byte
            int32_t token = -1;                             // index into added_
        };
        std::vector<Node> nodes{Node{}};
        bool first_byte[256] = {};
        void insert(std::string_view key, int32_t token);
        // Longest token starting at s[i]: (token index, end) or (-1, i).
        std::pair<int32_t, size_t> longest_at(std::string_view s, size_t i) const;
    };
    struct Piece {
        std::string text;
        int32_t id;  // added token id, or -1 for text still to encode
    };

    void split_added(std::vector<Piece>& out, std::string_view text, const Trie& trie) const;
    void encode_word(std::string_view bytes, std::vector<int32_t>& out) const;
    void merge_word(std::string_view bytes, std::vector<int32_t>& out) const;

    std::unordered_map<std::string, int32_t> vocab_;
    std::unordered_map<int32_t, std::string> vocab_r_;
    std::unordered_map<uint64_t, Merge> merges_;
    size_t num_merges_ = 0;
    int32_t byte_id_[256];
    std::vector<AddedToken> added_;
    std::unordered_map<int32_t, size_t> added_by_id_;
    Trie raw_trie_, normalized_trie_;
    bool nfc_ = false;
    PreTokenizerSpec pre_;
    bool ignore_merges_ = false, byte_fallback_ = false, fuse_unk_ = false;
    int32_t unk_id_ = -1;
    std::unordered_map<int32_t, std::string> extra_names_;

    // Word cache: pieces repeat a lot in real text; cleared when full, so memory stays bounded.
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

}  // namespace carbon
