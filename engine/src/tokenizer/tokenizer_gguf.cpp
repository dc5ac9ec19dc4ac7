// Tokenizer::from_gguf: the tokenizer llama.cpp's converter writes for Carbon's HybridDNATokenizer
// (conversion/base.py _set_vocab_hybriddna): tokenizer.ggml.model "hybriddna", every id's text in
// tokenizer.ggml.tokens (byte-level BPE text, added tokens as they are, each 6-mer with a U+E000
// suffix, "[PADn]" for unused ids), their types, and the BPE merges. The text model is Qwen2's
// byte-level BPE, read the way the checkpoint's tokenizer.json would be; the checks are the ones
// every tokenizer source goes through (Tokenizer::build).
#include "carbon/loader/gguf.h"
#include "tokenizer_sources.h"

namespace carbon {

namespace {

// llama.cpp's token types (gguf-py TokenType).
enum : int64_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

const GgufValue& array_of(const GgufFile& g, const std::string& key, GgufType element, bool required) {
    static const GgufValue empty{};
    const GgufValue* v = g.find(key);
    if (!v) {
        if (required) throw Error(g.path().string() + ": metadata key '" + key + "' is missing (a Carbon GGUF file's tokenizer has it)");
        return empty;
    }
    if (v->type != GgufType::Array || v->element != element)
        throw Error(g.path().string() + ": metadata key '" + key + "' is a " + gguf_type_name(v->type) +
                    (v->type == GgufType::Array ? std::string(" of ") + gguf_type_name(v->element) : std::string()) + ", not an array of " +
                    gguf_type_name(element));
    return *v;
}

}  // namespace

Tokenizer Tokenizer::from_gguf(const GgufFile& g, int vocab_size) {
    using namespace detail;
    const std::string file = g.path().string();
    auto text_key = [&](const std::string& key) -> std::string {
        const GgufValue* v = g.find(key);
        if (!v) return "";
        try {
            return v->as_string(key);
        } catch (const Error& e) {
            throw Error(file + ": " + e.what());
        }
    };
    const std::string model = text_key("tokenizer.ggml.model");
    if (model != "hybriddna")
        throw Error(file + ": tokenizer.ggml.model is " + (model.empty() ? std::string("missing") : "\"" + model + "\"") +
                    "; a Carbon GGUF file carries the HybridDNA tokenizer (\"hybriddna\", llama.cpp's converter since b9270)");
    const std::string pre = text_key("tokenizer.ggml.pre");
    if (pre != "qwen2")
        throw Error(file + ": tokenizer.ggml.pre is " + (pre.empty() ? std::string("missing") : "\"" + pre + "\"") +
                    "; Carbon's text vocabulary is Qwen3's byte-level BPE (\"qwen2\" to llama.cpp)");
    const GgufValue& tokens = array_of(g, "tokenizer.ggml.tokens", GgufType::String, true);
    const GgufValue& types = array_of(g, "tokenizer.ggml.token_type", GgufType::I32, false);
    const GgufValue& merges = array_of(g, "tokenizer.ggml.merges", GgufType::String, true);
    if (!types.items.empty() && types.items.size() != tokens.items.size())
        throw Error(file + ": tokenizer.ggml.token_type has " + std::to_string(types.items.size()) + " entries but tokenizer.ggml.tokens " +
                    std::to_string(tokens.items.size()));

    TokenizerSources s;
    s.where = file;
    s.vocab_size_from = "the model's vocabulary size";
    s.spec.origin = file + " (tokenizer.ggml.tokens and tokenizer.ggml.merges)";
    Listing dna{"tokenizer.ggml.tokens", {}, false};  // the DNA names and marked 6-mers
    for (size_t id = 0; id < tokens.items.size(); ++id) {
        const std::string& text = tokens.items[id].s;
        const int64_t type = types.items.empty() ? kNormal : types.items[id].i;
        const int32_t tid = int32_t(id);
        if (marked_vocab_kmer_index(text) >= 0) {
            dna.tokens.emplace_back(text, tid);
            continue;
        }
        switch (type) {
            case kNormal:
                if (auto [it, fresh] = s.spec.vocab.emplace(text, tid); !fresh)
                    throw Error(file + ": tokenizer.ggml.tokens gives the text " + in_quotes(byte_level_decode(text)) + " to ids " +
                                std::to_string(it->second) + " and " + std::to_string(id));
                break;
            case kControl:
            case kUserDefined: {
                // Control tokens are the checkpoint's special added tokens (never normalized);
                // user-defined ones its other added tokens, which transformers normalizes.
                const bool special = type == kControl;
                s.spec.added.push_back(AddedToken{text, tid, special, false, false, false, !special});
                for (std::string_view name : {kDnaOpen, kDnaClose, kOov})
                    if (text == name) dna.tokens.emplace_back(text, tid);
                break;
            }
            case kUnused: break;  // the "[PADn]" ids no token uses
            default:
                throw Error(file + ": tokenizer.ggml.token_type gives id " + std::to_string(id) + " (" + in_quotes(text) + ") type " +
                            std::to_string(type) + (type == kByte ? " (a byte token)" : type == kUnknown ? " (unknown)" : "") +
                            ", which a byte-level BPE vocabulary has not");
        }
    }
    s.spec.merges.reserve(merges.items.size());
    for (size_t i = 0; i < merges.items.size(); ++i) {
        const std::string& m = merges.items[i].s;
        const size_t sp = m.find(' ');
        if (sp == std::string::npos || sp == 0 || sp + 1 == m.size() || m.find(' ', sp + 1) != std::string::npos)
            throw Error(file + ": tokenizer.ggml.merges entry " + std::to_string(i + 1) + " " + in_quotes(m) +
                        " is not two tokens separated by one space");
        s.spec.merges.emplace_back(m.substr(0, sp), m.substr(sp + 1));
    }
    // Qwen2's tokenizer.json: NFC, then its split pattern, then the byte-level mapping.
    s.spec.nfc = true;
    s.spec.pre.splits = {unicode::SplitPattern::Qwen2};
    Listing added{"tokenizer.ggml.tokens (control and user-defined)", {}};
    for (const AddedToken& a : s.spec.added) added.tokens.emplace_back(a.content, a.id);
    s.listings.push_back(std::move(added));
    s.listings.push_back(std::move(dna));
    s.info.source = file + ": tokenizer.ggml.tokens, token_type, merges";
    s.info.bpe_from = "tokenizer.ggml.tokens + tokenizer.ggml.merges (GGUF; the qwen2 pre-tokenizer with NFC, as Qwen2's "
                      "tokenizer.json has them)";
    s.no_kmers = "tokenizer.ggml.tokens marks no 6-mer with U+E000 (llama.cpp's converter marks all 4096)";
    return build(std::move(s), vocab_size);
}

}  // namespace carbon
