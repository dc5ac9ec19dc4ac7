// libFuzzer entry point for the FASTA reader: any input must either parse or raise carbon::Error,
// never crash, hang or trip a sanitizer. Built by run_libfuzzer.sh (clang) or tests/fuzz/mutation_driver.cpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "carbon/storage/fasta.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() { return {">a\nACGT\n", ">\nacgtn\r\n\r\n>b desc\nRYKM\n", ">x"}; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        // The first byte picks the scanner's chunk size, so chunk boundaries fall everywhere.
        const size_t chunk = size ? 1 + data[0] % 17 : 1;
        carbon::storage::FastaReader reader(text, "fuzz.fa", chunk);
        carbon::storage::FastaEntry e;
        size_t total = 0;
        while (reader.next(e)) {
            total += e.bases.size();
            for (char c : e.bases)
                if (!carbon::storage::is_iupac_base(c)) __builtin_trap();  // only IUPAC letters may come out
            if (total > size) __builtin_trap();                             // never more bases than bytes
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
