// The storage readers enforce their limits while streaming (issue 15, class 3 for FASTA and VCF):
// a long VCF line costs linear time and an over-long one is refused; binary bytes and classic Mac
// line endings are refused at once with line and column; /dev/zero fails at its first byte; a
// gzip bomb (concatenated members of one repeated letter) is refused after a bounded amount of
// output; a FASTA header never grows past its limit; a record past the caller's base limit is
// refused while it is read. Every input is made here.
#include <zlib.h>

#include <chrono>
#include <fstream>

#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "carbon/storage/vcf.h"
#include "check.h"
#include "gzip_reader.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::temp_path;

namespace {

const std::string kRef = "ACGTACGTACGTACGTACGT";

std::string vcf_with_header_line(size_t bytes) {
    return "##fileformat=VCFv4.2\n##note=" + std::string(bytes, 'x') + "\n#CHROM\tPOS\tID\tREF\tALT\nchr1\t2\trs1\tC\tG\n";
}

// One gzip member holding `text`.
std::string gzip_member(const std::string& text) {
    z_stream z{};
    CHECK(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, uLong(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = uInt(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

}  // namespace

TEST(a_long_line_is_scanned_once) {
    // The reader before this fix rescanned the whole partial line for every 64 KiB read:
    // quadratic (a 200 MB VCF header line took 11.5 s). Counted, not timed: every byte is looked
    // at once, whatever the line lengths, so the work is linear by construction.
    for (size_t mib : {1, 15, 60}) {
        const std::string text = vcf_with_header_line(mib << 20);
        MemorySource src(text);
        LineReader lines(src, "long.vcf", "VCF", size_t(64) << 20);
        std::string line;
        size_t n = 0;
        while (lines.next(line)) ++n;
        CHECK_EQ(n, size_t(4));
        // One extra look per chunk at most (a CR at a chunk's end waits for the next byte).
        CHECK(lines.bytes_examined() >= text.size() && lines.bytes_examined() <= text.size() + text.size() / 4096 + 16);
    }
    size_t imported = read_vcf_panel_text(vcf_with_header_line(size_t(15) << 20), "long.vcf", "chr1", kRef).snvs.size();
    CHECK_EQ(imported, size_t(1));
}

TEST(an_over_long_vcf_line_is_refused_with_its_line) {
    const std::string text = vcf_with_header_line(kVcfMaxLine + 10);
    CHECK_THROWS_WITH(read_vcf_panel_text(text, "huge.vcf", "chr1", kRef), "huge.vcf:2:", "the line is longer than 64.0 MiB",
                      "is this a VCF file?");
}

TEST(binary_bytes_and_mac_line_ends_in_a_vcf_are_refused_at_once) {
    std::string nul = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\nchr1\t2\trs1\tC\tG\n";
    nul.insert(nul.find("chr1") + 4, 1, '\0');
    CHECK_THROWS_WITH(read_vcf_panel_text(nul, "nul.vcf", "chr1", kRef), "nul.vcf:3:5: a NUL byte (0x00): this looks like a binary file, not VCF");
    const std::string ctl = "##fileformat=VCFv4.2\n#CHROM\tPOS\x01\tID\n";
    CHECK_THROWS_WITH(read_vcf_panel_text(ctl, "ctl.vcf", "chr1", kRef), "ctl.vcf:2:11: control character 0x01");
    const std::string mac = "##fileformat=VCFv4.2\r#CHROM\tPOS\tID\tREF\tALT\rchr1\t2\trs1\tC\tG\r";
    CHECK_THROWS_WITH(read_vcf_panel_text(mac, "mac.vcf", "chr1", kRef), "mac.vcf:1:21: a carriage return not followed by a line feed");
    const std::string crlf = "##fileformat=VCFv4.2\r\n#CHROM\tPOS\tID\tREF\tALT\r\nchr1\t2\trs1\tC\tG\r\n";
    CHECK_EQ(read_vcf_panel_text(crlf, "crlf.vcf", "chr1", kRef).snvs.size(), size_t(1));
    // /dev/zero never ends: refused at its first byte (a reader that read on would hang here,
    // and CTest's timeout would fail the test).
    CHECK_THROWS_WITH(read_vcf_panel("/dev/zero", "chr1", kRef), "/dev/zero:1:1: a NUL byte");
    FastaEntry e;
    CHECK_THROWS_WITH(FastaReader("/dev/zero").next(e), "/dev/zero:1:1:", "NUL byte");
}

TEST(a_gzip_bomb_is_refused_before_it_fills_memory_and_stores_nothing) {
    // ">bomb\n" then 96 members of 16 MiB of 'A' each: 1.5 GiB from about 1.6 MB.
    const std::string path = temp_path("bomb.fa.gz");
    {
        const std::string member = gzip_member(std::string(size_t(16) << 20, 'A'));
        std::ofstream f(path, std::ios::binary);
        const std::string head = gzip_member(">bomb\n");
        f.write(head.data(), std::streamsize(head.size()));
        for (int i = 0; i < 96; ++i) f.write(member.data(), std::streamsize(member.size()));
    }
    const size_t compressed = storage_test::file_bytes(path).size();
    std::printf("  bomb: %zu bytes compressed, 1.5 GiB inflated\n", compressed);
    CHECK(compressed < size_t(4) << 20);
    auto p = Project::open(temp_path("bomb.carbon"));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(import_fasta(*p, path), "bomb.fa.gz: the gzip data expands more than 200-fold", "decompression bomb");
    std::printf("  refused after %.2f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    CHECK_EQ(p->count("sequences"), int64_t(0));
    // A well-compressed but ordinary file stays readable: 4 MiB of random bases.
    const std::string ok = temp_path("ok.fa.gz");
    {
        std::ofstream f(ok, std::ios::binary);
        const std::string m = gzip_member(">ok\n" + storage_test::design_bases(5, size_t(4) << 20) + "\n");
        f.write(m.data(), std::streamsize(m.size()));
    }
    CHECK_EQ(import_fasta(*p, ok).bases, int64_t(4) << 20);
}

TEST(fasta_headers_and_records_are_bounded_while_streaming) {
    const std::string endless = ">" + std::string(kFastaMaxHeader + 100, 'n');
    FastaEntry e;
    CHECK_THROWS_WITH(FastaReader(endless, "endless.fa").next(e), "endless.fa:1: the header line is longer than 1 MiB");
    CHECK_THROWS_WITH(FastaReader(std::string_view(">ab\0cd\nACGT\n", 12), "nulhead.fa").next(e),
                      "nulhead.fa:1:4: a NUL byte (0x00) in the header");
    // A CR at a chunk boundary before the LF is the CRLF's, not a Mac line end.
    FastaReader crlf(">name desc\r\nACGT\r\n", "crlf.fa", 11);
    CHECK(crlf.next(e));
    CHECK_EQ(e.description, std::string("desc"));
    CHECK_THROWS_WITH(FastaReader(">a\rACGT\rACGT\r", "mac.fa").next(e), "mac.fa:1:3: a carriage return inside the header");
    const std::string text = ">short\nACGTACGT\n>long one\n" + std::string(150, 'A') + "\n";
    FastaReader limited(text, "limited.fa", 7);
    limited.limit_record_bases(100, "the test's limit");
    CHECK(limited.next(e));
    CHECK_THROWS_WITH(limited.next(e), "limited.fa:4:", "record 'long' (line 3) has more than 100 bases: the test's limit");
}

CHECK_MAIN()
