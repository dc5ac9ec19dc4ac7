// Byte-level BPE encoding (see bpe.h), following the Python `tokenizers` library step by step:
// AddedVocabulary::extract_and_normalize, the pre-tokenizers, and BPE::merge_word / merge_all.
#include "bpe.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <queue>

#include "carbon/support/common.h"

namespace carbon {
namespace {

struct ByteTables {
    std::array<char32_t, 256> to_unicode{};
    std::array<int16_t, 512> to_byte{};  // every stand-in is below U+0200
    ByteTables() {
        to_byte.fill(-1);
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            to_unicode[size_t(b)] = printable ? char32_t(b) : char32_t(256 + extra++);
            to_byte[to_unicode[size_t(b)]] = int16_t(b);
        }
    }
};
const ByteTables& byte_tables() {
    static const ByteTables tables;
    return tables;
}

uint64_t pair_key(int32_t a, int32_t b) {
    return uint64_t(uint32_t(a)) << 32 | uint32_t(b);
}

// Start of the UTF-8 sequence that ends at s[end - 1] (s is valid UTF-8, end > 0).
size_t previous_start(std::string_view s, size_t end) {
    size_t i = end - 1;
    while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
    return i;
}
size_t sequence_length(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}
char32_t code_point_at(std::string_view s, size_t i) {
    return unicode::decode_utf8(s.substr(i, sequence_length(static_cast<unsigned char>(s[i]))), "text")[0];
}

// Where the whitespace at the end of s[0, end) starts (regex \s*$), and where that starting at
// s[begin] ends (^\s*); both walk only over the whitespace itself.
size_t trailing_space_start(std::string_view s, size_t end) {
    while (end > 0) {
        size_t start = previous_start(s, end);
        if (!unicode::is_whitespace(code_point_at(s, start))) break;
        end = start;
    }
    return end;
}
size_t leading_space_end(std::string_view s, size_t begin) {
    while (begin < s.size() && unicode::is_whitespace(code_point_at(s, begin)))
        begin += sequence_length(static_cast<unsigned char>(s[begin]));
    return begin;
}

}  // namespace

char32_t byte_to_unicode(uint8_t b) {
    return byte_tables().to_unicode[b];
}
int unicode_to_byte(char32_t c) {
    return c < 512 ? byte_tables().to_byte[c] : -1;
}

std::string byte_level_encode(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes) unicode::append_utf8(out, byte_to_unicode(static_cast<uint8_t>(c)));
    return out;
}

std::string byte_level_decode(std::string_view text) {
    std::string out;
    std::u32string cps = unicode::decode_utf8(text, "token text");
    for (char32_t c : cps) {
        int b = unicode_to_byte(c);
        if (b >= 0)
            out.push_back(char(b));
        else
            unicode::append_utf8(out, c);
    }
    return out;
}

std::string PreTokenizerSpec::describe() const {
    std::string s;
    for (unicode::SplitPattern p : splits) {
        if (!s.empty()) s += "+";
        s += p == unicode::SplitPattern::Qwen2 ? "qwen2" : "gpt2";
    }
    if (byte_level_regex) s += s.empty() ? "gpt2" : "+gpt2";
    if (s.empty()) s = "none";
    if (add_prefix_space) s += "+prefix-space";
    return s;
}

std::vector<std::string> pretokenize(const PreTokenizerSpec& pre, std::string_view text) {
    std::vector<std::string> pieces;
    if (text.empty()) return pieces;
    pieces.emplace_back(text);
    auto split_all = [&](unicode::SplitPattern pattern, std::vector<std::string>& in) {
        std::vector<std::string> out;
        for (const std::string& p : in) {
            std::u32string cps = unicode::decode_utf8(p, "text");
            for (auto [b, e] : unicode::split(pattern, cps))
                out.push_back(unicode::encode_utf8(std::u32string_view(cps).substr(b, e - b)));
        }
        in = std::move(out);
    };
    for (unicode::SplitPattern p : pre.splits) split_all(p, pieces);
    // ByteLevel works piece by piece: the prefix space goes in front of every piece.
    if (pre.add_prefix_space)
        for (std::string& p : pieces)
            if (p[0] != ' ') p.insert(p.begin(), ' ');
    if (pre.byte_level_regex) split_all(unicode::SplitPattern::Gpt2, pieces);
    return pieces;
}

void BpeModel::Trie::insert(std::string_view key, int32_t token) {
    int32_t node = 0;
    first_byte[static_cast<uint8_t>(key[0])] = true;
    for (char ch : key) {
        uint8_t b = static_cast<uint8_t>(ch);
        auto& next = nodes[size_t(node)].next;
        auto it = std::lower_bound(next.begin(), next.end(), b,
                                   [](const std::pair<uint8_t, int32_t>& e, uint8_t v) { return e.first < v; });
        if (it != next.end() && it->first == b) {
            node = it->second;
        } else {
            int32_t child = int32_t(nodes.size());
            next.insert(it, {b, child});
            nodes.emplace_back();
            node = child;
        }
    }
    nodes[size_t(node)].token = token;
}

std::pair<int32_t, size_t> BpeModel::Trie::longest_at(std::string_view s, size_t i) const {
    std::pair<int32_t, size_t> best{-1, i};
    if (!first_byte[static_cast<uint8_t>(s[i])]) return best;
    int32_t node = 0;
    for (size_t k = i; k < s.size(); ++k) {
        uint8_t b = static_cast<uint8_t>(s[k]);
        const auto& next = nodes[size_t(node)].next;
        auto it = std::lower_bound(next.begin(), next.end(), b,
                                   [](const std::pair<uint8_t, int32_t>& e, uint8_t v) { return e.first < v; });
        if (it == next.end() || it->first != b) break;
        node = it->second;
        if (nodes[size_t(node)].token >= 0) best = {nodes[size_t(node)].token, k + 1};
    }
    return best;
}

BpeModel::BpeModel(BpeSpec spec)
    : vocab_(std::move(spec.vocab)),
      nfc_(spec.nfc),
      pre_(std::move(spec.pre)),
      ignore_merges_(spec.ignore_merges),
      byte_fallback_(spec.byte_fallback),
      fuse_unk_(spec.fuse_unk) {
    for (const auto& [text, id] : vocab_) vocab_r_.emplace(id, text);
    for (int b = 0; b < 256; ++b) {
        std::string ch;
        unicode::append_utf8(ch, byte_to_unicode(uint8_t(b)));
        auto it = vocab_.find(ch);
        byte_id_[b] = it == vocab_.end() ? -1 : it->second;
    }
    merges_.reserve(spec.merges.size());
    for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
        const std::string& a = spec.merges[rank].first;  // not a structured binding: lambdas below use them
        const std::string& b = spec.merges[rank].second;
        auto where = [&] {
            return spec.origin + ": merge " + std::to_string(rank + 1) + " (" + in_quotes(a) + " " + in_quotes(b) + ")";
        };
        auto ia = vocab_.find(a), ib = vocab_.find(b), ic = vocab_.find(a + b);
        if (ia == vocab_.end()) throw Error(where() + " uses " + in_quotes(a) + ", which is not in the vocabulary");
        if (ib == vocab_.end()) throw Error(where() + " uses " + in_quotes(b) + ", which is not in the vocabulary");
        if (ic == vocab_.end())
            throw Error(where() + " makes " + in_quotes(a + b) + ", which is not in the vocabulary");
        // Like tokenizers' HashMap build, a repeated pair keeps its last rank.
        merges_.insert_or_assign(pair_key(ia->second, ib->second), Merge{uint32_t(rank), ic->second});
    }
    num_merges_ = spec.merges.size();
    if (spec.unk_token) {
        auto it = vocab_.find(*spec.unk_token);
        if (it == vocab_.end())
            throw Error(spec.origin + ": unk_token " + in_quotes(*spec.unk_token) + " is not in the vocabulary");
        unk_id_ = it->second;
    }

    std::unordered_map<std::string, int32_t> seen;
    for (AddedToken& t : spec.added) {
        if (t.content.empty()) continue;
        if (unicode::find_invalid_utf8(t.content) != std::string::npos)
            throw Error(spec.origin + ": added token with id " + std::to_string(t.id) + " is not valid UTF-8");
        auto [it, fresh] = seen.emplace(t.content, t.id);
        if (!fresh) {
            if (it->second != t.id)
                throw Error(spec.origin + ": added token " + in_quotes(t.content) + " is listed with ids " +
                            std::to_string(it->second) + " and " + std::to_string(t.id));
            continue;
        }
        added_by_id_[t.id] = added_.size();
        added_.push_back(t);
    }
    for (size_t i = 0; i < added_.size(); ++i) {
        const AddedToken& t = added_[i];
        if (t.normalized) {
            std::string key = nfc_ ? unicode::nfc(std::string_view(t.content)) : t.content;
            if (!key.empty()) normalized_trie_.insert(key, int32_t(i));
        } else {
            raw_trie_.insert(t.content, int32_t(i));
        }
    }
}

// tokenizers' AddedVocabulary::find_matches: leftmost-longest matches, each checked for
// single_word and widened by lstrip/rstrip; the scan resumes after the raw match either way.
void BpeModel::split_added(std::vector<Piece>& out, std::string_view text, const Trie& trie) const {
    size_t start_offset = 0;
    size_t n = text.size();
    for (size_t i = 0; i < n;) {
        auto [token, end] = trie.longest_at(text, i);
        if (token < 0) {
            ++i;
            continue;
        }
        const AddedToken& t = added_[size_t(token)];
        size_t start = i, stop = end;
        i = end;
        if (t.single_word) {
            bool start_space = start == 0 || !unicode::is_word_char(code_point_at(text, previous_start(text, start)));
            bool stop_space = stop == n || !unicode::is_word_char(code_point_at(text, stop));
            if (!start_space || !stop_space) continue;
        }
        if (t.lstrip) start = std::max(trailing_space_start(text, start), start_offset);
        if (t.rstrip) stop = leading_space_end(text, stop);
        if (start_offset < start) out.push_back({std::string(text.substr(start_offset, start - start_offset)), -1});
        out.push_back({std::string(text.substr(start, stop - start)), t.id});
        start_offset = stop;
    }
    if (start_offset < n) out.push_back({std::string(text.substr(start_offset)), -1});
}

std::vector<int32_t> BpeModel::encode(std::string_view text) const {
    if (size_t bad = unicode::find_invalid_utf8(text); bad != std::string_view::npos) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned char>(text[bad]));
        throw Error("invalid UTF-8 in the text to tokenize at byte offset " + std::to_string(bad) + " (byte " + buf +
                    ")");
    }
    std::vector<int32_t> ids;
    std::vector<Piece> raw;
    split_added(raw, text, raw_trie_);
    for (Piece& piece : raw) {
        if (piece.id >= 0) {
            ids.push_back(piece.id);
            continue;
        }
        std::string normalized = nfc_ ? unicode::nfc(std::string_view(piece.text)) : std::move(piece.text);
        std::vector<Piece> pieces;
        split_added(pieces, normalized, normalized_trie_);
        for (const Piece& p : pieces) {
            if (p.id >= 0) {
                ids.push_back(p.id);
                continue;
            }
            for (const std::string& word : pretokenize(pre_, p.text)) encode_word(word, ids);
        }
    }
    return ids;
}

void BpeModel::encode_word(std::string_view bytes, std::vector<int32_t>& out) const {
    if (bytes.empty()) return;
    if (ignore_merges_) {
        auto it = vocab_.find(byte_level_encode(bytes));
        if (it != vocab_.end()) {
            out.push_back(it->second);
            return;
        }
    }
    constexpr size_t kMaxCachedWord = 64, kMaxCacheEntries = 20000;
    bool cacheable = bytes.size() <= kMaxCachedWord;
    if (cacheable) {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        auto it = cache_.find(std::string(bytes));
        if (it != cache_.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    std::vector<int32_t> word;
    merge_word(bytes, word);
    out.insert(out.end(), word.begin(), word.end());
    if (cacheable) {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        if (cache_.size() >= kMaxCacheEntries) cache_.clear();
        cache_.emplace(std::string(bytes), std::move(word));
    }
}

// BPE::merge_word then Word::merge_all: symbols start as one per byte-level character; the
// lowest-ranked adjacent pair merges first, the leftmost among equal ranks.
void BpeModel::merge_word(std::string_view bytes, std::vector<int32_t>& out) const {
    struct Symbol {
        int32_t id;
        int prev, next;
        bool alive;
    };
    std::vector<Symbol> sym;
    sym.reserve(bytes.size());
    auto add = [&](int32_t id) {
        int idx = int(sym.size());
        sym.push_back({id, idx - 1, -1, true});
        if (idx > 0) sym[size_t(idx - 1)].next = idx;
    };
    int32_t pending_unk = -1;  // an unknown character waiting (fused or not), or -1
    for (char ch : bytes) {
        uint8_t b = static_cast<uint8_t>(ch);
        if (byte_id_[b] >= 0) {
            if (pending_unk >= 0) add(pending_unk), pending_unk = -1;
            add(byte_id_[b]);
            continue;
        }
        if (byte_fallback_) {
            std::string stand_in;
            unicode::append_utf8(stand_in, byte_to_unicode(b));
            std::vector<int32_t> fallback;
            for (char sb : stand_in) {
                char name[8];
                std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(sb));
                auto it = vocab_.find(name);
                if (it == vocab_.end()) break;
                fallback.push_back(it->second);
            }
            if (fallback.size() == stand_in.size()) {
                for (int32_t id : fallback) add(id);
                continue;
            }
        }
        if (unk_id_ >= 0) {
            if (pending_unk >= 0 && !fuse_unk_) add(pending_unk);
            pending_unk = unk_id_;
        }
        // Without an unk token tokenizers drops the character; so do we.
    }
    if (pending_unk >= 0) add(pending_unk);

    struct Candidate {
        uint32_t rank;
        int pos;
        int32_t new_id;
    };
    auto worse = [](const Candidate& a, const Candidate& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> queue(worse);
    auto push_pair = [&](int pos) {
        int next = sym[size_t(pos)].next;
        if (next < 0) return;
        auto it = merges_.find(pair_key(sym[size_t(pos)].id, sym[size_t(next)].id));
        if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.new_id});
    };
    for (int i = 0; i + 1 < int(sym.size()); ++i) push_pair(i);
    while (!queue.empty()) {
        Candidate top = queue.top();
        queue.pop();
        Symbol& left = sym[size_t(top.pos)];
        if (!left.alive || left.next < 0) continue;
        Symbol& right = sym[size_t(left.next)];
        auto it = merges_.find(pair_key(left.id, right.id));
        if (it == merges_.end() || it->second.new_id != top.new_id) continue;  // stale entry
        left.id = top.new_id;
        right.alive = false;
        left.next = right.next;
        if (right.next >= 0) sym[size_t(right.next)].prev = top.pos;
        if (left.prev >= 0) push_pair(left.prev);
        push_pair(top.pos);
    }
    for (const Symbol& s : sym)
        if (s.alive) out.push_back(s.id);
}

std::optional<std::string> BpeModel::id_to_text(int32_t id) const {
    if (auto it = added_by_id_.find(id); it != added_by_id_.end()) return added_[it->second].content;
    if (auto it = vocab_r_.find(id); it != vocab_r_.end()) return byte_level_decode(it->second);
    if (auto it = extra_names_.find(id); it != extra_names_.end()) return it->second;
    return std::nullopt;
}

}  // namespace carbon
