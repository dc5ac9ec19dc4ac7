// GenBank and EMBL reading (flatfile.h): a SnapGene-style GenBank record and the same entry as
// EMBL give the same features (keys, locations in biological order, partial ends, qualifiers
// with multi-line, escaped-quote and flag values); multi-record files; INSDC locations one by one;
// a malformed-input corpus, each refused with its line and what is wrong; unknown feature keys
// kept with a notice; SnapGene- and Benchling-style exports. Biopython's parser is compared on real entries in
// tests/python/test_flatfile_biopython.py.
#include "carbon/storage/flatfile.h"
#include "carbon/support/common.h"
#include "check.h"

using namespace carbon::storage;

namespace {

const char* kGenBank = R"(LOCUS       pTest                    120 bp    DNA     circular SYN 26-NOV-2026
DEFINITION  A test plasmid fragment, with a promoter and a reporter
            over two lines.
ACCESSION   .
VERSION     XX000001.2
KEYWORDS    .
SOURCE      synthetic DNA construct
  ORGANISM  synthetic DNA construct
FEATURES             Location/Qualifiers
     source          1..120
                     /mol_type="other DNA"
                     /organism="synthetic DNA construct"
     promoter        <5..40
                     /label="pTest promoter"
                     /note="a note that runs over
                     two lines, with a ""quoted"" word"
     CDS             join(50..70,
                     80..>100)
                     /gene="rep"
                     /codon_start=1
                     /pseudo
                     /translation="MKVLA
                     AGGT"
     misc_feature    complement(join(10..20,30..35))
                     /note="reverse"
     protein_bind    110^111
     primer_bind     complement(117)
ORIGIN
        1 acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt
       61 acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt
//
)";

const char* kEmbl = R"(ID   XX000001; SV 2; circular; other DNA; SYN; SYN; 120 BP.
XX
AC   XX000001;
XX
DE   A test plasmid fragment, with a promoter and a reporter
DE   over two lines.
XX
FH   Key             Location/Qualifiers
FH
FT   source          1..120
FT                   /mol_type="other DNA"
FT                   /organism="synthetic DNA construct"
FT   promoter        <5..40
FT                   /label="pTest promoter"
FT                   /note="a note that runs over
FT                   two lines, with a ""quoted"" word"
FT   CDS             join(50..70,
FT                   80..>100)
FT                   /gene="rep"
FT                   /codon_start=1
FT                   /pseudo
FT                   /translation="MKVLA
FT                   AGGT"
FT   misc_feature    complement(join(10..20,30..35))
FT                   /note="reverse"
FT   protein_bind    110^111
FT   primer_bind     complement(117)
XX
SQ   Sequence 120 BP; 30 A; 30 C; 30 G; 30 T; 0 other;
     acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt        60
     acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt acgtacgtac gtacgtacgt       120
//
)";

void check_test_record(const FlatRecord& r) {
    CHECK_EQ(r.bases.size(), size_t(120));
    CHECK_EQ(r.bases.substr(0, 8), std::string("ACGTACGT"));
    CHECK(r.circular);
    CHECK_EQ(r.description, std::string("A test plasmid fragment, with a promoter and a reporter over two lines."));
    CHECK_EQ(r.features.size(), size_t(6));
    const Feature& p = r.features[1];
    CHECK_EQ(p.key, std::string("promoter"));
    CHECK(p.parts == (std::vector<LocationPart>{{4, 40, false, true, false}}));
    CHECK_EQ(p.display_label(), std::string("pTest promoter"));
    CHECK_EQ(*p.qualifiers[1].second, std::string("a note that runs over two lines, with a \"quoted\" word"));
    const Feature& cds = r.features[2];
    CHECK_EQ(cds.location, std::string("join(50..70,80..>100)"));
    CHECK(cds.parts == (std::vector<LocationPart>{{49, 70, false, false, false}, {79, 100, false, false, true}}));
    CHECK_EQ(cds.qualifiers.size(), size_t(4));
    CHECK_EQ(*cds.qualifiers[1].second, std::string("1"));
    CHECK(!cds.qualifiers[2].second.has_value());  // /pseudo
    CHECK_EQ(*cds.qualifiers[3].second, std::string("MKVLAAGGT"));  // a translation joins without blanks
    CHECK_EQ(cds.display_label(), std::string("rep"));
    const Feature& rev = r.features[3];
    CHECK(rev.parts == (std::vector<LocationPart>{{29, 35, true, false, false}, {9, 20, true, false, false}}));
    CHECK(r.features[4].parts == (std::vector<LocationPart>{{110, 110, false, false, false}}));
    CHECK(r.features[5].parts == (std::vector<LocationPart>{{116, 117, true, false, false}}));
}

}  // namespace

TEST(genbank_and_embl_give_the_same_record) {
    const FlatFile g = read_flat_text(kGenBank, "test.gb");
    const FlatFile e = read_flat_text(kEmbl, "test.embl");
    CHECK_EQ(g.records.size(), size_t(1));
    CHECK_EQ(e.records.size(), size_t(1));
    check_test_record(g.records[0]);
    check_test_record(e.records[0]);
    CHECK_EQ(g.records[0].name, std::string("pTest"));
    CHECK_EQ(g.records[0].accession, std::string("XX000001.2"));
    CHECK_EQ(e.records[0].name, std::string("XX000001"));
    CHECK_EQ(e.records[0].accession, std::string("XX000001.2"));
    CHECK_EQ(g.records[0].features[2].line, size_t(17));
    CHECK(g.notices.empty());
    CHECK(looks_like_flat_file(kGenBank) && looks_like_flat_file(kEmbl) && !looks_like_flat_file(">seq\nACGT\n"));
}

TEST(multi_record_files_crlf_and_unknown_keys) {
    std::string two = std::string(kGenBank) + "\n" + kEmbl;
    const FlatFile f = read_flat_text(two, "two.txt");
    CHECK_EQ(f.records.size(), size_t(2));
    CHECK_EQ(f.records[1].format, std::string("embl"));
    CHECK_EQ(f.records[1].line, size_t(33));
    std::string crlf;
    for (char c : std::string(kGenBank)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    check_test_record(read_flat_text(crlf, "crlf.gb").records[0]);
    // A key outside the INSDC table (as some exporters write) is kept, with a notice naming its line.
    std::string custom = kGenBank;
    custom.replace(custom.find("     protein_bind"), 17, "     my_feature  ");
    const FlatFile c = read_flat_text(custom, "custom.gb");
    CHECK_EQ(c.records[0].features[4].key, std::string("my_feature"));
    CHECK_EQ(c.notices.size(), size_t(1));
    CHECK(c.notices[0].find("custom.gb:26: feature key 'my_feature'") != std::string::npos);
}

// Exports of plasmid editors: SnapGene ("ds-DNA", a name it chose, /label and colour notes),
// Benchling (ApE colour qualifiers, a long name), both circular with a feature across the origin.
TEST(plasmid_editor_exports) {
    const char* snapgene = R"(LOCUS       Exported                  24 bp ds-DNA     circular SYN 26-NOV-2026
DEFINITION  synthetic circular DNA
ACCESSION   .
VERSION     .
KEYWORDS    pTest-mini
SOURCE      synthetic DNA construct
  ORGANISM  synthetic DNA construct
REFERENCE   1  (bases 1 to 24)
  AUTHORS   .
  TITLE     Direct Submission
FEATURES             Location/Qualifiers
     source          1..24
                     /organism="synthetic DNA construct"
                     /lab_host="Escherichia coli"
                     /mol_type="other DNA"
     primer_bind     join(20..24,1..3)
                     /label=M13 fwd
                     /note="color: #a020f0; sequence: GTAAAACG"
     promoter        complement(5..15)
                     /label="lac promoter"
                     /note="color: #ffffff; direction: LEFT"
ORIGIN
        1 gtaaaacgac ggccagtgaa ttcg
//
)";
    const FlatRecord r = read_flat_text(snapgene, "snapgene.gb").records[0];
    CHECK_EQ(r.name, std::string("Exported"));
    CHECK(r.circular);
    CHECK_EQ(r.bases.size(), size_t(24));
    CHECK(r.features[1].parts == (std::vector<LocationPart>{{19, 24}, {0, 3}}));  // across the origin
    CHECK_EQ(r.features[1].display_label(), std::string("M13 fwd"));  // an unquoted label
    CHECK(r.features[2].parts == (std::vector<LocationPart>{{4, 15, true}}));
    const char* benchling = R"(LOCUS       pUC19_with_a_long_name_from_benchling 24 bp DNA circular 04-MAR-2021
DEFINITION  .
FEATURES             Location/Qualifiers
     misc_feature    2..10
                     /label="insert"
                     /ApEinfo_fwdcolor="#85dae9"
                     /ApEinfo_revcolor="#85dae9"
                     /ApEinfo_graphicformat="arrow_data {{0 1 2 0 0 -1} {} 0}
                     width 5 offset 0"
ORIGIN
        1 gtaaaacgac ggccagtgaa ttcg
//
)";
    const FlatRecord b = read_flat_text(benchling, "benchling.gb").records[0];
    CHECK_EQ(b.name, std::string("pUC19_with_a_long_name_from_benchling"));
    CHECK_EQ(b.description, std::string());
    CHECK_EQ(b.features[0].qualifiers.size(), size_t(4));
    CHECK_EQ(*b.features[0].qualifiers[3].second, std::string("arrow_data {{0 1 2 0 0 -1} {} 0} width 5 offset 0"));
}

TEST(insdc_locations) {
    auto parts = [](const char* loc) { return parse_insdc_location(loc, 1000, "here").parts; };
    CHECK(parts("5") == (std::vector<LocationPart>{{4, 5}}));
    CHECK(parts("order(1..2,5..6)") == (std::vector<LocationPart>{{0, 2}, {4, 6}}));
    CHECK(parts("join(complement(20..30),complement(1..10))") ==
          (std::vector<LocationPart>{{19, 30, true}, {0, 10, true}}));
    CHECK(parts("1000^1") == (std::vector<LocationPart>{{1000, 1000}}));  // across a circular origin
    const ParsedLocation remote = parse_insdc_location("join(Z84723.1:8698..9294,5..6)", 1000, "here");
    CHECK(remote.remote);
    CHECK(remote.parts == (std::vector<LocationPart>{{4, 6}}));
    CHECK(parse_insdc_location("AB000001.1:1..5", 10, "here").parts.empty());
    struct Bad {
        const char* loc;
        const char* why;
    };
    for (const Bad& b : {Bad{"", "empty"}, Bad{"1..1001", "past the end of the 1000 bp"}, Bad{"20..10", "ends before it starts"},
                         Bad{"join(1..5", "expected ')'"}, Bad{"join(1..5,)", "expected a position"}, Bad{"0..5", "start at 1"},
                         Bad{"complement(5..10))", "unexpected ')'"}, Bad{"(1.5)..10", "not supported"},
                         Bad{"1.5", "not supported"}, Bad{"5^7", "adjacent"}, Bad{"bond(1,5)", "expected a position"},
                         Bad{"1..5x", "unexpected 'x'"}})
        CHECK_THROWS_WITH(parse_insdc_location(b.loc, 1000, "f.gb:12: feature CDS"), "f.gb:12: feature CDS",
                          "malformed location", b.why);
}

// The malformed corpus: each file refused with its line and the reason; nothing is returned.
TEST(malformed_files_are_refused_with_their_line) {
    struct Case {
        std::string text;
        std::vector<const char*> expect;
    };
    std::string g = kGenBank;
    auto with = [&](const std::string& from, const std::string& to) {
        std::string t = g;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    const std::vector<Case> cases = {
        {with("<5..40", "<5..400"), {"bad.gb:13: feature promoter", "past the end of the 120 bp"}},
        {with("                     80..>100)", "                     80..>100"), {"bad.gb:17: feature CDS", "expected ')'"}},
        {with("120 bp", "121 bp"), {"bad.gb:1:", "declares 121 bp", "holds 120"}},
        {with("120 bp", "40 aa"), {"bad.gb:1:", "protein"}},
        {with("       61 acgtacgtac", "       61 acgtacgtaj"), {"bad.gb:30:", "'j' (column 20)", "not an IUPAC nucleotide code"}},
        {with("two lines, with a \"\"quoted\"\" word\"", "two lines"), {"bad.gb:19:", "text after the closing quote of /note"}},
        {with("     primer_bind     complement(117)\n", "     primer_bind     complement(117)\n                     /note=\"open\n"),
         {"bad.gb:29:", "/note (feature primer_bind at line 27) is not closed"}},
        {with("//\n", ""), {"ends without its // line"}},
        {with("ORIGIN\n", "BASE COUNT\n").substr(0, g.find("ORIGIN")) + "//\n", {"bad.gb:1:", "no sequence"}},
        {"hello\nworld\n", {"bad.gb:2:", "no GenBank (LOCUS) or EMBL (ID) record"}},
        {g + "garbage after the record\n", {"bad.gb:32:", "expected LOCUS or ID"}},
        {with("                     /pseudo", "                     /"), {"bad.gb:21:", "a qualifier without a name"}},
        {with("LOCUS       pTest", "LOCUS"), {"bad.gb:1:", "names no entry"}},
    };
    for (const Case& c : cases) {
        bool threw = false;
        try {
            read_flat_text(c.text, "bad.gb");
        } catch (const carbon::Error& e) {
            threw = true;
            const std::string m = e.what();
            for (const char* x : c.expect)
                if (m.find(x) == std::string::npos) {
                    std::fprintf(stderr, "  message '%s' lacks '%s'\n", m.c_str(), x);
                    CHECK(false);
                }
        }
        if (!threw) std::fprintf(stderr, "  not refused: expected %s\n", c.expect[0]);
        CHECK(threw);
    }
}

CHECK_MAIN()
