// Tests of the Carbon hybrid tokenizer: spec DNA examples, notices, padding, decoding, both layouts,
// listed 6-mers, BPE details, and that bad input fails saying what is wrong (files in temp folders).
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "carbon/test_support/test_tokenizer.h"
#include "carbon/tokenizer/tokenizer.h"
#include "check.h"
#include "tokenizer/bpe.h"
#include "tokenizer/unicode.h"

namespace fs = std::filesystem;
using carbon::DnaNotice;
using carbon::Tokenizer;
using json = nlohmann::json;

namespace {

constexpr int kRealVocab = 155776;
// Compact layout: <dna> at 3000, no padding tokens.
constexpr int kCompactOpen = 3000, kCompactVocab = kCompactOpen + 3 + 4096;

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) {
        std::random_device rd;
        auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path = fs::temp_directory_path() /
               ("carbon_test_tokenizer_" + name + "_" + std::to_string(stamp) + "_" + std::to_string(rd()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
void spit(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
}
template <class Fn>
void edit_json(const fs::path& p, Fn fn) {
    json j = json::parse(slurp(p));
    fn(j);
    spit(p, j.dump());
}
void replace_all(const fs::path& p, const std::string& from, const std::string& to) {
    std::string s = slurp(p);
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    spit(p, s);
}

carbon::TestTokenizerOptions compact(bool list_kmers = false) {
    carbon::TestTokenizerOptions o;
    o.dna_open_id = kCompactOpen;
    o.vocab_size = kCompactVocab;
    o.list_kmers = list_kmers;
    return o;
}

// The real layout is the expensive one (151k placeholder vocabulary); write and load it once.
const Tokenizer& real_tokenizer() {
    static TempDir dir("real");
    static Tokenizer tok = [] {
        carbon::write_test_tokenizer(dir.path, carbon::TestTokenizerOptions{});
        return Tokenizer::load(dir.path, kRealVocab);
    }();
    return tok;
}

std::string decode_text(const Tokenizer& tok, const std::vector<int32_t>& ids) {
    std::string s;
    for (int32_t id : ids) s += tok.id_to_text(id);
    return s;
}

std::vector<int32_t> ids_of(const Tokenizer& tok, std::string_view bases, bool closed = false) {
    return tok.encode_dna(bases, closed).ids;
}

}  // namespace

TEST(spec_examples_real_layout) {
    const Tokenizer& tok = real_tokenizer();
    CHECK_EQ(tok.dna_open_id(), 151669);
    CHECK_EQ(tok.dna_close_id(), 151670);
    CHECK_EQ(tok.oov_id(), 151671);
    CHECK(tok.info().kmer_ids_from.find("HybridDNATokenizer layout") != std::string::npos);
    CHECK_EQ(tok.info().tokenizer_class, std::string("HybridDNATokenizer"));
    CHECK(ids_of(tok, "ATCGAT") == (std::vector<int32_t>{151669, 152105}));
    CHECK(ids_of(tok, "CGTACG") == (std::vector<int32_t>{151669, 154563}));
    CHECK(ids_of(tok, "ATGCGC") == (std::vector<int32_t>{151669, 152166}));
    CHECK(ids_of(tok, "GGGCTA") == (std::vector<int32_t>{151669, 155740}));
    CHECK(ids_of(tok, "ATCGA") == (std::vector<int32_t>{151669, 152104}));
    CHECK(ids_of(tok, "ATCGATCG") == (std::vector<int32_t>{151669, 152105, 154488}));
    CHECK(ids_of(tok, "ATCGAN") == (std::vector<int32_t>{151669, 151671}));
    CHECK(ids_of(tok, "atcgat") == (std::vector<int32_t>{151669, 152105}));
    CHECK(ids_of(tok, "ATCGAT", true) == (std::vector<int32_t>{151669, 152105, 151670}));
    CHECK(ids_of(tok, "", true) == (std::vector<int32_t>{151669, 151670}));
    CHECK_EQ(tok.encode_dna("ATCGAT", false).first_dna_token, size_t(1));
}

TEST(kmer_index_helpers) {
    const Tokenizer& tok = real_tokenizer();
    CHECK_EQ(Tokenizer::kmer_text(0), std::string("AAAAAA"));
    CHECK_EQ(Tokenizer::kmer_text(4095), std::string("GGGGGG"));
    CHECK_EQ(Tokenizer::kmer_index_of("ATCGAT"), 152105 - 151672);
    CHECK_EQ(Tokenizer::kmer_index_of("ATCGA"), -1);
    CHECK_EQ(Tokenizer::kmer_index_of("atcgat"), -1);
    CHECK_EQ(Tokenizer::kmer_index_of("ATCGAN"), -1);
    for (int i : {0, 1, 433, 2891, 4095}) {
        CHECK_EQ(Tokenizer::kmer_index_of(Tokenizer::kmer_text(i)), i);
        CHECK_EQ(tok.kmer_index(tok.kmer_id(i)), i);
    }
    CHECK_EQ(tok.kmer_index(tok.oov_id()), -1);
    CHECK_EQ(tok.kmer_index(5), -1);
    CHECK_EQ(tok.kmer_index(-1), -1);
    CHECK_EQ(tok.kmer_index(kRealVocab + 10), -1);
    CHECK_THROWS_WITH(Tokenizer::kmer_text(4096), "4096", "0..4095");
}

TEST(lowercase_and_non_acgt_notices) {
    const Tokenizer& tok = real_tokenizer();
    // positions: 0-1 "ac" lower, 2-3 "GT", 4-6 "NNn" (one N run, the last one lower), 7 "R", 8-9 "gg"
    carbon::DnaEncoding e = tok.encode_dna("acGTNNnRgg", true);
    CHECK_EQ(e.n_bases, size_t(10));
    CHECK_EQ(e.n_padding, size_t(2));
    CHECK(e.ids == (std::vector<int32_t>{151669, 151671, 151671, 151670}));
    CHECK_EQ(e.notices.size(), size_t(5));
    if (e.notices.size() == 5) {
        auto is = [](const DnaNotice& n, DnaNotice::Kind k, size_t pos, char c, size_t count) {
            return n.kind == k && n.position == pos && n.character == c && n.count == count;
        };
        CHECK(is(e.notices[0], DnaNotice::Lowercase, 0, 'a', 2));
        CHECK(is(e.notices[1], DnaNotice::NonAcgt, 4, 'N', 3));
        CHECK(is(e.notices[2], DnaNotice::Lowercase, 6, 'n', 1));
        CHECK(is(e.notices[3], DnaNotice::NonAcgt, 7, 'R', 1));
        CHECK(is(e.notices[4], DnaNotice::Lowercase, 8, 'g', 2));
    }
    // Lowercase n is upper-cased first, then found to be non-ACGT: its 6-mer is <oov>.
    carbon::DnaEncoding n = tok.encode_dna("ACGTAn", false);
    CHECK(n.ids == (std::vector<int32_t>{151669, 151671}));
    CHECK_EQ(n.notices.size(), size_t(2));
    CHECK(tok.encode_dna("ACGTACGT", false).notices.empty());
}

TEST(padding_and_decode) {
    const Tokenizer& tok = real_tokenizer();
    for (size_t len = 0; len <= 13; ++len) {
        std::string bases = std::string("ATCGATCGGCTAGC").substr(0, len);
        carbon::DnaEncoding e = tok.encode_dna(bases, true);
        CHECK_EQ(e.n_padding, (6 - len % 6) % 6);
        CHECK_EQ(e.ids.size(), 2 + (len + 5) / 6);
        std::string decoded = tok.decode_dna(e.ids);
        CHECK_EQ(decoded, bases + std::string(e.n_padding, 'A'));
    }
    CHECK_EQ(tok.decode_dna(ids_of(tok, "ACGTRYACGTAC", true)), std::string("NNNNNNACGTAC"));
    std::vector<int32_t> bad = {151669, 152105, 14, 151670};
    CHECK_THROWS_WITH(tok.decode_dna(bad), "token 14", "position 2", "not a DNA token");
}

TEST(text_is_byte_level_bpe_with_special_tokens) {
    const Tokenizer& tok = real_tokenizer();
    CHECK(tok.info().nfc);
    CHECK_EQ(tok.info().pretokenizer, std::string("qwen2"));
    CHECK_EQ(tok.info().bpe_from, std::string("tokenizer.json"));
    for (std::string s :
         {"Hello world!", "It's 2024: we're testing\n\ttabs  and  spaces", "caf\xC3\xA9 \xF0\x9F\xA7\xAC"}) {
        std::vector<int32_t> ids = tok.encode_text(s);
        CHECK(!ids.empty());
        CHECK_EQ(decode_text(tok, ids), s);
    }
    CHECK(tok.encode_text("<|endoftext|>") == std::vector<int32_t>{151643});
    CHECK(tok.encode_text("a<dna>b") ==
          (std::vector<int32_t>{tok.encode_text("a")[0], 151669, tok.encode_text("b")[0]}));
    CHECK(tok.encode_text("").empty());
    // NFC: a decomposed accent encodes like the composed one.
    CHECK(tok.encode_text("cafe\xCC\x81") == tok.encode_text("caf\xC3\xA9"));
    // "CCCCCC" as text is a BPE word, never the 6-mer token.
    std::vector<int32_t> c6 = tok.encode_text("CCCCCC");
    CHECK(!c6.empty());
    for (int32_t id : c6) CHECK_EQ(tok.kmer_index(id), -1);
    CHECK_THROWS_WITH(tok.encode_text("ab\xFF"
                                      "cd"),
                      "invalid UTF-8", "byte offset 2");
    CHECK_THROWS_WITH(tok.encode_text("\xED\xA0\x80"), "invalid UTF-8", "byte offset 0");  // a surrogate
    CHECK_THROWS_WITH(tok.id_to_text(kRealVocab + 5), "155781", "not in the tokenizer's vocabulary");
}

TEST(metadata_tags_are_plain_bpe_in_prompts) {
    const Tokenizer& tok = real_tokenizer();
    const std::string tags = "<vertebrate_mammalian><protein_coding_region>";
    std::vector<int32_t> meta = tok.encode_text(tags);
    CHECK(meta.size() > 2);
    for (int32_t id : meta) CHECK(size_t(id) < tok.info().bpe_vocab_size);
    CHECK_EQ(decode_text(tok, meta), tags);
    carbon::DnaEncoding p = tok.encode_prompt(tags, "ATCGATcg", true);
    CHECK_EQ(p.first_dna_token, meta.size() + 1);
    std::vector<int32_t> want = meta;
    want.insert(want.end(), {151669, 152105, 154488, 151670});
    CHECK(p.ids == want);
    CHECK_EQ(p.notices.size(), size_t(1));
    CHECK(tok.encode_prompt("", "ATCGAT", false).ids == ids_of(tok, "ATCGAT"));
}

TEST(compact_layout) {
    TempDir dir("compact");
    carbon::write_test_tokenizer(dir.path, compact());
    Tokenizer tok = Tokenizer::load(dir.path, kCompactVocab);
    CHECK_EQ(tok.dna_open_id(), kCompactOpen);
    CHECK_EQ(tok.oov_id(), kCompactOpen + 2);
    CHECK_EQ(tok.kmer_id(0), kCompactOpen + 3);
    CHECK_EQ(tok.kmer_id(4095), kCompactVocab - 1);
    CHECK(ids_of(tok, "ATCGAT") == (std::vector<int32_t>{kCompactOpen, kCompactOpen + 3 + 433}));
    CHECK(ids_of(tok, "ATCGAT") != ids_of(real_tokenizer(), "ATCGAT"));
    CHECK(tok.encode_text("<|endoftext|>") == std::vector<int32_t>{kCompactOpen - 26});
    CHECK(tok.encode_text("Hello world!") == real_tokenizer().encode_text("Hello world!"));
    CHECK_EQ(tok.decode_dna(ids_of(tok, "GGGCTAAT", true)), std::string("GGGCTAATAAAA"));
}

TEST(listed_kmers_and_vocab_merges_files) {
    TempDir dir("listed");
    carbon::write_test_tokenizer(dir.path, compact(true));
    Tokenizer tok = Tokenizer::load(dir.path, kCompactVocab);
    CHECK(tok.info().kmer_ids_from.find("listed in tokenizer_config.json") != std::string::npos);
    Tokenizer layout = [&] {
        TempDir d2("layout");
        carbon::write_test_tokenizer(d2.path, compact(false));
        return Tokenizer::load(d2.path, kCompactVocab);
    }();
    CHECK(tok.kmer_ids() == layout.kmer_ids());

    // Without tokenizer.json the same text comes from vocab.json + merges.txt, and listed 6-mers
    // stay DNA-only (text "ACGTAC" is BPE).
    fs::remove(dir.path / "tokenizer.json");
    Tokenizer slow = Tokenizer::load(dir.path, kCompactVocab);
    CHECK(slow.info().bpe_from.find("vocab.json + merges.txt") != std::string::npos);
    for (std::string s : {"Hello world!", "<fungi><protein_coding_region>", "ACGTAC CCCCCC", "<|endoftext|>x",
                          "they'll  go\r\n\r\n  now"})
        CHECK(slow.encode_text(s) == layout.encode_text(s));
    CHECK(slow.kmer_ids() == layout.kmer_ids());

    // GGUF-style listing: each 6-mer marked with U+E000, in tokenizer.json's added tokens.
    TempDir gguf("gguf");
    carbon::write_test_tokenizer(gguf.path, compact(false));
    edit_json(gguf.path / "tokenizer.json", [](json& j) {
        for (int i = 0; i < carbon::kNumKmers; ++i)
            j["added_tokens"].push_back({{"id", kCompactOpen + 3 + i},
                                         {"content", Tokenizer::kmer_text(i) + "\xEE\x80\x80"},
                                         {"special", true},
                                         {"normalized", false}});
    });
    Tokenizer g = Tokenizer::load(gguf.path, kCompactVocab);
    CHECK(g.info().kmer_ids_from.find("listed in tokenizer.json added_tokens") != std::string::npos);
    CHECK(g.kmer_ids() == layout.kmer_ids());
    // Marked 6-mers in the BPE vocabulary itself count as a listing too (unmarked ones never do).
    TempDir marked("marked_vocab");
    carbon::write_test_tokenizer(marked.path, compact(false));
    edit_json(marked.path / "tokenizer.json", [](json& j) {
        for (int i = 0; i < carbon::kNumKmers; ++i)
            j["model"]["vocab"][Tokenizer::kmer_text(i) + "\xEE\x80\x80"] = kCompactOpen + 3 + i;
    });
    Tokenizer m = Tokenizer::load(marked.path, kCompactVocab);
    CHECK(m.info().kmer_ids_from.find("listed in tokenizer.json model.vocab") != std::string::npos);
    CHECK(m.kmer_ids() == layout.kmer_ids());
}

TEST(bpe_ignore_merges_and_pair_merges) {
    // A hand-made tokenizer.json: the byte alphabet, one merge (as a pair), and "xyz", which no
    // merge makes. Expected ids come from tokenizers 0.23 on the same file.
    TempDir dir("ignore_merges");
    json vocab = json::object();
    std::vector<int> order;
    for (int b = 0; b < 256; ++b)
        if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) order.push_back(b);
    for (int b = 0; b < 256; ++b)
        if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))) order.push_back(b);
    for (size_t i = 0; i < order.size(); ++i) {
        std::string ch;
        carbon::unicode::append_utf8(ch, carbon::byte_to_unicode(uint8_t(order[i])));
        vocab[ch] = i;
    }
    vocab["ab"] = 256;
    vocab["xyz"] = 257;
    auto added = [](int id, const char* content) {
        return json{{"id", id}, {"content", content}, {"special", true}, {"normalized", false}};
    };
    json tj = {{"added_tokens", {added(258, "<dna>"), added(259, "</dna>"), added(260, "<oov>")}},
               {"normalizer", nullptr},
               {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
               {"model",
                {{"type", "BPE"},
                 {"vocab", vocab},
                 {"merges", json::array({json::array({"a", "b"})})},
                 {"ignore_merges", true}}}};
    spit(dir.path / "tokenizer.json", tj.dump());
    spit(dir.path / "tokenizer_config.json", R"({"tokenizer_class": "HybridDNATokenizer"})");
    Tokenizer tok = Tokenizer::load(dir.path, 260 + 4097);
    CHECK_EQ(tok.info().pretokenizer, std::string("gpt2"));
    CHECK(!tok.info().nfc);
    CHECK(tok.encode_text("xyz ab abab<dna>") == (std::vector<int32_t>{257, 220, 256, 220, 256, 256, 258}));
    tj["model"]["ignore_merges"] = false;
    spit(dir.path / "tokenizer.json", tj.dump());
    Tokenizer plain = Tokenizer::load(dir.path, 260 + 4097);
    CHECK(plain.encode_text("xyz ab abab<dna>") == (std::vector<int32_t>{87, 88, 89, 220, 256, 220, 256, 256, 258}));
}

TEST(unicode_pretokenizer_and_nfc) {
    using carbon::unicode::SplitPattern;
    auto pieces = [](SplitPattern p, const std::string& s) {
        std::u32string cps = carbon::unicode::decode_utf8(s, "test");
        std::vector<std::string> out;
        for (auto [b, e] : carbon::unicode::split(p, cps))
            out.push_back(carbon::unicode::encode_utf8(cps.substr(b, e - b)));
        return out;
    };
    // Expected pieces from tokenizers' Split with the same patterns.
    CHECK(pieces(SplitPattern::Qwen2, "a \n\n  b\r\n \t c  ") ==
          (std::vector<std::string>{"a", " \n\n", " ", " b", "\r\n", " \t", " c", "  "}));
    CHECK(pieces(SplitPattern::Qwen2, "'S '\xC5\xBF 'RE 'K 'Ll x") ==
          (std::vector<std::string>{"'S", " '", "\xC5\xBF", " '", "RE", " '", "K", " '", "Ll", " x"}));
    CHECK(pieces(SplitPattern::Qwen2, "x\xC2\xA0\xC2\xA0y") ==
          (std::vector<std::string>{"x", "\xC2\xA0", "\xC2\xA0y"}));
    CHECK(pieces(SplitPattern::Qwen2, "(hello) 123!!\n\nok") ==
          (std::vector<std::string>{"(hello", ")", " ", "1", "2", "3", "!!\n\n", "ok"}));
    CHECK(pieces(SplitPattern::Gpt2, "a  b's  ") == (std::vector<std::string>{"a", " ", " b", "'s", "  "}));
    CHECK(pieces(SplitPattern::Gpt2, "it'S 123") == (std::vector<std::string>{"it", "'", "S", " 123"}));

    using carbon::unicode::nfc;
    CHECK_EQ(nfc(std::string_view("e\xCC\x81")), std::string("\xC3\xA9"));                                 // e + acute
    CHECK_EQ(nfc(std::string_view("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8")), std::string("\xEA\xB0\x81"));  // jamo
    CHECK_EQ(nfc(std::string_view("\xE2\x84\xAB")), std::string("\xC3\x85"));                   // Angstrom sign
    CHECK_EQ(nfc(std::string_view("e\xCC\x81\xCC\xA3")), std::string("\xE1\xBA\xB9\xCC\x81"));  // reordered
    CHECK_EQ(nfc(std::string_view("\xE0\xA5\x98")), std::string("\xE0\xA4\x95\xE0\xA4\xBC"));   // excluded
    CHECK_EQ(nfc(std::string_view("plain ascii")), std::string("plain ascii"));
    CHECK_EQ(carbon::unicode::find_invalid_utf8("ok\xC0\xAF"), size_t(2));  // overlong '/'
}

TEST(error_missing_folder_and_files) {
    TempDir dir("missing");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path / "nope", kRealVocab), "does not exist", "nope");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kRealVocab), "no tokenizer in", "tokenizer.json",
                      "vocab.json and merges.txt");
    spit(dir.path / "vocab.json", "{}");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kRealVocab), "vocab.json but no merges.txt");
}

TEST(error_malformed_json_names_the_file) {
    TempDir dir("malformed");
    carbon::write_test_tokenizer(dir.path, compact());
    std::string good = slurp(dir.path / "tokenizer_config.json");
    spit(dir.path / "tokenizer_config.json", good.substr(0, good.size() / 2));
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer_config.json", "malformed JSON");
    spit(dir.path / "tokenizer_config.json", good);
    spit(dir.path / "tokenizer.json", "{\"model\": [1, 2,");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer.json", "malformed JSON");
    spit(dir.path / "tokenizer.json", "{\"model\": {\"type\": \"WordPiece\"}}");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer.json", "WordPiece", "not supported");
}

TEST(error_missing_dna_token) {
    TempDir dir("no_dna");
    carbon::write_test_tokenizer(dir.path, compact());
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        replace_all(dir.path / f, "\"<dna>\"", "\"<dnx>\"");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "no <dna> token",
                      "tokenizer_config.json added_tokens_decoder", "tokenizer.json added_tokens");
}

TEST(error_vocab_size_too_small) {
    TempDir dir("small_vocab");
    carbon::write_test_tokenizer(dir.path, compact());
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab - 1), "vocab_size 7098 is too small",
                      "HybridDNATokenizer layout", "at least 7099");
    // Ids listed in the files must fit too: the real layout's padding tokens end at 155775.
    TempDir real("real_small");
    carbon::write_test_tokenizer(real.path, carbon::TestTokenizerOptions{});
    CHECK_THROWS_WITH(Tokenizer::load(real.path, 155770), "tokenizer_config.json", "<|dna_pad_2|>", "155770",
                      "vocab_size");
    CHECK_THROWS_WITH(Tokenizer::load(real.path, 0), "vocab_size 0");
}

TEST(error_incomplete_kmer_listing) {
    TempDir dir("kmers_4095");
    carbon::write_test_tokenizer(dir.path, compact(true));
    edit_json(dir.path / "tokenizer_config.json",
              [](json& j) { j["added_tokens_decoder"].erase(std::to_string(kCompactOpen + 3 + 4095)); });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer_config.json", "4095 of the 4096", "GGGGGG",
                      "complete");
}

TEST(error_conflicting_ids) {
    TempDir dir("conflict");
    carbon::write_test_tokenizer(dir.path, compact());
    edit_json(dir.path / "tokenizer_config.json", [](json& j) {
        json& dec = j["added_tokens_decoder"];
        dec["2990"] = dec[std::to_string(kCompactOpen)];
        dec.erase(std::to_string(kCompactOpen));
    });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "conflicting ids for <dna>", "3000", "2990",
                      "tokenizer.json added_tokens", "tokenizer_config.json added_tokens_decoder");

    TempDir kmers("conflict_kmers");
    carbon::write_test_tokenizer(kmers.path, compact(true));
    json swapped = json::object();
    for (int i = 0; i < carbon::kNumKmers; ++i) swapped[Tokenizer::kmer_text(i)] = kCompactOpen + 3 + (i ^ 1);
    spit(kmers.path / "added_tokens.json", swapped.dump());
    CHECK_THROWS_WITH(Tokenizer::load(kmers.path, kCompactVocab), "conflicting ids for the 6-mer AAAAAA",
                      "added_tokens.json", "tokenizer_config.json");
}

// Tokenizer files that contradict themselves change what tags and DNA mean: refused, naming the
// file, the ids and the tokens.
TEST(error_self_contradicting_token_lists) {
    TempDir dup("duplicate_id");
    carbon::write_test_tokenizer(dup.path, compact());
    edit_json(dup.path / "tokenizer.json", [](json& j) {
        json extra = j["added_tokens"][0];
        extra["id"] = kCompactOpen;
        extra["content"] = "<extra>";
        j["added_tokens"].push_back(extra);
    });
    CHECK_THROWS_WITH(Tokenizer::load(dup.path, kCompactVocab), "tokenizer.json added_tokens", "gives id 3000 to both",
                      "'<dna>'", "'<extra>'");

    TempDir moved("dna_on_bpe_id");
    carbon::write_test_tokenizer(moved.path, compact());
    edit_json(moved.path / "tokenizer_config.json", [](json& j) {
        json& dec = j["added_tokens_decoder"];
        dec["100"] = dec[std::to_string(kCompactOpen)];
        dec.erase(std::to_string(kCompactOpen));
    });
    CHECK_THROWS_WITH(Tokenizer::load(moved.path, kCompactVocab), "tokenizer_config.json added_tokens_decoder",
                      "puts '<dna>' on id 100", "which the BPE vocabulary (tokenizer.json) already gives to");
    TempDir cls("class_number");
    carbon::write_test_tokenizer(cls.path, compact());
    edit_json(cls.path / "tokenizer_config.json", [](json& j) { j["tokenizer_class"] = 5; });
    CHECK_THROWS_WITH(Tokenizer::load(cls.path, kCompactVocab), "tokenizer_config.json", "tokenizer_class must be a string",
                      "got 5");
}

TEST(error_no_kmers_without_layout_class) {
    TempDir dir("no_class");
    carbon::write_test_tokenizer(dir.path, compact());
    edit_json(dir.path / "tokenizer_config.json", [](json& j) { j["tokenizer_class"] = "Qwen2Tokenizer"; });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "no DNA 6-mer tokens", "Qwen2Tokenizer",
                      "HybridDNATokenizer");
}

TEST(error_unknown_pretokenizer_pattern) {
    TempDir dir("pattern");
    carbon::write_test_tokenizer(dir.path, compact());
    edit_json(dir.path / "tokenizer.json",
              [](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{L}+|\\s+"; });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer.json", "pattern", "\\p{L}+|\\s+",
                      "not one this engine implements");
    edit_json(dir.path / "tokenizer.json", [](json& j) { j["pre_tokenizer"] = {{"type", "Whitespace"}}; });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer.json", "Whitespace", "not supported");
    edit_json(dir.path / "tokenizer.json", [](json& j) {
        j["pre_tokenizer"] = {{"type", "ByteLevel"}};
        j["normalizer"] = {{"type", "NFKC"}};
    });
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "tokenizer.json", "NFKC", "not supported");
}

TEST(error_bad_merge) {
    TempDir dir("merge");
    carbon::write_test_tokenizer(dir.path, compact());
    fs::remove(dir.path / "tokenizer.json");
    std::string merges = slurp(dir.path / "merges.txt");
    spit(dir.path / "merges.txt", merges + "zz\xC4\xA0 q\n");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "merges.txt", "not in the vocabulary");
    spit(dir.path / "merges.txt", merges + "a b c\n");
    CHECK_THROWS_WITH(Tokenizer::load(dir.path, kCompactVocab), "merges.txt line", "two tokens");
}

TEST(write_test_tokenizer_validates_options) {
    TempDir dir("options");
    carbon::TestTokenizerOptions o;
    o.dna_open_id = 100;
    CHECK_THROWS_WITH(carbon::write_test_tokenizer(dir.path, o), "dna_open_id 100", "at least");
    o = carbon::TestTokenizerOptions{};
    o.vocab_size = 155000;
    CHECK_THROWS_WITH(carbon::write_test_tokenizer(dir.path, o), "vocab_size 155000 is too small", "at least 155768");
    o = carbon::TestTokenizerOptions{};
    o.num_merges = -1;
    CHECK_THROWS_WITH(carbon::write_test_tokenizer(dir.path, o), "num_merges -1");
}

CHECK_MAIN()
