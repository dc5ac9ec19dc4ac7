// Fuzz target for a VCF's index from outside (storage/src/vcf_index.cpp, through VcfReader's region
// queries): the input is what a .tbi (even first byte) or .csi (odd) holds, written BGZF-compressed
// as htslib writes them, beside a fixed bgzipped VCF of
// three contigs, newer than the file so that only its content can give it away. Whatever it holds,
// the regions' records must be exactly those a stream of the file gives, or the reader refuses with
// carbon::Error; htslib's loader and the checks run under the sanitizers (htslib itself is the plain
// library). A lying index is replaced by one built in the cache, once: later inputs reuse it.
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "../hts_files.h"
#include "fuzz_target.h"

namespace {

namespace fs = std::filesystem;

struct Fixture {
    std::string dir, vcf, copy;  // the file, and an index-less copy for the stream
    std::vector<carbon::storage::VcfRegion> regions;
    std::vector<std::string> want;
    std::string tbi, csi;  // the true indexes' bytes (seeds)
};

// An index file's content: BGZF-compressed (its blocks checked by CRC), so the target mutates what
// it holds and compresses that.
std::string inflated(const std::string& path) {
    BGZF* z = bgzf_open(path.c_str(), "r");
    std::string out;
    char buf[4096];
    for (ssize_t n; z && (n = bgzf_read(z, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    if (z) bgzf_close(z);
    return out;
}

std::vector<std::string> read_all(const std::string& path, const std::vector<carbon::storage::VcfRegion>& regions) {
    carbon::storage::VcfReader r(path, regions);
    std::vector<std::string> out;
    carbon::storage::VcfRecord rec;
    while (r.next(rec)) out.push_back(rec.chrom + ":" + std::to_string(rec.pos + 1));
    std::sort(out.begin(), out.end());
    return out;
}

const Fixture& fixture() {
    static const Fixture f = [] {
        Fixture x;
        char t[] = "/tmp/carbon-fuzz-vcf-index-XXXXXX";
        const char* d = mkdtemp(t);
        x.dir = d ? d : "/tmp";
        setenv("XDG_CACHE_HOME", (x.dir + "/cache").c_str(), 1);
        std::string text =
            "##fileformat=VCFv4.2\n##contig=<ID=chr1>\n##contig=<ID=chr2>\n##contig=<ID=chr3>\n"
            "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
        for (const char* c : {"chr1", "chr2", "chr3"})
            for (int p = 5; p < 40000; p += 37) text += std::string(c) + "\t" + std::to_string(p) + "\t.\tA\tC\t.\t.\t.\n";
        x.vcf = x.dir + "/data.vcf.gz";
        if (!storage_test::write_vcf_as(text, x.vcf, "wz")) __builtin_trap();
        if (tbx_index_build3(x.vcf.c_str(), (x.vcf + ".tbi").c_str(), 0, 0, &tbx_conf_vcf) != 0) __builtin_trap();
        if (tbx_index_build3(x.vcf.c_str(), (x.vcf + ".csi").c_str(), 14, 0, &tbx_conf_vcf) != 0) __builtin_trap();
        x.tbi = inflated(x.vcf + ".tbi");
        x.csi = inflated(x.vcf + ".csi");
        if (x.tbi.empty() || x.csi.empty()) __builtin_trap();
        fs::remove(x.vcf + ".tbi");
        fs::remove(x.vcf + ".csi");
        x.copy = x.dir + "/stream.vcf.gz";
        fs::copy_file(x.vcf, x.copy);
        x.regions = carbon::storage::parse_vcf_regions("chr1:100-9000,chr2,chr3:20000-39999");
        x.want = read_all(x.copy, x.regions);
        if (x.want.empty()) __builtin_trap();
        return x;
    }();
    return f;
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    const Fixture& f = fixture();
    return {std::string(1, '\0') + f.tbi, std::string(1, '\1') + f.csi};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const Fixture& f = fixture();
    if (size == 0) return 0;
    const bool csi = data[0] & 1;
    const std::string index = f.vcf + (csi ? ".csi" : ".tbi");
    fs::remove(f.vcf + ".tbi");
    fs::remove(f.vcf + ".csi");
    BGZF* z = bgzf_open(index.c_str(), "w");
    if (!z || bgzf_write(z, data + 1, size - 1) < 0 || bgzf_close(z) != 0) __builtin_trap();
    fs::last_write_time(index, fs::last_write_time(f.vcf) + std::chrono::seconds(10));
    try {
        if (read_all(f.vcf, f.regions) != f.want) __builtin_trap();  // other records than the file holds
    } catch (const carbon::Error&) {
    }
    return 0;
}
