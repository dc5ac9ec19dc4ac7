// The Carbon hybrid tokenizer (carbon/tokenizer/tokenizer.h): the checkpoint's files give a byte-level BPE
// for text and the DNA ids (listed, or the HybridDNATokenizer layout when the config names it).
#include "carbon/tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_set>

#include "bpe.h"
#include "tokenizer_sources.h"
#include "carbon/support/input_file.h"

namespace carbon {
namespace {

using namespace detail;

namespace fs = std::filesystem;
using json = nlohmann::json;


// Tokenizer files: Qwen3's tokenizer.json is about 11 MB; 512 MB leaves room for any genuine one.
std::string read_file(const fs::path& path) { return read_regular_file(path, "a tokenizer file", 512u << 20); }

json read_json(const fs::path& path) {
    std::string text = read_file(path);
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw Error(path.string() + ": malformed JSON: " + e.what());
    }
}

// A JSON member that may be absent or null.
const json* member(const json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    return (it == obj.end() || it->is_null()) ? nullptr : &*it;
}
const char* json_kind(const json& v) {
    return v.is_string() ? "a string" : v.is_boolean() ? "true or false" : v.is_number() ? "a number" : v.is_array() ? "an array"
                                                                                                           : v.is_object() ? "an object" : "null";
}
// A member that must be a string when present (absent or null: `fallback`); Error naming the key.
std::string text_member(const json& obj, const char* key, const char* fallback, const std::string& where) {
    const json* v = member(obj, key);
    if (!v) return fallback;
    if (!v->is_string()) throw Error(where + ": '" + key + "' must be a string, not " + json_kind(*v));
    return v->get<std::string>();
}
// A member that must be an array when present (absent or null: empty).
json array_member(const json& obj, const char* key, const std::string& where) {
    const json* v = member(obj, key);
    if (!v) return json::array();
    if (!v->is_array()) throw Error(where + ": '" + key + "' must be an array, not " + json_kind(*v));
    return *v;
}
void require_object(const json& v, const std::string& where) {
    if (!v.is_object()) throw Error(where + " must be an object, not " + json_kind(v));
}

bool flag(const json& obj, const char* key, bool fallback, const std::string& where) {
    const json* v = member(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) throw Error(where + ": " + key + " must be true or false");
    return v->get<bool>();
}
int32_t token_id(const json& v, const std::string& where) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
        throw Error(where + ": token id " + v.dump() + " is not a non-negative integer");
    return int32_t(v.get<int64_t>());
}

AddedToken added_token_from(const json& t, int32_t id, const std::string& where) {
    if (!t.is_object() || !member(t, "content") || !t["content"].is_string())
        throw Error(where + ": an added token has no string 'content'");
    AddedToken a;
    a.id = id;
    a.content = t["content"].get<std::string>();
    std::string w = where + " (token " + in_quotes(a.content) + ")";
    a.special = flag(t, "special", false, w);
    a.lstrip = flag(t, "lstrip", false, w);
    a.rstrip = flag(t, "rstrip", false, w);
    a.single_word = flag(t, "single_word", false, w);
    a.normalized = flag(t, "normalized", !a.special, w);  // tokenizers' default for AddedToken
    return a;
}

bool normalizer_is_nfc(const json* n, const std::string& file) {
    if (!n) return false;
    require_object(*n, file + ": normalizer");
    std::string type = text_member(*n, "type", "", file + " normalizer");
    if (type == "NFC") return true;
    if (type == "Sequence") {
        bool nfc = false;
        for (const json& step : array_member(*n, "normalizers", file + " normalizer")) nfc = normalizer_is_nfc(&step, file) || nfc;
        return nfc;
    }
    throw Error(file + ": normalizer " + in_quotes(type) +
                " is not supported (this engine implements no normalizer or NFC, as Qwen uses)");
}

PreTokenizerSpec parse_pre_tokenizer(const json* p, const std::string& file) {
    if (!p) throw Error(file + ": no pre_tokenizer: not a byte-level BPE tokenizer (expected ByteLevel)");
    std::vector<json> steps;
    require_object(*p, file + ": pre_tokenizer");
    if (text_member(*p, "type", "", file + " pre_tokenizer") == "Sequence")
        for (const json& s : array_member(*p, "pretokenizers", file + " pre_tokenizer")) steps.push_back(s);
    else
        steps.push_back(*p);
    PreTokenizerSpec pre;
    bool byte_level = false;
    for (const json& s : steps) {
        require_object(s, file + ": a pre_tokenizer step");
        std::string type = text_member(s, "type", "", file + " pre_tokenizer step");
        if (byte_level)
            throw Error(file + ": pre_tokenizer step " + in_quotes(type) +
                        " after ByteLevel is not supported (ByteLevel must come last)");
        if (type == "Split") {
            const json* pattern = member(s, "pattern");
            if (!pattern || !member(*pattern, "Regex") || !(*pattern)["Regex"].is_string())
                throw Error(file + ": pre_tokenizer Split has no Regex pattern (a String pattern is not supported)");
            std::string regex = (*pattern)["Regex"].get<std::string>();
            if (regex == unicode::kQwen2Pattern)
                pre.splits.push_back(unicode::SplitPattern::Qwen2);
            else if (regex == unicode::kGpt2Pattern)
                pre.splits.push_back(unicode::SplitPattern::Gpt2);
            else
                throw Error(file + ": pre_tokenizer Split pattern " + in_quotes(regex) +
                            " is not one this engine implements (it matches the Qwen2 and GPT-2 patterns "
                            "exactly, character for character)");
            const std::string behavior = text_member(s, "behavior", "", file + " pre_tokenizer Split");
            if (behavior != "Isolated" || flag(s, "invert", false, file))
                throw Error(file + ": pre_tokenizer Split with behavior " + in_quotes(behavior) +
                            (flag(s, "invert", false, file) ? " and invert" : "") +
                            " is not supported (only Isolated, not inverted)");
        } else if (type == "ByteLevel") {
            byte_level = true;
            pre.byte_level_regex = flag(s, "use_regex", true, file);
            pre.add_prefix_space = flag(s, "add_prefix_space", true, file);
        } else {
            throw Error(file + ": pre_tokenizer " + in_quotes(type) +
                        " is not supported (this engine implements Split with the Qwen2 or GPT-2 pattern, "
                        "then ByteLevel)");
        }
    }
    if (!byte_level) throw Error(file + ": pre_tokenizer has no ByteLevel step: not a byte-level BPE tokenizer");
    return pre;
}

BpeSpec spec_from_tokenizer_json(const json& j, const std::string& file) {
    const json* model = member(j, "model");
    if (!model || !model->is_object()) throw Error(file + ": no 'model' object");
    std::string type = text_member(*model, "type", "BPE", file + " model");
    if (type != "BPE") throw Error(file + ": model type " + in_quotes(type) + " is not supported (only BPE)");
    if (const json* d = member(*model, "dropout"); d && !(d->is_number() && d->get<double>() == 0.0))
        throw Error(file + ": BPE dropout is not supported (encoding must be deterministic)");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (const json* v = member(*model, key); v && !(v->is_string() && v->get<std::string>().empty()))
            throw Error(file + ": BPE " + key + " " + v->dump() + " is not supported");

    BpeSpec spec;
    spec.origin = file;
    const json* vocab = member(*model, "vocab");
    if (!vocab || !vocab->is_object()) throw Error(file + ": model has no 'vocab' object");
    spec.vocab.reserve(vocab->size());
    for (auto it = vocab->begin(); it != vocab->end(); ++it)
        spec.vocab.emplace(it.key(), token_id(it.value(), file + " model.vocab " + in_quotes(it.key())));

    const json* merges = member(*model, "merges");
    if (!merges || !merges->is_array()) throw Error(file + ": model has no 'merges' array");
    spec.merges.reserve(merges->size());
    for (size_t i = 0; i < merges->size(); ++i) {
        const json& m = (*merges)[i];
        if (m.is_string()) {
            std::string s = m.get<std::string>();
            size_t sp = s.find(' ');
            if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
                throw Error(file + ": merge " + std::to_string(i + 1) + " " + in_quotes(s) +
                            " is not two tokens separated by one space");
            spec.merges.emplace_back(s.substr(0, sp), s.substr(sp + 1));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            spec.merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            throw Error(file + ": merge " + std::to_string(i + 1) + " " + m.dump() +
                        " is neither \"a b\" nor [\"a\", \"b\"]");
        }
    }
    spec.ignore_merges = flag(*model, "ignore_merges", false, file);
    spec.byte_fallback = flag(*model, "byte_fallback", false, file);
    spec.fuse_unk = flag(*model, "fuse_unk", false, file);
    if (member(*model, "unk_token")) spec.unk_token = text_member(*model, "unk_token", "", file + " model");

    spec.nfc = normalizer_is_nfc(member(j, "normalizer"), file);
    spec.pre = parse_pre_tokenizer(member(j, "pre_tokenizer"), file);
    if (const json* added = member(j, "added_tokens")) {
        for (const json& t : *added) {
            if (!member(t, "id")) throw Error(file + ": an added token has no id");
            spec.added.push_back(
                added_token_from(t, token_id(t["id"], file + " added_tokens"), file + " added_tokens"));
        }
    }
    return spec;
}

// merges.txt as transformers' slow tokenizers read it: an optional "#version" first line, blank
// lines skipped, otherwise two tokens separated by one space.
std::vector<std::pair<std::string, std::string>> read_merges_txt(const fs::path& path) {
    std::istringstream in(read_file(path));
    std::vector<std::pair<std::string, std::string>> merges;
    std::string line;
    for (size_t line_no = 1; std::getline(in, line); ++line_no) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
        size_t sp = line.find(' ');
        if (sp == std::string::npos || sp == 0 || sp + 1 == line.size() || line.find(' ', sp + 1) != std::string::npos)
            throw Error(path.string() + " line " + std::to_string(line_no) + ": " + in_quotes(line) +
                        " is not two tokens separated by one space");
        merges.emplace_back(line.substr(0, sp), line.substr(sp + 1));
    }
    return merges;
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::load(const fs::path& dir, int vocab_size) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error("tokenizer folder " + dir.string() + " does not exist");
    if (!fs::is_directory(dir, ec)) throw Error("tokenizer folder " + dir.string() + " is not a folder");
    if (vocab_size <= 0) throw Error("vocab_size " + std::to_string(vocab_size) + " must be positive");

    // A name that is there but not a regular file (a FIFO, a folder) is read, and so refused
    // with the reason: never silently skipped in favour of another tokenizer file.
    auto has = [&](const char* name) { return fs::exists(dir / name, ec); };
    std::vector<std::string> read;
    std::vector<Listing> listings;
    std::unordered_map<int32_t, std::string> extra_names;
    Tokenizer tok;

    json config;
    if (has("tokenizer_config.json")) {
        config = read_json(dir / "tokenizer_config.json");
        read.push_back("tokenizer_config.json");
        if (!config.is_object()) throw Error((dir / "tokenizer_config.json").string() + ": not a JSON object");
        if (const json* cls = member(config, "tokenizer_class"); cls && !cls->is_null()) {
            if (!cls->is_string())
                throw Error((dir / "tokenizer_config.json").string() + ": tokenizer_class must be a string such as "
                            "\"HybridDNATokenizer\", got " + cls->dump());
            tok.info_.tokenizer_class = cls->get<std::string>();
        }
    }
    std::vector<AddedToken> config_added;  // tokenizer_config.json + added_tokens.json, for the slow path
    try {
        if (const json* dec = member(config, "added_tokens_decoder")) {
            const std::string where = "tokenizer_config.json added_tokens_decoder";
            require_object(*dec, (dir / "tokenizer_config.json").string() + ": added_tokens_decoder");
            Listing l{where, {}};
            for (auto it = dec->begin(); it != dec->end(); ++it) {
                int64_t id = -1;
                try {
                    size_t used = 0;
                    id = std::stoll(it.key(), &used);
                    if (used != it.key().size()) id = -1;
                } catch (const std::exception&) {
                }
                if (id < 0 || id > INT32_MAX)
                    throw Error(where + ": key " + in_quotes(it.key()) + " is not a token id");
                AddedToken a = added_token_from(it.value(), int32_t(id), where);
                l.tokens.emplace_back(a.content, a.id);
                config_added.push_back(std::move(a));
            }
            listings.push_back(std::move(l));
        }
        if (has("added_tokens.json")) {
            json j = read_json(dir / "added_tokens.json");
            read.push_back("added_tokens.json");
            if (!j.is_object()) throw Error((dir / "added_tokens.json").string() + ": not a JSON object");
            Listing l{"added_tokens.json", {}};
            // Flags come from added_tokens_decoder where it has the token; else a plain token.
            std::unordered_set<std::string> in_config;
            for (const AddedToken& a : config_added) in_config.insert(a.content);
            for (auto it = j.begin(); it != j.end(); ++it) {
                int32_t id = token_id(it.value(), "added_tokens.json " + in_quotes(it.key()));
                l.tokens.emplace_back(it.key(), id);
                if (!in_config.count(it.key()))
                    config_added.push_back(AddedToken{it.key(), id, false, false, false, false, false});
            }
            listings.push_back(std::move(l));
        }
        if (has("special_tokens_map.json")) {
            read_json(dir / "special_tokens_map.json");  // checked for well-formedness only
            read.push_back("special_tokens_map.json");
        }
    } catch (const json::exception& e) {
        throw Error("tokenizer files in " + dir.string() + ": " + e.what());
    }
    for (const AddedToken& a : config_added) extra_names.emplace(a.id, a.content);

    // The text model: tokenizer.json when present (what tokenizers.Tokenizer.from_file reads),
    // otherwise vocab.json + merges.txt read the way Qwen2Tokenizer reads them.
    BpeSpec spec;
    if (has("tokenizer.json")) {
        const std::string file = (dir / "tokenizer.json").string();
        json j = read_json(dir / "tokenizer.json");
        read.push_back("tokenizer.json");
        try {
            spec = spec_from_tokenizer_json(j, file);
        } catch (const json::exception& e) {
            throw Error(file + ": " + e.what());
        }
        Listing added{"tokenizer.json added_tokens", {}};
        for (const AddedToken& a : spec.added) added.tokens.emplace_back(a.content, a.id);
        listings.push_back(std::move(added));
        listings.push_back(vocab_listing("tokenizer.json model.vocab", spec.vocab));
        tok.info_.bpe_from = "tokenizer.json";
    } else if (has("vocab.json") && has("merges.txt")) {
        const std::string file = (dir / "vocab.json").string();
        json j = read_json(dir / "vocab.json");
        read.push_back("vocab.json");
        if (!j.is_object()) throw Error(file + ": not a JSON object of token -> id");
        spec.origin = (dir / "merges.txt").string();
        for (auto it = j.begin(); it != j.end(); ++it)
            spec.vocab.emplace(it.key(), token_id(it.value(), "vocab.json " + in_quotes(it.key())));
        spec.merges = read_merges_txt(dir / "merges.txt");
        read.push_back("merges.txt");
        // 6-mers listed as added tokens are DNA-mode tokens: text such as "CCCCCC" in metadata
        // stays BPE text, as it does when tokenizer.json (which does not list them) is read.
        for (const AddedToken& a : config_added)
            if (listed_kmer_index(a.content) < 0) spec.added.push_back(a);
        spec.nfc = true;
        spec.pre.splits = {unicode::SplitPattern::Qwen2};
        listings.push_back(vocab_listing("vocab.json", spec.vocab));
        tok.info_.bpe_from =
            "vocab.json + merges.txt (no tokenizer.json: Qwen2 pre-tokenizer pattern and NFC assumed, as "
            "Qwen2Tokenizer does)";
    } else if (has("vocab.json")) {
        throw Error("tokenizer folder " + dir.string() + " has vocab.json but no merges.txt");
    } else {
        throw Error("no tokenizer in " + dir.string() +
                    ": it needs tokenizer.json, or vocab.json and merges.txt (found: " +
                    (read.empty() ? std::string("none of them") : [&] {
                        std::string s;
                        for (const auto& r : read) s += (s.empty() ? "" : ", ") + r;
                        return s;
                    }()) +
                    ")");
    }

    for (const auto& r : read) tok.info_.source += (tok.info_.source.empty() ? dir.string() + ": " : ", ") + r;
    detail::TokenizerSources src;
    src.where = dir.string();
    src.vocab_size_from = "config.json vocab_size";
    src.spec = std::move(spec);
    src.listings = std::move(listings);
    src.extra_names = std::move(extra_names);
    src.info = std::move(tok.info_);
    src.no_kmers = "no file lists the 4096 6-mers and tokenizer_config.json " +
                   (src.info.tokenizer_class.empty() ? std::string("names no tokenizer_class")
                                                     : "names tokenizer_class " + in_quotes(src.info.tokenizer_class)) +
                   ", not HybridDNATokenizer, so the documented layout does not apply";
    return build(std::move(src), vocab_size);
}

int Tokenizer::kmer_index(int32_t id) const {
    if (id < 0 || size_t(id) >= kmer_index_of_id_.size()) return -1;
    return kmer_index_of_id_[size_t(id)];
}

std::string Tokenizer::kmer_text(int index) {
    if (index < 0 || index >= kNumKmers) throw Error("6-mer index " + std::to_string(index) + " is not in 0..4095");
    std::string s(kKmer, 'A');
    for (int k = kKmer - 1; k >= 0; --k, index /= 4) s[size_t(k)] = kKmerBases[size_t(index % 4)];
    return s;
}

int Tokenizer::kmer_index_of(std::string_view six) {
    if (six.size() != size_t(kKmer)) return -1;
    int index = 0;
    for (char c : six) {
        int code = base_code(c);
        if (code < 0) return -1;
        index = index * 4 + code;
    }
    return index;
}

std::vector<int32_t> Tokenizer::encode_text(std::string_view text) const {
    if (!bpe_) throw Error("encode_text: no tokenizer loaded");
    return bpe_->encode(text);
}

DnaEncoding Tokenizer::encode_dna(std::string_view bases, bool closed) const {
    if (!bpe_) throw Error("encode_dna: no tokenizer loaded");
    // One byte is one base: DNA is ASCII, and any other byte is simply a non-ACGT base (<oov>).
    DnaEncoding enc;
    size_t n = bases.size();
    enc.n_bases = n;
    enc.n_padding = (kKmer - n % kKmer) % kKmer;
    enc.ids.reserve((n + kKmer - 1) / kKmer + 2);
    enc.ids.push_back(dna_open_);
    enc.first_dna_token = enc.ids.size();

    auto upper = [](char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; };
    // Notices: runs of lowercase letters, and runs of one repeated non-ACGT character (compared
    // after upper-casing, so "nN" is one run). Both kinds are appended as they start, so the list
    // is ordered by position.
    size_t lower_run = SIZE_MAX, other_run = SIZE_MAX;
    for (size_t i = 0; i < n; ++i) {
        char c = bases[i];
        bool lower = c >= 'a' && c <= 'z';
        char u = upper(c);
        if (lower && lower_run != SIZE_MAX && enc.notices[lower_run].position + enc.notices[lower_run].count == i) {
            ++enc.notices[lower_run].count;
        } else if (lower) {
            lower_run = enc.notices.size();
            enc.notices.push_back({DnaNotice::Lowercase, i, c, 1});
        }
        if (base_code(u) >= 0) continue;
        if (other_run != SIZE_MAX) {
            DnaNotice& r = enc.notices[other_run];
            if (r.position + r.count == i && upper(r.character) == u) {
                ++r.count;
                continue;
            }
        }
        other_run = enc.notices.size();
        enc.notices.push_back({DnaNotice::NonAcgt, i, c, 1});
    }

    for (size_t start = 0; start < n; start += kKmer) {
        int index = 0;
        bool known = true;
        for (size_t k = start; k < start + kKmer; ++k) {
            int code = k < n ? base_code(upper(bases[k])) : 0;  // right-padded with 'A'
            if (code < 0) known = false;
            index = index * 4 + std::max(code, 0);
        }
        enc.ids.push_back(known ? kmer_ids_[size_t(index)] : oov_);
    }
    if (closed) enc.ids.push_back(dna_close_);
    return enc;
}

DnaEncoding Tokenizer::encode_prompt(std::string_view metadata, std::string_view bases, bool closed) const {
    DnaEncoding dna = encode_dna(bases, closed);
    if (metadata.empty()) return dna;
    std::vector<int32_t> ids = encode_text(metadata);
    dna.first_dna_token += ids.size();
    ids.insert(ids.end(), dna.ids.begin(), dna.ids.end());
    dna.ids = std::move(ids);
    return dna;
}

std::string Tokenizer::decode_dna(const std::vector<int32_t>& ids) const {
    std::string out;
    out.reserve(ids.size() * kKmer);
    for (size_t i = 0; i < ids.size(); ++i) {
        int32_t id = ids[i];
        if (id == dna_open_ || id == dna_close_) continue;
        if (id == oov_) {
            out.append(kKmer, 'N');
            continue;
        }
        int index = kmer_index(id);
        if (index < 0)
            throw Error("decode_dna: token " + std::to_string(id) + " at position " + std::to_string(i) +
                        " is not a DNA token (6-mer, <oov>, <dna> or </dna>)");
        out += kmer_text(index);
    }
    return out;
}

std::string Tokenizer::id_to_text(int32_t id) const {
    if (!bpe_) throw Error("id_to_text: no tokenizer loaded");
    if (int index = kmer_index(id); index >= 0) return kmer_text(index);
    if (id == dna_open_) return std::string(kDnaOpen);
    if (id == dna_close_) return std::string(kDnaClose);
    if (id == oov_) return std::string(kOov);
    if (auto text = bpe_->id_to_text(id)) return *text;
    throw Error("token id " + std::to_string(id) + " is not in the tokenizer's vocabulary");
}

}  // namespace carbon
