// carbon_tokenize: the driver tests/python/test_tokenizer_parity.py runs to encode text and DNA,
// NFC-normalize strings and write the stand-in tokenizer; JSON in and out so any string survives.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "carbon/test_support/test_tokenizer.h"
#include "carbon/tokenizer/tokenizer.h"
// The tools' CMake target only sees the engine's public headers; NFC is internal, so reach it by
// path (unicode.h needs nothing beyond the standard library).
#include "../../engine/src/tokenizer/unicode.h"

namespace {

using json = nlohmann::json;

const char* const kUsage =
    "usage:\n"
    "  carbon_tokenize encode DIR VOCAB_SIZE REQUEST.json\n"
    "      REQUEST: {\"text\": [s...], \"dna\": [s...], \"prompts\": [[metadata, bases], ...]}\n"
    "      prints {\"info\", \"text\": [[ids]], \"dna_open\", \"dna_closed\", \"prompts\"} as JSON\n"
    "  carbon_tokenize nfc REQUEST.json          (REQUEST: [s...]; prints the NFC forms)\n"
    "  carbon_tokenize write-test-tokenizer DIR [--vocab-size N] [--dna-open-id N] [--num-merges N]\n"
    "                                           [--list-kmers]\n";

json read_request(const char* path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw carbon::Error(std::string("cannot open ") + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return json::parse(ss.str());
}

json dna_json(const carbon::DnaEncoding& e) {
    json notices = json::array();
    for (const carbon::DnaNotice& n : e.notices)
        notices.push_back({n.kind == carbon::DnaNotice::Lowercase ? "lowercase" : "non_acgt", n.position,
                           int(static_cast<unsigned char>(n.character)), n.count});
    return {{"ids", e.ids},
            {"n_bases", e.n_bases},
            {"n_padding", e.n_padding},
            {"first_dna_token", e.first_dna_token},
            {"notices", notices}};
}

int encode(const char* dir, int vocab_size, const char* request_path) {
    carbon::Tokenizer tok = carbon::Tokenizer::load(dir, vocab_size);
    json req = read_request(request_path);
    const carbon::TokenizerInfo& info = tok.info();
    json out;
    out["info"] = {{"source", info.source},
                   {"tokenizer_class", info.tokenizer_class},
                   {"kmer_ids_from", info.kmer_ids_from},
                   {"bpe_from", info.bpe_from},
                   {"pretokenizer", info.pretokenizer},
                   {"nfc", info.nfc},
                   {"bpe_vocab_size", info.bpe_vocab_size},
                   {"num_merges", info.num_merges},
                   {"num_added_tokens", info.num_added_tokens},
                   {"dna_open_id", tok.dna_open_id()},
                   {"dna_close_id", tok.dna_close_id()},
                   {"oov_id", tok.oov_id()}};
    out["text"] = json::array();
    for (const json& s : req.value("text", json::array())) out["text"].push_back(tok.encode_text(s.get<std::string>()));
    out["dna_open"] = json::array();
    out["dna_closed"] = json::array();
    for (const json& s : req.value("dna", json::array())) {
        out["dna_open"].push_back(dna_json(tok.encode_dna(s.get<std::string>(), false)));
        out["dna_closed"].push_back(dna_json(tok.encode_dna(s.get<std::string>(), true)));
    }
    out["prompts"] = json::array();
    for (const json& p : req.value("prompts", json::array())) {
        carbon::DnaEncoding e = tok.encode_prompt(p.at(0).get<std::string>(), p.at(1).get<std::string>(), true);
        json d = dna_json(e);
        d["decoded"] = tok.decode_dna(std::vector<int32_t>(e.ids.begin() + long(e.first_dna_token), e.ids.end()));
        out["prompts"].push_back(d);
    }
    std::cout << out.dump() << "\n";
    return 0;
}

int nfc(const char* request_path) {
    json out = json::array();
    for (const json& s : read_request(request_path))
        out.push_back(carbon::unicode::nfc(std::string_view(s.get<std::string>())));
    std::cout << out.dump() << "\n";
    return 0;
}

int write_tokenizer(int argc, char** argv) {
    if (argc < 3) throw carbon::Error("write-test-tokenizer needs DIR");
    carbon::TestTokenizerOptions options;
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        auto number = [&]() {
            if (i + 1 >= argc) throw carbon::Error(a + " needs a value");
            return std::atoi(argv[++i]);
        };
        if (a == "--vocab-size")
            options.vocab_size = number();
        else if (a == "--dna-open-id")
            options.dna_open_id = number();
        else if (a == "--num-merges")
            options.num_merges = number();
        else if (a == "--list-kmers")
            options.list_kmers = true;
        else
            throw carbon::Error("unknown option " + a);
    }
    carbon::write_test_tokenizer(argv[2], options);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string cmd = argc > 1 ? argv[1] : "";
        if (cmd == "encode" && argc == 5) return encode(argv[2], std::atoi(argv[3]), argv[4]);
        if (cmd == "nfc" && argc == 3) return nfc(argv[2]);
        if (cmd == "write-test-tokenizer") return write_tokenizer(argc, argv);
        std::cerr << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "carbon_tokenize: " << e.what() << "\n";
        return 1;
    }
}
