// write_test_tokenizer: stand-in Carbon tokenizer files for test models (a BPE trained
// deterministically on a built-in corpus, Qwen's specials, DNA tokens in the HybridDNATokenizer layout).
#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_map>

#include "carbon/test_support/test_tokenizer.h"
#include "carbon/tokenizer/tokenizer.h"
#include "tokenizer/bpe.h"

namespace carbon {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;  // sorted keys: ordered_json inserts in linear time, too slow for 150k tokens

// Qwen3's special tokens as they sit just before <dna> in the real vocabulary (151643..151668);
// the second member says whether Qwen marks it special.
constexpr std::pair<const char*, bool> kQwenSpecials[] = {
    {"<|endoftext|>", true},      {"<|im_start|>", true},
    {"<|im_end|>", true},         {"<|object_ref_start|>", true},
    {"<|object_ref_end|>", true}, {"<|box_start|>", true},
    {"<|box_end|>", true},        {"<|quad_start|>", true},
    {"<|quad_end|>", true},       {"<|vision_start|>", true},
    {"<|vision_end|>", true},     {"<|vision_pad|>", true},
    {"<|image_pad|>", true},      {"<|video_pad|>", true},
    {"<tool_call>", false},       {"</tool_call>", false},
    {"<|fim_prefix|>", true},     {"<|fim_middle|>", true},
    {"<|fim_suffix|>", true},     {"<|fim_pad|>", true},
    {"<|repo_name|>", true},      {"<|file_sep|>", true},
    {"<tool_response>", false},   {"</tool_response>", false},
    {"<think>", false},           {"</think>", false},
};
constexpr int kNumSpecials = int(std::size(kQwenSpecials));

// Sentences of the kind metadata and prompts hold; the DNA-looking words make sure the text
// vocabulary has 6-letter ACGT tokens of its own (as Qwen's has "CCCCCC"), which must never be
// taken for DNA tokens.
constexpr const char* kCorpus[] = {
    "<vertebrate_mammalian><protein_coding_region>",
    "<vertebrate_mammalian>",
    "<vertebrate_other>",
    "<mammalian_species>",
    "<mam>",
    "<fungi>",
    "<plants>",
    "<invertebrates>",
    "<protozoa>",
    "<protein_coding_region>",
    "<non_coding_region>",
    "<promoter>",
    "<enhancer>",
    "<five_prime_utr>",
    "<three_prime_utr>",
    "<intron>",
    "<exon>",
    "Hello world! Hello world!",
    "hello there, hello again",
    "The quick brown fox jumps over the lazy dog.",
    "DNA is transcribed into RNA, and RNA is translated into protein.",
    "A promoter sits upstream of the transcription start site; enhancers may act from far away.",
    "The TATA box binds the TATA-binding protein about 30 base pairs upstream of the start.",
    "Genomic language models read DNA as text and learn which sequences are likely.",
    "Mammals, fungi, plants, invertebrates, protozoa and other vertebrates were all in the training set.",
    "Each species and gene type tag is placed before the <dna> tag that starts the sequence.",
    "It's a model of the genome; we're scoring variants and they'll be ranked. Isn't that what you'd do?",
    "Coding regions, untranslated regions, introns and exons: every region type has its own tag.",
    "Restriction sites such as GAATTC (EcoRI) and GGATCC (BamHI) must stay intact.",
    "ATGCGT ACGTAC CCCCCC GGGCTA TATAAA AAAAAA TTTTTT GGGGGG CCCCCC ATCGAT",
    "In 2024, 3 of 10 samples had 1,024 reads at 37.5% GC content (p < 0.001).",
    "Sequence recovery improved by 12.5 percent; variant effect scores correlated at r = 0.62.",
    "Les \xC3\xA9l\xC3\xA8ves \xC3\xA9tudient la g\xC3\xA9n\xC3\xA9tique des levures.",
    ("\xC3\x9C"  // U+00DC, split so "b" does not join the hex escape
     "ber Genomik und Proteine."),
    "\xE5\x9F\xBA\xE5\x9B\xA0\xE7\xBB\x84 \xEC\x9C\xA0\xEC\xA0\x84\xEC\xB2\xB4 \xF0\x9F\xA7\xAC",
    "  indented line\n\tand a tab\r\nwindows line end\n\n\nparagraph",
};

struct TrainedVocab {
    std::vector<std::string> tokens;  // byte-level text by id
    std::vector<std::pair<std::string, std::string>> merges;
};

// Deterministic pseudo-words (no randomness from the platform) so the corpus always supports
// thousands of merges, whatever num_merges asks for.
std::vector<std::string> pseudo_words(int count) {
    static const char* const kOnsets[] = {"b", "c", "d", "f", "g",  "h",  "k",  "l",  "m",  "n",  "p",  "r",
                                          "s", "t", "v", "z", "br", "cr", "st", "tr", "ch", "sh", "gl", "pl"};
    static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ae", "io", "ou"};
    uint32_t state = 0x2545F491u;
    auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    };
    std::vector<std::string> words;
    for (int i = 0; i < count; ++i) {
        std::string w;
        int syllables = 2 + int(next() % 3);
        for (int s = 0; s < syllables; ++s) {
            w += kOnsets[next() % std::size(kOnsets)];
            w += kVowels[next() % std::size(kVowels)];
        }
        if (next() % 4 == 0) w += "n";
        words.push_back(std::move(w));
    }
    return words;
}

TrainedVocab train(int num_merges) {
    // Ids 0..255 are the byte stand-ins in GPT-2's order (printable bytes first), as in Qwen's vocab.
    TrainedVocab out;
    std::vector<int32_t> id_of_byte(256);
    {
        std::vector<int> order;
        for (int b = 0; b < 256; ++b)
            if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) order.push_back(b);
        for (int b = 0; b < 256; ++b)
            if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))) order.push_back(b);
        for (int b : order) {
            id_of_byte[size_t(b)] = int32_t(out.tokens.size());
            std::string s;
            unicode::append_utf8(s, byte_to_unicode(uint8_t(b)));
            out.tokens.push_back(s);
        }
    }
    std::unordered_map<std::string, int32_t> token_id;
    for (size_t i = 0; i < out.tokens.size(); ++i) token_id.emplace(out.tokens[i], int32_t(i));

    // Word frequencies: the sentences weigh more than the pseudo-words so their merges come first.
    std::map<std::string, int64_t> freq;
    PreTokenizerSpec pre;
    pre.splits = {unicode::SplitPattern::Qwen2};
    for (const char* line : kCorpus)
        for (const std::string& w : pretokenize(pre, unicode::nfc(std::string_view(line)))) freq[w] += 50;
    std::string pseudo;
    for (const std::string& w : pseudo_words(6000)) pseudo += " " + w;
    for (const std::string& w : pretokenize(pre, pseudo)) freq[w] += 1;

    struct Word {
        std::vector<int32_t> syms;
        int64_t freq;
    };
    std::vector<Word> words;
    for (const auto& [text, f] : freq) {
        Word w{{}, f};
        for (char c : text) w.syms.push_back(id_of_byte[static_cast<uint8_t>(c)]);
        words.push_back(std::move(w));
    }

    auto key = [](int32_t a, int32_t b) { return uint64_t(uint32_t(a)) << 32 | uint32_t(b); };
    std::unordered_map<uint64_t, int64_t> counts;
    std::unordered_map<uint64_t, std::vector<size_t>> where;
    std::vector<uint64_t> touched;
    auto count_word = [&](size_t wi, int64_t sign) {
        const Word& w = words[wi];
        for (size_t i = 0; i + 1 < w.syms.size(); ++i) {
            uint64_t k = key(w.syms[i], w.syms[i + 1]);
            counts[k] += sign * w.freq;
            if (sign > 0) where[k].push_back(wi);
            touched.push_back(k);
        }
    };
    // Highest count first; ties go to the smallest (left id, right id) so the result never
    // depends on hash order.
    struct Entry {
        int64_t count;
        uint64_t pair;
        bool operator<(const Entry& o) const { return count != o.count ? count < o.count : pair > o.pair; }
    };
    std::priority_queue<Entry> heap;
    for (size_t wi = 0; wi < words.size(); ++wi) count_word(wi, +1);
    for (const auto& [k, c] : counts) heap.push({c, k});

    while (int(out.merges.size()) < num_merges) {
        Entry top{0, 0};
        bool found = false;
        while (!heap.empty()) {
            top = heap.top();
            heap.pop();
            auto it = counts.find(top.pair);
            if (it != counts.end() && it->second == top.count && top.count > 0) {
                found = true;
                break;
            }
        }
        if (!found)
            throw Error("write_test_tokenizer: num_merges " + std::to_string(num_merges) +
                        " is more than the built-in corpus supports (" + std::to_string(out.merges.size()) + ")");
        int32_t a = int32_t(top.pair >> 32), b = int32_t(top.pair & 0xffffffffu);
        std::string merged = out.tokens[size_t(a)] + out.tokens[size_t(b)];
        auto [it, fresh] = token_id.emplace(merged, int32_t(out.tokens.size()));
        if (fresh) out.tokens.push_back(merged);
        int32_t c = it->second;
        out.merges.emplace_back(out.tokens[size_t(a)], out.tokens[size_t(b)]);

        std::vector<size_t> affected = std::move(where[top.pair]);
        where.erase(top.pair);
        std::sort(affected.begin(), affected.end());
        affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
        touched.clear();
        for (size_t wi : affected) {
            Word& w = words[wi];
            bool has = false;
            for (size_t i = 0; i + 1 < w.syms.size() && !has; ++i) has = w.syms[i] == a && w.syms[i + 1] == b;
            if (!has) continue;
            count_word(wi, -1);
            std::vector<int32_t> syms;
            for (size_t i = 0; i < w.syms.size(); ++i) {
                if (i + 1 < w.syms.size() && w.syms[i] == a && w.syms[i + 1] == b) {
                    syms.push_back(c);
                    ++i;
                } else {
                    syms.push_back(w.syms[i]);
                }
            }
            w.syms = std::move(syms);
            count_word(wi, +1);
        }
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        for (uint64_t k : touched)
            if (counts[k] > 0) heap.push({counts[k], k});
    }
    return out;
}

// Training takes a moment and tests write many tokenizers: keep each result.
const TrainedVocab& trained(int num_merges) {
    static std::mutex mutex;
    static std::map<int, TrainedVocab> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(num_merges);
    if (it == cache.end()) it = cache.emplace(num_merges, train(num_merges)).first;
    return it->second;
}

json added_token_json(const std::string& content, bool special) {
    return json{{"content", content}, {"single_word", false}, {"lstrip", false},
                {"rstrip", false},    {"normalized", false},  {"special", special}};
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("write_test_tokenizer: cannot create " + path.string());
    f << text;
    f.close();
    if (!f) throw Error("write_test_tokenizer: cannot write " + path.string());
}

}  // namespace

void write_test_tokenizer(const fs::path& dir, const TestTokenizerOptions& options) {
    if (options.num_merges < 0)
        throw Error("write_test_tokenizer: num_merges " + std::to_string(options.num_merges) + " is negative");
    const TrainedVocab& text = trained(options.num_merges);
    const int32_t n_text = int32_t(text.tokens.size());
    const int64_t open = options.dna_open_id;
    if (open < int64_t(n_text) + kNumSpecials)
        throw Error("write_test_tokenizer: dna_open_id " + std::to_string(open) +
                    " is too small: the stand-in text vocabulary takes ids 0.." + std::to_string(n_text - 1) +
                    " and Qwen's " + std::to_string(kNumSpecials) +
                    " special tokens the ids just before <dna>, so dna_open_id must be at least " +
                    std::to_string(n_text + kNumSpecials));
    const int64_t oov = open + 2, last_kmer = oov + kNumKmers;
    if (last_kmer >= options.vocab_size)
        throw Error("write_test_tokenizer: vocab_size " + std::to_string(options.vocab_size) +
                    " is too small: <dna> at " + std::to_string(open) +
                    ", </dna>, <oov> and the 4096 6-mers need ids up to " + std::to_string(last_kmer) +
                    ", so vocab_size must be at least " + std::to_string(last_kmer + 1));
    const int32_t first_special = int32_t(open) - kNumSpecials;

    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error("write_test_tokenizer: cannot create folder " + dir.string() + ": " + ec.message());

    // The BPE vocabulary runs without gaps up to the special tokens: Python's tokenizers renumbers
    // added tokens that do not follow the model vocabulary directly, so unused ids are filled
    // with placeholder tokens that no merge produces.
    json vocab = json::object();
    for (int32_t id = 0; id < n_text; ++id) vocab[text.tokens[size_t(id)]] = id;
    for (int32_t id = n_text; id < first_special; ++id) vocab["<|unused_" + std::to_string(id) + "|>"] = id;

    json added = json::array();
    json decoder = json::object();
    auto add = [&](int64_t id, const std::string& content, bool special, bool in_tokenizer_json) {
        if (in_tokenizer_json) {
            json t = json{{"id", id}};
            t.update(added_token_json(content, special));
            added.push_back(t);
        }
        decoder[std::to_string(id)] = added_token_json(content, special);
    };
    for (int i = 0; i < kNumSpecials; ++i)
        add(first_special + i, kQwenSpecials[i].first, kQwenSpecials[i].second, true);
    add(open, "<dna>", true, true);
    add(open + 1, "</dna>", true, true);
    add(oov, "<oov>", true, true);
    // 6-mers and padding go to tokenizer_config.json only: tokenizer.json would need them
    // contiguous, and as text tokens "ACGTAC" would be split out of metadata text.
    if (options.list_kmers)
        for (int i = 0; i < kNumKmers; ++i) add(oov + 1 + i, Tokenizer::kmer_text(i), true, false);
    for (int64_t id = last_kmer + 1; id < options.vocab_size; ++id)
        add(id, "<|dna_pad_" + std::to_string(id - last_kmer - 1) + "|>", true, false);

    json merges = json::array();
    std::string merges_txt = "#version: 0.2\n";
    for (const auto& [a, b] : text.merges) {
        merges.push_back(a + " " + b);
        merges_txt += a + " " + b + "\n";
    }
    const json byte_level = {
        {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}};
    json tokenizer = {
        {"version", "1.0"},
        {"truncation", nullptr},
        {"padding", nullptr},
        {"added_tokens", added},
        {"normalizer", {{"type", "NFC"}}},
        {"pre_tokenizer",
         {{"type", "Sequence"},
          {"pretokenizers", json::array({json{{"type", "Split"},
                                              {"pattern", {{"Regex", unicode::kQwen2Pattern}}},
                                              {"behavior", "Isolated"},
                                              {"invert", false}},
                                         byte_level})}}},
        {"post_processor", byte_level},
        {"decoder", byte_level},
        {"model",
         {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", nullptr},
          {"continuing_subword_prefix", ""},
          {"end_of_word_suffix", ""},
          {"fuse_unk", false},
          {"byte_fallback", false},
          {"ignore_merges", false},
          {"vocab", vocab},
          {"merges", merges}}},
    };
    json config = {
        {"add_bos_token", false},
        {"add_prefix_space", false},
        {"added_tokens_decoder", decoder},
        {"bos_token", nullptr},
        {"clean_up_tokenization_spaces", false},
        {"eos_token", "<|endoftext|>"},
        {"errors", "replace"},
        {"model_max_length", 32768},
        {"pad_token", "<|endoftext|>"},
        {"split_special_tokens", false},
        {"tokenizer_class", "HybridDNATokenizer"},
        {"unk_token", nullptr},
    };
    json special_map = {
        {"additional_special_tokens", {"<dna>", "</dna>", "<oov>"}},
        {"eos_token", "<|endoftext|>"},
        {"pad_token", "<|endoftext|>"},
    };
    write_text(dir / "tokenizer.json", tokenizer.dump(1) + "\n");
    write_text(dir / "vocab.json", vocab.dump() + "\n");
    write_text(dir / "merges.txt", merges_txt);
    write_text(dir / "tokenizer_config.json", config.dump(2) + "\n");
    write_text(dir / "special_tokens_map.json", special_map.dump(2) + "\n");
}

}  // namespace carbon
