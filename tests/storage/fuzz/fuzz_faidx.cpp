// libFuzzer entry point for the .fai reader and the checks of an index against its FASTA
// (storage/src/fasta_index.cpp): the input is a FASTA and a .fai, split at the first line "@@".
// Any input must either be refused (carbon::Error, or a reason from check_fai_layout) or give, for
// every contig of an index that passed, windows of exactly the length asked, of base letters only;
// never a crash, a hang or a sanitizer report. Built with tests/fuzz/mutation_driver.cpp (CTest
// storage.fuzz_faidx) or run_libfuzzer.sh.
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/support/common.h"
#include "fasta_index.h"
#include "fuzz_target.h"

std::vector<std::string> carbon_fuzz_seeds() {
    return {">chr1 a\nACGTACGTAC\nACGTA\n>chr2\nNNNN\n@@\nchr1\t15\t8\t10\t11\nchr2\t4\t33\t4\t5\n",
            ">a\r\nACGT\r\nAC\r\n@@\na\t6\t4\t4\t6\n",
            ">x\nAC\n>x\nGG\n@@\nx\t2\t3\t2\t3\n"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const size_t cut = in.find("\n@@\n");
    const std::string fasta(in.substr(0, cut == std::string_view::npos ? in.size() : cut + 1));
    const std::string fai(cut == std::string_view::npos ? std::string_view() : in.substr(cut + 4));
    static const std::string dir = [] {
        char t[] = "/tmp/carbon-fuzz-faidx-XXXXXX";
        return std::string(mkdtemp(t) ? t : "/tmp");
    }();
    const std::string fa_path = dir + "/in.fa", fai_path = dir + "/in.fa.fai";
    std::ofstream(fa_path, std::ios::binary | std::ios::trunc) << fasta;
    std::ofstream(fai_path, std::ios::binary | std::ios::trunc) << fai;
    try {
        const auto entries = carbon::storage::read_fai_file(fai_path, fa_path);
        const carbon::storage::RawFasta raw(fa_path, false, "");
        if (carbon::storage::check_fai_layout(entries, raw, fa_path)) return 0;  // refused, with a reason
        for (const auto& e : entries) {
            if (e.length > int64_t(fasta.size())) __builtin_trap();  // a checked index cannot promise more bases than bytes
            for (int64_t b = 0; b < e.length; b += 1 + e.length / 7) {
                const int64_t end = std::min(e.length, b + 1 + e.length / 3);
                try {
                    const std::string got = carbon::storage::fetch_bases(e, raw, b, end, fa_path);
                    if (int64_t(got.size()) != end - b) __builtin_trap();
                    for (char c : got)
                        if (!std::isgraph(static_cast<unsigned char>(c)) || c == '>') __builtin_trap();
                } catch (const carbon::Error&) {  // lines of other lengths inside the contig
                }
            }
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
