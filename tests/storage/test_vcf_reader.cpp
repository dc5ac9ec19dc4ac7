// VcfReader over text: records through htslib's parser (multi-allelic, '.' ALT, IDs, symbolic
// alleles and breakends kept as written, samples ignored), blank lines, regions by POS while
// streaming, the region-list parser's refusals, and a BCF record checked as a text line is.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "check.h"
#include "hts_files.h"

using namespace carbon;
using namespace carbon::storage;

namespace {

const char* kVcf =
    "##fileformat=VCFv4.3\n"
    "##contig=<ID=chr1,length=1000>\n"
    "##INFO=<ID=BAD,Number=,Type=Nonsense>\n"  // an INFO line htslib would reject: never parsed
    "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\tS2\n"
    "chr1\t5\trs1\tA\tC,G\t.\tPASS\tX=1\tGT\t0/1\t1/1\n"
    "\n"
    "chr1\t10\t.\tact\tA\t.\t.\t.\n"
    "chr2\t3\tid3\tG\t<DEL>,G[chr1:5[,*\n"
    "chr2\t8\t.\tT\t.\n";

std::vector<VcfRecord> all(VcfReader& r) {
    std::vector<VcfRecord> out;
    VcfRecord rec;
    while (r.next(rec)) out.push_back(rec);
    return out;
}

}  // namespace

TEST(records_come_through_htslib_with_their_lines) {
    VcfReader r(kVcf, "t.vcf");
    const auto v = all(r);
    CHECK_EQ(v.size(), size_t(4));
    CHECK_EQ(v[0].chrom, std::string("chr1"));
    CHECK_EQ(v[0].pos, int64_t(4));
    CHECK_EQ(v[0].id, std::string("rs1"));
    CHECK_EQ(v[0].alts.size(), size_t(2));
    CHECK_EQ(v[0].alts[1], std::string("G"));
    CHECK_EQ(v[0].where, std::string("t.vcf:5"));
    CHECK_EQ(v[1].ref, std::string("ACT"));  // upper-cased
    CHECK_EQ(v[1].id, std::string(""));
    CHECK_EQ(v[1].where, std::string("t.vcf:7"));  // the blank line is counted
    CHECK_EQ(v[2].chrom, std::string("chr2"));     // not in the header: still read
    CHECK_EQ(v[2].alts.size(), size_t(3));
    CHECK_EQ(v[2].alts[0], std::string("<DEL>"));
    CHECK_EQ(v[2].alts[1], std::string("G[chr1:5["));
    CHECK_EQ(v[2].alts[2], std::string("*"));
    CHECK(v[3].alts.empty());  // '.' is no alternative
}

TEST(regions_select_by_pos_while_streaming) {
    char path[] = "/tmp/carbon-vcf-XXXXXX";
    const int fd = ::mkstemp(path);
    CHECK(fd >= 0);
    const std::string text(kVcf);
    CHECK_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
    ::close(fd);
    const auto g = parse_vcf_regions("chr1:6-10,chr2");
    CHECK_EQ(g.size(), size_t(2));
    CHECK_EQ(g[0].begin, int64_t(5));
    CHECK_EQ(g[0].end, int64_t(10));
    CHECK_EQ(g[1].contig, std::string("chr2"));
    CHECK_EQ(g[1].end, INT64_MAX);
    VcfReader r(path, g);  // plain text has no index: read past the rest
    const auto v = all(r);
    ::unlink(path);
    CHECK(!r.uses_index());
    CHECK_EQ(v.size(), size_t(3));  // chr1:10 and both chr2 records; chr1:5 is outside
    CHECK_EQ(v[0].pos, int64_t(9));
    CHECK_EQ(v[2].chrom, std::string("chr2"));
    const auto one = parse_vcf_regions("{HLA-A*01:01}:5-9,{HLA-B*07:02},chrUn_KI270302v1:x");  // ':' in contig names
    CHECK_EQ(one.size(), size_t(3));
    CHECK_EQ(one[0].contig, std::string("HLA-A*01:01"));
    CHECK_EQ(one[0].begin, int64_t(4));
    CHECK_EQ(one[1].contig, std::string("HLA-B*07:02"));
    CHECK_EQ(one[1].end, INT64_MAX);
    CHECK_EQ(one[2].contig, std::string("chrUn_KI270302v1:x"));
    const auto pos = parse_vcf_regions("chrM:7");
    CHECK_EQ(pos[0].begin, int64_t(6));
    CHECK_EQ(pos[0].end, int64_t(7));
    const auto open = parse_vcf_regions("chr3:100-");
    CHECK_EQ(open[0].end, INT64_MAX);
}

TEST(region_lists_that_are_not_regions_are_refused) {
    CHECK_THROWS_WITH(parse_vcf_regions(""), "region '' is not CONTIG", "it is empty");
    CHECK_THROWS_WITH(parse_vcf_regions("chr1:5-2"), "FROM is after TO");
    CHECK_THROWS_WITH(parse_vcf_regions("chr1:0-5"), "positions start at 1");
    CHECK_THROWS_WITH(parse_vcf_regions("chr1:1-2,,chr2"), "it is empty");
    CHECK_THROWS_WITH(parse_vcf_regions(":1-2"), "no contig name");
    CHECK_THROWS_WITH(parse_vcf_regions("{chr1:1-2"), "'{' without '}'");
    CHECK_THROWS_WITH(parse_vcf_regions("{chr1}5"), "expected ':' after '}'");
    CHECK_THROWS_WITH(parse_vcf_regions("chr1:99999999999999999-"), "is not a position");
}

TEST(an_empty_chrom_is_refused_with_its_line) {
    const std::string bad = std::string("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n\t5\t.\tA\tC\n");
    VcfReader r(bad, "b.vcf");
    VcfRecord rec;
    CHECK_THROWS_WITH(r.next(rec), "b.vcf:3: CHROM is empty");
}

// A BCF's records come from htslib's decoder: the checks a text line gets are made on them too.
TEST(a_bcf_record_is_checked_as_a_text_line_is) {
    const auto dir = std::filesystem::temp_directory_path() / ("carbon-vcf-reader-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string bcf = (dir / "bad.bcf").string();
    // htslib takes REF XYZ as written.
    CHECK(storage_test::write_vcf_as("##fileformat=VCFv4.2\n##contig=<ID=chr1>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                                     "chr1\t5\t.\tA\tC\t.\t.\t.\nchr1\t9\t.\tXYZ\tA\t.\t.\t.\n",
                                     bcf, "wb"));
    VcfReader r(bcf);
    CHECK(r.is_bcf());
    VcfRecord got;
    CHECK(r.next(got) && got.ref == "A");
    CHECK_THROWS_WITH(r.next(got), "bad.bcf: record 2: REF 'XYZ' is not a sequence of bases A, C, G, T, N");
    std::filesystem::remove_all(dir);
}

CHECK_MAIN()
