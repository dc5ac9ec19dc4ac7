// Tokenizer::build: the checks every tokenizer source goes through (ids inside the vocabulary,
// listings that agree, <dna>, </dna>, <oov> and the 4096 6-mers found once each), then the
// tokenizer itself.
#include "tokenizer_sources.h"

namespace carbon {
namespace detail {

int listed_kmer_index(std::string_view content) {
    if (content.size() == kKmer + kKmerSuffix.size() && content.substr(kKmer) == kKmerSuffix)
        content = content.substr(0, kKmer);
    return content.size() == size_t(kKmer) ? Tokenizer::kmer_index_of(content) : -1;
}

int marked_vocab_kmer_index(const std::string& key) {
    for (const std::string& s : {key, key.size() > 9 ? byte_level_decode(key) : std::string()})
        if (s.size() == kKmer + kKmerSuffix.size() && s.substr(kKmer) == kKmerSuffix)
            return Tokenizer::kmer_index_of(std::string_view(s).substr(0, kKmer));
    return -1;
}

Listing vocab_listing(const std::string& where, const std::unordered_map<std::string, int32_t>& vocab) {
    Listing l{where, {}, false};
    for (std::string_view name : {kDnaOpen, kDnaClose, kOov})
        if (auto it = vocab.find(std::string(name)); it != vocab.end()) l.tokens.emplace_back(name, it->second);
    for (const auto& [key, id] : vocab)
        if (int index = marked_vocab_kmer_index(key); index >= 0)
            l.tokens.emplace_back(Tokenizer::kmer_text(index) + std::string(kKmerSuffix), id);
    return l;
}

}  // namespace detail

using namespace detail;

Tokenizer Tokenizer::build(detail::TokenizerSources s, int vocab_size) {
    Tokenizer tok;
    tok.info_ = std::move(s.info);
    // Every id the files give must fit the model's embedding table.
    auto check_fits = [&](int32_t id, const std::string& where, std::string_view content) {
        if (id >= vocab_size)
            throw Error(where + ": token " + in_quotes(content) + " has id " + std::to_string(id) +
                        ", not below " + s.vocab_size_from + " " + std::to_string(vocab_size));
    };
    for (const auto& [text, id] : s.spec.vocab)
        if (id >= vocab_size)  // decode only for the message: there are 150k of them
            check_fits(id, tok.info_.bpe_from.substr(0, tok.info_.bpe_from.find(' ')), byte_level_decode(text));
    for (const Listing& l : s.listings)
        for (const auto& [content, id] : l.tokens) check_fits(id, l.where, content);
    // Files that contradict themselves change what tags and DNA mean: an added-token list that
    // gives one id to two tokens, or an added token on an id the BPE vocabulary gives to other text.
    std::vector<const std::string*> vocab_text(size_t(vocab_size), nullptr);
    for (const auto& [text, id] : s.spec.vocab)
        if (id >= 0) vocab_text[size_t(id)] = &text;
    const std::string vocab_where = tok.info_.bpe_from.substr(0, tok.info_.bpe_from.find(' '));
    for (const Listing& l : s.listings) {
        if (!l.added) continue;
        std::unordered_map<int32_t, const std::string*> seen;
        for (const auto& [content, id] : l.tokens) {
            if (auto [it, fresh] = seen.emplace(id, &content); !fresh && *it->second != content)
                throw Error(s.where + ": " + l.where + " gives id " + std::to_string(id) + " to both " +
                            in_quotes(*it->second) + " and " + in_quotes(content));
            if (id >= 0 && vocab_text[size_t(id)] && byte_level_decode(*vocab_text[size_t(id)]) != content)
                throw Error(s.where + ": " + l.where + " puts " + in_quotes(content) + " on id " + std::to_string(id) +
                            ", which the BPE vocabulary (" + vocab_where + ") already gives to " +
                            in_quotes(byte_level_decode(*vocab_text[size_t(id)])));
        }
    }

    tok.info_.nfc = s.spec.nfc;
    tok.info_.pretokenizer = s.spec.pre.describe();
    tok.info_.bpe_vocab_size = s.spec.vocab.size();
    tok.info_.num_merges = s.spec.merges.size();
    std::string bpe_where = s.spec.origin;
    tok.bpe_ = std::make_unique<BpeModel>(std::move(s.spec));
    tok.info_.num_added_tokens = tok.bpe_->added_tokens().size();
    tok.bpe_->set_extra_names(std::move(s.extra_names));

    // <dna>, </dna>, <oov>: every file that names one must give it the same id.
    std::string looked_in;
    for (const Listing& l : s.listings) looked_in += (looked_in.empty() ? "" : ", ") + l.where;
    auto find_named = [&](std::string_view name) {
        int32_t id = -1;
        std::string first_where;
        for (const Listing& l : s.listings)
            for (const auto& [content, cid] : l.tokens) {
                if (content != name) continue;
                if (id < 0) {
                    id = cid;
                    first_where = l.where;
                } else if (cid != id) {
                    throw Error("conflicting ids for " + std::string(name) + " in " + s.where + ": " +
                                std::to_string(id) + " in " + first_where + ", " + std::to_string(cid) + " in " +
                                l.where);
                }
            }
        if (id < 0)
            throw Error("no " + std::string(name) + " token in " + s.where + " (looked in " + looked_in +
                        "): this is not a Carbon DNA tokenizer");
        return id;
    };
    tok.dna_open_ = find_named(kDnaOpen);
    tok.dna_close_ = find_named(kDnaClose);
    tok.oov_ = find_named(kOov);
    if (tok.dna_open_ == tok.dna_close_ || tok.dna_open_ == tok.oov_ || tok.dna_close_ == tok.oov_)
        throw Error("<dna>, </dna> and <oov> must have different ids in " + s.where + " (" +
                    std::to_string(tok.dna_open_) + ", " + std::to_string(tok.dna_close_) + ", " +
                    std::to_string(tok.oov_) + ")");

    // The 6-mers: a complete listing in each file that lists any, all files agreeing.
    std::vector<int32_t> kmers(kNumKmers, -1);
    std::string listed_in;
    for (const Listing& l : s.listings) {
        std::vector<int32_t> mine(kNumKmers, -1);
        size_t count = 0;
        for (const auto& [content, id] : l.tokens) {
            int index = listed_kmer_index(content);
            if (index < 0) continue;
            if (mine[size_t(index)] >= 0)
                throw Error(l.where + " in " + s.where + " lists the 6-mer " + kmer_text(index) + " twice (ids " +
                            std::to_string(mine[size_t(index)]) + " and " + std::to_string(id) + ")");
            mine[size_t(index)] = id;
            ++count;
        }
        if (count == 0) continue;
        if (count != size_t(kNumKmers)) {
            std::string missing;
            int shown = 0;
            for (int i = 0; i < kNumKmers && shown < 3; ++i)
                if (mine[size_t(i)] < 0) missing += (shown++ ? ", " : "") + kmer_text(i);
            throw Error(l.where + " in " + s.where + " lists " + std::to_string(count) +
                        " of the 4096 DNA 6-mers (missing " + missing + (kNumKmers - int(count) > 3 ? ", ..." : "") +
                        "): a 6-mer listing must be complete");
        }
        for (int i = 0; i < kNumKmers; ++i) {
            if (kmers[size_t(i)] >= 0 && kmers[size_t(i)] != mine[size_t(i)])
                throw Error("conflicting ids for the 6-mer " + kmer_text(i) + " in " + s.where + ": " +
                            std::to_string(kmers[size_t(i)]) + " in " + listed_in + ", " +
                            std::to_string(mine[size_t(i)]) + " in " + l.where);
            kmers[size_t(i)] = mine[size_t(i)];
        }
        listed_in += (listed_in.empty() ? "" : " and ") + l.where;
    }
    if (!listed_in.empty()) {
        tok.info_.kmer_ids_from = "listed in " + listed_in;
    } else if (tok.info_.tokenizer_class == "HybridDNATokenizer") {
        int64_t last = int64_t(tok.oov_) + kNumKmers;
        if (last >= vocab_size)
            throw Error("vocab_size " + std::to_string(vocab_size) +
                        " is too small for the HybridDNATokenizer layout of " + s.where + ": <oov> is " +
                        std::to_string(tok.oov_) + ", so the 6-mers take ids " + std::to_string(tok.oov_ + 1) + ".." +
                        std::to_string(last) + " and vocab_size must be at least " + std::to_string(last + 1));
        for (int i = 0; i < kNumKmers; ++i) kmers[size_t(i)] = tok.oov_ + 1 + i;
        // The rule is only safe when nothing else claims those ids (a token there that is the
        // very 6-mer the rule puts there is fine).
        auto is_layout_kmer = [&](int32_t id, std::string_view content) {
            return listed_kmer_index(content) == id - tok.oov_ - 1;
        };
        for (const Listing& l : s.listings)
            for (const auto& [content, id] : l.tokens)
                if (id > tok.oov_ && id <= last && !is_layout_kmer(id, content))
                    throw Error(l.where + " in " + s.where + " gives " + in_quotes(content) + " id " +
                                std::to_string(id) +
                                ", inside the 6-mer ids the HybridDNATokenizer layout puts after <oov>; the "
                                "layout rule cannot apply");
        for (const auto& [text, id] : tok.bpe_->vocab())
            if (id > tok.oov_ && id <= last && !is_layout_kmer(id, text) &&
                !is_layout_kmer(id, byte_level_decode(text)))
                throw Error(bpe_where + ": BPE token " + in_quotes(byte_level_decode(text)) + " has id " +
                            std::to_string(id) +
                            ", inside the 6-mer ids the HybridDNATokenizer layout puts after <oov>; the layout "
                            "rule cannot apply");
        tok.info_.kmer_ids_from =
            "HybridDNATokenizer layout (tokenizer_config.json names the class; no file "
            "lists the 6-mers): id = <oov> + 1 + index, A=0 T=1 C=2 G=3";
    } else {
        throw Error("no DNA 6-mer tokens in " + s.where + " (looked in " + looked_in + "): " + s.no_kmers);
    }

    tok.kmer_index_of_id_.assign(size_t(vocab_size), -1);
    for (int i = 0; i < kNumKmers; ++i) {
        int32_t id = kmers[size_t(i)];
        if (id == tok.dna_open_ || id == tok.dna_close_ || id == tok.oov_)
            throw Error("the 6-mer " + kmer_text(i) + " has id " + std::to_string(id) +
                        ", which is also <dna>, </dna> or <oov>, in " + s.where);
        if (tok.kmer_index_of_id_[size_t(id)] >= 0)
            throw Error("the 6-mers " + kmer_text(tok.kmer_index_of_id_[size_t(id)]) + " and " + kmer_text(i) +
                        " share id " + std::to_string(id) + " in " + s.where);
        tok.kmer_index_of_id_[size_t(id)] = int16_t(i);
    }
    tok.kmer_ids_ = std::move(kmers);
    return tok;
}


}  // namespace carbon
