// The restriction enzyme table and search (enzymes.h): the compiled-in table (REBASE's commercially
// available enzymes), cuts of hand-checked cases (EcoRI, BsaI on both strands, a two-cut enzyme,
// cuts outside a linear molecule left out, N), sites on both strands, names and motifs told apart
// with a suggestion for a mistyped case, and every malformed table refused with its line.
// (Every enzyme against Biopython: tests/python/test_enzymes_biopython.py.)
#include "carbon/motifs/enzymes.h"

#include <string>
#include <vector>

#include "check.h"

using namespace carbon;

TEST(the_builtin_table_holds_the_commercial_enzymes) {
    const EnzymeTable& t = EnzymeTable::builtin();
    CHECK_EQ(t.enzymes().size(), size_t(623));
    const Enzyme* e = t.find("EcoRI");
    CHECK(e && e->site == "GAATTC" && e->fst5 == 1 && e->ovhg == -4 && e->palindromic);
    const Enzyme* b = t.find("BsaI");
    CHECK(b && b->site == "GGTCTC" && b->fst5 == 7 && b->fst3 == 5 && !b->palindromic && b->suppliers == "N");
    CHECK(t.find("ecori") == nullptr);
    const Enzyme* bae = t.find("BaeI");
    CHECK(bae && bae->scd5 && bae->scd3);
}

TEST(cuts_as_bio_restriction_reports_them) {
    const EnzymeTable& t = EnzymeTable::builtin();
    const Enzyme& eco = *t.find("EcoRI");
    // Bio.Restriction's own example: the site at 10, the cut after its G.
    CHECK(enzyme_cuts(eco, "GAATACACGGAATTCGA") == std::vector<int64_t>{11});
    CHECK(enzyme_cuts(eco, "gaatacacggaattcga") == std::vector<int64_t>{11});
    // At the very start: the cut after base 1 is inside the molecule on both strands.
    CHECK(enzyme_cuts(eco, "GAATTCAAA") == std::vector<int64_t>{2});
    CHECK(enzyme_cuts(eco, "AGAATTCAAA") == std::vector<int64_t>{3});
    const Enzyme& bsa = *t.find("BsaI");
    // Top strand: GGTCTC at 1-based 3 cuts at 3 + 7 = 10; bottom strand (GAGACC) at 20 cuts at 20 - 5 = 15.
    const std::string s = "AAGGTCTCAAAAAAAAAAAGAGACCAAAAAAAAAA";
    CHECK(enzyme_cuts(bsa, s) == (std::vector<int64_t>{10, 15}));
    const auto sites = enzyme_sites(bsa, s);
    CHECK_EQ(sites.size(), size_t(2));
    CHECK(sites[0].start == 2 && !sites[0].reverse && sites[1].start == 19 && sites[1].reverse);
    // A cut past the end of a linear molecule is not reported; the site still is.
    CHECK(enzyme_cuts(bsa, "AAGGTCTCAA").empty());
    CHECK_EQ(enzyme_sites(bsa, "AAGGTCTCAA").size(), size_t(1));
    // N in the sequence matches only N of a site.
    CHECK(enzyme_cuts(eco, "AGANTTCAAA").empty());
    const Enzyme& hinf = *t.find("HinfI");  // GANTC
    CHECK(enzyme_cuts(hinf, "AAGAATCAA") == std::vector<int64_t>{4});
    CHECK(enzyme_cuts(hinf, "AAGANTCAA") == std::vector<int64_t>{4});
}

TEST(names_and_motifs_are_told_apart) {
    const EnzymeTable& t = EnzymeTable::builtin();
    CHECK(t.site_or_motif("EcoRI") == "GAATTC");
    CHECK(t.site_or_motif("gaattc") == "GAATTC");
    CHECK(t.site_or_motif("GGWCC") == "GGWCC");
    CHECK_THROWS_WITH(t.site_or_motif("ecori"), "'ecori'", "did you mean EcoRI?");
    CHECK_THROWS_WITH(t.site_or_motif("BSAI"), "'BSAI'", "did you mean BsaI?");  // all capitals: still a name
    CHECK_THROWS_WITH(t.site_or_motif("GAZ"), "'Z' at position 3");
    CHECK_THROWS_WITH(t.site_or_motif("EcoRl"), "'EcoRl' is neither a DNA motif", "623 enzymes");
    CHECK_THROWS_WITH(t.site_or_motif(""), "neither");
}

TEST(a_malformed_table_is_refused_with_its_line) {
    const std::string header = "# comment\nname\tsite\tfst5\tfst3\tscd5\tscd3\tovhg\tsuppliers\n";
    CHECK_EQ(EnzymeTable::parse(header + "X1I\tGAATTC\t1\t-1\t.\t.\t-4\tN\n", "t.tsv").enzymes().size(), size_t(1));
    CHECK_THROWS_WITH(EnzymeTable::parse("name\tsite\n", "t.tsv"), "t.tsv:1", "header");
    CHECK_THROWS_WITH(EnzymeTable::parse("# only comments\n", "t.tsv"), "t.tsv", "no header");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAATTC\t1\t-1\t.\t.\t-4\n", "t.tsv"), "t.tsv:3", "7 columns");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAAXTC\t1\t-1\t.\t.\t-4\tN\n", "t.tsv"), "t.tsv:3", "X1I's site 'GAAXTC'");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tgaattc\t1\t-1\t.\t.\t-4\tN\n", "t.tsv"), "t.tsv:3", "upper-case IUPAC");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAATTC\tone\t-1\t.\t.\t-4\tN\n", "t.tsv"), "t.tsv:3", "fst5 'one'");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAATTC\t1\t-1\t.\t.\t99999\tN\n", "t.tsv"), "t.tsv:3", "ovhg");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAATTC\t1\t-1\t3\t.\t-4\tN\n", "t.tsv"), "t.tsv:3", "one strand only");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X 1\tGAATTC\t1\t-1\t.\t.\t-4\tN\n", "t.tsv"), "t.tsv:3", "name 'X 1'");
    CHECK_THROWS_WITH(EnzymeTable::parse(header + "X1I\tGAATTC\t1\t-1\t.\t.\t-4\tN\nX1I\tGAATTC\t1\t-1\t.\t.\t-4\tN\n", "t.tsv"),
                      "X1I appears twice");
}

CHECK_MAIN()
