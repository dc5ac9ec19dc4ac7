// libFuzzer entry point for the VCF panel reader: any input must either parse or raise
// carbon::Error, never crash, hang or trip a sanitizer; what it returns must be SNVs that are
// inside the reference, with REF the reference's base and ALT another of A/C/G/T. Built by
// run_libfuzzer.sh (clang) or with tests/fuzz/mutation_driver.cpp (CTest storage.fuzz_vcf).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    return {"##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\nseq1\t2\t.\tC\tG,T\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // Soft-masked and IUPAC bases too; on the heap without a terminator, so that ASan sees any
    // read past its end.
    static const std::string kText = "ACGTNacg";  // short: POS past its end takes one digit
    static const std::vector<char> kBases(kText.begin(), kText.end());
    const std::string_view kRef(kBases.data(), kBases.size());
    try {
        const carbon::storage::VcfPanel p = carbon::storage::read_vcf_panel_text(text, "fuzz.vcf", "seq1", kRef);
        for (const carbon::storage::VcfSnv& v : p.snvs) {
            if (v.position < 0 || size_t(v.position) >= kRef.size()) __builtin_trap();
            if (v.ref != std::toupper(static_cast<unsigned char>(kRef[size_t(v.position)]))) __builtin_trap();
            if (v.alt == v.ref || std::string_view("ACGT").find(v.alt) == std::string_view::npos) __builtin_trap();
        }
        if (p.snvs.size() + p.skipped.size() > size) __builtin_trap();  // never more records than bytes
    } catch (const carbon::Error&) {
    }
    return 0;
}
