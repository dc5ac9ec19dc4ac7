// Sequence names are not unique in a project (issue 15, class 6): a lookup by name never picks
// one of several silently. find_sequence and import_vcf by name refuse an ambiguous name with
// every candidate's id; by id they take exactly the one meant.
#include <fstream>

#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::temp_path;

namespace {

int64_t add(Project& p, const std::string& name, const std::string& bases, const std::string& origin) {
    SequenceRecord s;
    s.name = name;
    s.bases = bases;
    s.origin = origin;
    return p.add_sequence(s);
}

}  // namespace

TEST(an_ambiguous_name_lists_every_candidate) {
    auto p = Project::open(temp_path("names.carbon"));
    const int64_t a = add(*p, "chr1", "ACGTACGTAC", "panel.fa:1");
    const int64_t b = add(*p, "chr1", "TTTTGGGG", "carbon-cli score");
    add(*p, "chr2", "ACGT", "typed");
    CHECK_EQ(p->find_sequences("chr1").size(), size_t(2));
    CHECK_EQ(p->find_sequences("chr1")[1].id, b);
    CHECK_THROWS_WITH(p->find_sequence("chr1"), "names.carbon: 2 sequences are named 'chr1'", "id 1 (10 bp, from panel.fa:1)",
                      "id 2 (8 bp, from carbon-cli score)", "choose one by its id");
    CHECK_EQ(p->find_sequence("chr2")->bases, std::string("ACGT"));
    CHECK(!p->find_sequence("chr3").has_value());
    CHECK(a != b);
}

TEST(vcf_import_by_an_ambiguous_name_stores_nothing_and_by_id_the_one_meant) {
    auto p = Project::open(temp_path("vcf_names.carbon"));
    add(*p, "chr1", "ACGTACGTAC", "a.fa:1");
    const int64_t second = add(*p, "chr1", "TTTTGGGGCC", "b.fa:1");
    const std::string vcf = temp_path("names.vcf");
    std::ofstream(vcf) << "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\nchr1\t1\trs1\tT\tC\n";
    CHECK_THROWS_WITH(import_vcf(*p, vcf, std::string("chr1")), "2 sequences are named 'chr1'", "id 1", "id 2");
    CHECK_EQ(p->count("variants"), int64_t(0));
    const VcfImportResult r = import_vcf(*p, vcf, second);  // REF T matches the second one only
    CHECK_EQ(r.imported, size_t(1));
    CHECK_EQ(p->variants_of_sequence(second).size(), size_t(1));
    CHECK_EQ(p->variants_of_sequence(1).size(), size_t(0));
    CHECK_THROWS_WITH(import_vcf(*p, vcf, int64_t(99)), "no sequence with id 99");
}

CHECK_MAIN()
