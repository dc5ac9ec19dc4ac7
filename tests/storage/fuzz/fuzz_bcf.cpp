// Fuzz target for BCF through htslib (storage/src/vcf_reader.cpp: bcf_hdr_read, bcf_read and the
// unpacking of each record): the input is what a BCF holds, written BGZF-compressed as htslib
// writes it (so mutations reach the header and records, not the compression's checksums). Any
// input must be read or refused with carbon::Error; every record a contig of the header's, a
// position in [0, 2^31), REF letters only, and never more records than input bytes. The reader is
// compiled here with the sanitizers; htslib is the plain library.
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/vcf.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "../hts_files.h"
#include "fuzz_target.h"

namespace {

const std::string& work() {
    static const std::string dir = [] {
        char t[] = "/tmp/carbon-fuzz-bcf-XXXXXX";
        const char* d = mkdtemp(t);
        return std::string(d ? d : "/tmp");
    }();
    return dir;
}

// A BCF's content (uncompressed BCF, "wu") for the VCF text `text`.
std::string bcf_content(const std::string& text) {
    const std::string out_path = work() + "/seed.ubcf";
    if (!storage_test::write_vcf_as(text, out_path, "wbu")) __builtin_trap();
    std::ifstream f(out_path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    const std::string head = "##fileformat=VCFv4.2\n##contig=<ID=chr1,length=1000>\n##contig=<ID=chr2>\n"
                             "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"depth\">\n"
                             "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"genotype\">\n";
    return {bcf_content(head + "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                               "chr1\t5\trs1\tA\tC,G\t30\tPASS\tDP=4\nchr1\t9\t.\tAC\tA\t.\t.\t.\nchr2\t1\t.\tT\t<DEL>\t.\t.\t.\n"),
            bcf_content(head + "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\n"
                               "chr1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t1/1\n")};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = work() + "/input.bcf";
    BGZF* z = bgzf_open(path.c_str(), "w");
    if (!z || bgzf_write(z, data, size) < 0 || bgzf_close(z) != 0) __builtin_trap();
    try {
        carbon::storage::VcfReader reader(path);
        size_t n = 0;
        for (carbon::storage::VcfRecord r; reader.next(r);) {
            if (++n > size) __builtin_trap();
            if (r.pos < 0 || r.pos > 2147483647LL) __builtin_trap();
            for (const char c : r.ref)
                if (!std::isalpha(static_cast<unsigned char>(c)) && c != '*' && c != '.') __builtin_trap();
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
