// libFuzzer entry point for the GenBank / EMBL reader: any input must either parse or raise
// carbon::Error, never crash, hang or trip a sanitizer; what it returns must hold: upper-case
// IUPAC bases only, never more bases than bytes, and every feature part inside its record's
// sequence with start <= end. Built by run_libfuzzer.sh (clang) or with
// tests/fuzz/mutation_driver.cpp (CTest storage.fuzz_flatfile, seeded with tests/storage/data/flatfile).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "carbon/storage/fasta.h"
#include "carbon/storage/flatfile.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    return {"LOCUS       a 8 bp DNA\nFEATURES             Location/Qualifiers\n     gene            complement(join(1..2,<4..>6))\n"
            "                     /gene=\"x\"\n                     /pseudo\nORIGIN\n        1 acgtacgt\n//\n",
            "ID   A; SV 1; linear; DNA; STD; SYN; 4 BP.\nFT   misc_feature    2^3\nFT                   /note=\"a \"\"b\"\"\n"
            "FT                   c\"\nSQ   Sequence 4 BP;\n     acgt         4\n//\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const carbon::storage::FlatFile f = carbon::storage::read_flat_text(text, "fuzz.gb");
        size_t total = 0;
        for (const carbon::storage::FlatRecord& r : f.records) {
            total += r.bases.size();
            if (total > size) __builtin_trap();
            for (char c : r.bases)
                if (!carbon::storage::is_iupac_base(c) || (c >= 'a' && c <= 'z')) __builtin_trap();
            for (const carbon::storage::Feature& ft : r.features)
                for (const carbon::storage::LocationPart& p : ft.parts)
                    if (p.start < 0 || p.start > p.end || p.end > int64_t(r.bases.size())) __builtin_trap();
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
