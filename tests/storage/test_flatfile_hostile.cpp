// Issue 31, class 3: every record of an annotated file is stored or the file is refused. The
// corpus: first records whose LOCUS / ID line carries a byte-order mark, a tab, a leading blank or
// lower case (read, or refused with the line: never skipped as a release header while the next
// record is stored), an EMBL ID without a name, a site 0^1, U in a sequence, Latin-1 in a
// qualifier, a truncated gzip (FILE:LINE), and the import's streaming: records reach the project
// one at a time, and a bad record later in the file leaves nothing stored.
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "carbon/support/common.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
namespace fs = std::filesystem;

namespace {

std::string genbank(const std::string& locus_line, const std::string& name, const std::string& bases = "acgtacgtac",
                    const std::string& extra_features = "") {
    return locus_line + "\n"
                        "DEFINITION  record " +
           name +
           ".\n"
           "FEATURES             Location/Qualifiers\n"
           "     misc_feature    1..5\n"
           "                     /note=\"a note\"\n" +
           extra_features +
           "ORIGIN\n"
           "        1 " +
           bases + "\n//\n";
}

std::string locus(const std::string& name, size_t n = 10) {
    return "LOCUS       " + name + "                  " + std::to_string(n) + " bp    DNA     linear   SYN 01-JAN-2020";
}

const std::string kSecond = genbank(locus("second"), "second");

std::vector<std::string> names(const FlatFile& f) {
    std::vector<std::string> out;
    for (const auto& r : f.records) out.push_back(r.name);
    return out;
}

bool has_notice(const FlatFile& f, const std::string& needle) {
    for (const auto& n : f.notices)
        if (n.find(needle) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(a_byte_order_mark_or_a_tab_does_not_lose_the_first_record) {
    const FlatFile bom = read_flat_text("\xEF\xBB\xBF" + genbank(locus("first"), "first") + kSecond, "bom.gb");
    CHECK(names(bom) == (std::vector<std::string>{"first", "second"}));
    const FlatFile tab = read_flat_text(genbank("LOCUS\tfirst\t10 bp\tDNA\tlinear", "first") + kSecond, "tab.gb");
    CHECK(names(tab) == (std::vector<std::string>{"first", "second"}));
    const std::string embl = "ID\tfirst; SV 1; linear; genomic DNA; STD; SYN; 10 BP.\nXX\nSQ   Sequence 10 BP;\n     acgtacgtac 10\n//\n";
    CHECK(names(read_flat_text(embl, "tab.embl")) == (std::vector<std::string>{"first"}));
}

TEST(a_first_record_line_not_written_as_one_is_refused_with_its_line) {
    CHECK_THROWS_WITH(read_flat_text(" " + genbank(locus("first"), "first") + kSecond, "space.gb"), "space.gb:1:",
                      "looks like the first line of a record", "its record would be lost");
    std::string lower = genbank(locus("first"), "first");
    lower.replace(0, 5, "locus");
    CHECK_THROWS_WITH(read_flat_text(lower + kSecond, "lower.gb"), "lower.gb:1:", "looks like the first line of a record");
    CHECK_THROWS_WITH(read_flat_text("id   x; SV 1; linear; DNA; STD; SYN; 10 BP.\n" + kSecond, "lower.embl"), "lower.embl:1:");
    // A release header before the first record is still read past, as NCBI's division files need.
    const FlatFile release = read_flat_text("GBSYN1.SEQ          Genetic Sequence Data Bank\n\n" + kSecond, "gbsyn1.seq");
    CHECK(names(release) == (std::vector<std::string>{"second"}));
}

TEST(an_embl_id_without_a_name_is_refused) {
    CHECK_THROWS_WITH(read_flat_text("ID   ; SV 1; linear; genomic DNA; STD; SYN; 10 BP.\nSQ   Sequence 10 BP;\n     acgtacgtac 10\n//\n",
                                     "noname.embl"),
                      "noname.embl:1:", "names no entry");
}

TEST(a_site_before_position_1_is_refused) {
    CHECK_THROWS_WITH(read_flat_text(genbank(locus("s"), "s", "acgtacgtac", "     misc_feature    0^1\n"), "site.gb"), "site.gb:",
                      "positions start at 1");
    const FlatFile ok = read_flat_text(genbank(locus("s"), "s", "acgtacgtac", "     misc_feature    10^1\n"), "site.gb");
    CHECK_EQ(ok.records.at(0).features.size(), size_t(2));  // n^1 on a circular-style wrap is still a site
}

TEST(u_is_read_as_t_and_said) {
    const FlatFile f = read_flat_text(genbank(locus("rna"), "rna", "acguacguac"), "rna.gb");
    CHECK_EQ(f.records.at(0).bases, std::string("ACGTACGTAC"));
    CHECK(has_notice(f, "rna.gb:1: record rna: 2 U (RNA) in its sequence, read as T"));
}

TEST(latin1_text_is_read_as_latin1_and_said) {
    const FlatFile f = read_flat_text(genbank(locus("l1"), "l1", "acgtacgtac", "     misc_feature    2..4\n                     /note=\"caf\xe9\"\n"),
                                      "latin1.gb");
    const auto& q = f.records.at(0).features.at(1).qualifiers;
    CHECK_EQ(q.at(0).second.value_or(""), std::string("caf\xc3\xa9"));
    CHECK(has_notice(f, "/note of feature misc_feature is not UTF-8: read as Latin-1"));
}

TEST(a_truncated_gzip_is_refused_with_file_and_line) {
    std::string text;
    for (int i = 0; i < 400; ++i) text += genbank(locus("r" + std::to_string(i)), "r" + std::to_string(i));
    uLongf packed_size = compressBound(uLong(text.size())) + 64;
    std::string packed(packed_size, '\0');
    // A gzip member (windowBits 31) through deflate, then cut in the middle.
    z_stream z{};
    CHECK_EQ(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(text.data());
    z.avail_in = uInt(text.size());
    z.next_out = reinterpret_cast<Bytef*>(packed.data());
    z.avail_out = uInt(packed.size());
    CHECK_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    packed.resize(z.total_out);
    deflateEnd(&z);
    const std::string path = storage_test::temp_path("truncated.gb.gz");
    std::ofstream(path, std::ios::binary) << packed.substr(0, packed.size() / 2);
    CHECK_THROWS_WITH(read_flat_file(path), "truncated.gb.gz:", "truncated or damaged", "whole lines)");
}

TEST(the_import_streams_records_and_a_bad_one_later_stores_nothing) {
    // Records reach the sink one at a time, before the file ends.
    const std::string path = storage_test::temp_path("stream.gb");
    {
        std::ofstream f(path);
        f << genbank(locus("one"), "one") << genbank(locus("two"), "two") << "LOCUS       three       10 bp    DNA\nORIGIN\n";
    }
    std::vector<std::string> seen;
    CHECK_THROWS_WITH(read_flat_records(path, [&](FlatRecord&& r) { seen.push_back(r.name); }), "stream.gb:", "ends without its // line");
    CHECK(seen == (std::vector<std::string>{"one", "two"}));
    // The import stores all or nothing.
    const std::string project_path = storage_test::temp_path("stream.carbon");
    fs::remove(project_path);
    auto p = Project::open(project_path);
    CHECK_THROWS_WITH(import_flat_file(*p, path), "stream.gb:");
    CHECK(p->list_sequences().empty());
    // A record past the limit is refused as it is read.
    CHECK_THROWS_WITH(read_flat_records(path, [](FlatRecord&&) {}, 5, "a test limit"), "stream.gb:", "record one holds more than 5 bases: a test limit");
}

CHECK_MAIN()
