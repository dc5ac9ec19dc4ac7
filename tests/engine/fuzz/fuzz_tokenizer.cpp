// Fuzz target for the tokenizer files: one input is tokenizer_config.json and tokenizer.json
// separated by a line "@@"; Tokenizer::load must accept them or refuse them with carbon::Error,
// and an accepted tokenizer must encode text, tags and DNA without crashing.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "carbon/support/common.h"
#include "carbon/test_support/test_tokenizer.h"
#include "carbon/tokenizer/tokenizer.h"
#include "fuzz_files.h"
#include "fuzz_target.h"

namespace {

namespace fs = std::filesystem;
constexpr int kVocab = 400 + 3 + 4096;  // a compact test vocabulary: <dna> at 400, the 6-mers by the layout rule
constexpr const char* kSplit = "\n@@\n";

const fs::path& scratch() { return carbon::fuzz::scratch_dir("tokenizer"); }
using carbon::fuzz::slurp;

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    const fs::path d = scratch() / "seed";
    carbon::TestTokenizerOptions o;
    o.vocab_size = kVocab;
    o.dna_open_id = 400;
    o.num_merges = 40;
    carbon::write_test_tokenizer(d, o);
    const std::string config = slurp(d / "tokenizer_config.json"), tokenizer = slurp(d / "tokenizer.json");
    fs::remove_all(d);
    return {config + kSplit + tokenizer, kSplit + tokenizer, config + kSplit};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const size_t at = text.find(kSplit);
    const fs::path d = scratch() / "case";
    fs::remove_all(d);
    fs::create_directories(d);
    std::ofstream(d / "tokenizer_config.json", std::ios::binary) << text.substr(0, at);
    if (at != std::string::npos) std::ofstream(d / "tokenizer.json", std::ios::binary) << text.substr(at + 4);
    try {
        const carbon::Tokenizer tok = carbon::Tokenizer::load(d, kVocab);
        (void)tok.encode_text("hello <dna> world \xe2\x82\xac");
        (void)tok.encode_prompt("<vertebrate_mammalian><promoter>", "ACGTNacgtRYAC", true);
        (void)tok.encode_dna("ATCGATCGA", false);
    } catch (const carbon::Error&) {
    }
    return 0;
}
