// Import/export tests: the FASTA reader on awkward but valid input (CRLF, blank lines, empty
// names, soft-masking, IUPAC, gzip, every chunk boundary), the malformed-input corpus
// (tests/storage/data/bad/expected.tsv: each file's specific message), all-or-nothing imports,
// the VCF panel import, and the exporters' shapes. Python re-parses the outputs independently.
#include <fstream>
#include <sstream>

#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;

namespace {

const std::string kData = CARBON_STORAGE_TEST_DATA;

std::vector<FastaEntry> read_all(FastaReader& r) {
    std::vector<FastaEntry> out;
    FastaEntry e;
    while (r.next(e)) out.push_back(e);
    return out;
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST(fasta_reader_accepts_awkward_valid_files) {
    FastaReader r(kData + "/good/mixed.fa");
    const auto recs = read_all(r);
    CHECK_EQ(recs.size(), size_t(4));
    CHECK_EQ(recs[0].name, std::string("seq1"));
    CHECK_EQ(recs[0].description, std::string("first record"));
    CHECK_EQ(recs[0].bases, std::string("ACGTACGTACGTACGT"));
    CHECK_EQ(recs[1].bases, std::string("acgtnnRYKMSWBDHV"));
    CHECK_EQ(recs[1].line, size_t(5));
    CHECK_EQ(recs[2].name, std::string(""));
    CHECK_EQ(recs[2].bases, std::string("ACGT"));
    CHECK_EQ(recs[3].name, std::string("spaced"));
    CHECK_EQ(recs[3].description, std::string("name with  blanks"));
    CHECK_EQ(recs[3].bases, std::string("ACGTAC"));
    FastaReader gz(kData + "/good/mixed.fa.gz");
    const auto grecs = read_all(gz);
    CHECK_EQ(grecs.size(), recs.size());
    for (size_t i = 0; i < recs.size() && i < grecs.size(); ++i) CHECK_EQ(grecs[i].bases, recs[i].bases);
    // Every chunk size puts a boundary inside CRLF pairs, headers and runs of bases.
    const std::string text = slurp(kData + "/good/mixed.fa");
    for (size_t chunk = 1; chunk <= 40; ++chunk) {
        FastaReader m(text, "mem.fa", chunk);
        const auto mrecs = read_all(m);
        CHECK_EQ(mrecs.size(), recs.size());
        for (size_t i = 0; i < recs.size() && i < mrecs.size(); ++i) {
            CHECK_EQ(mrecs[i].bases, recs[i].bases);
            CHECK_EQ(mrecs[i].description, recs[i].description);
        }
    }
    FastaReader last(">only header, no newline", "h.fa");
    const auto lrecs = read_all(last);
    CHECK_EQ(lrecs.size(), size_t(1));
    CHECK_EQ(lrecs[0].name, std::string("only"));
}

TEST(malformed_corpus_gives_each_files_specific_message) {
    std::ifstream manifest(kData + "/bad/expected.tsv");
    std::string line;
    int cases = 0;
    const std::string project_path = storage_test::temp_path("corpus.carbon");
    auto p = Project::open(project_path);
    SequenceRecord s;
    s.name = "seq1";
    s.bases = "ACGTACGTACGT";
    p->add_sequence(s);
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t tab = line.find('\t');
        const std::string file = kData + "/bad/" + line.substr(0, tab), want = line.substr(tab + 1);
        ++cases;
        const bool vcf = file.size() > 4 && file.substr(file.size() - 4) == ".vcf";
        if (vcf) {
            CHECK_THROWS_WITH(import_vcf(*p, file, "seq1"), want.c_str());
        } else {
            CHECK_THROWS_WITH(import_fasta(*p, file), want.c_str());
        }
    }
    CHECK(cases >= 20);
    CHECK_EQ(p->count("sequences"), int64_t(1));  // nothing stored from any failed file
    CHECK_EQ(p->count("variants"), int64_t(0));
}

TEST(failed_import_stores_nothing_even_after_good_records) {
    const std::string bad = storage_test::temp_path("late_error.fa");
    {
        std::ofstream f(bad);
        for (int i = 0; i < 50; ++i) f << ">r" << i << "\n" << storage_test::design_bases(i, 500) << "\n";
        f << ">broken\nACGT!\n";
    }
    auto p = Project::open(storage_test::temp_path("late.carbon"));
    CHECK_THROWS_WITH(import_fasta(*p, bad), "late_error.fa:102:5: '!' is not an IUPAC nucleotide code");
    CHECK_EQ(p->count("sequences"), int64_t(0));
    const auto ok = import_fasta(*p, kData + "/good/mixed.fa.gz");
    CHECK_EQ(ok.sequence_ids.size(), size_t(4));
    CHECK_EQ(ok.unnamed, size_t(1));
    CHECK(p->find_sequence("record_3").has_value());
    CHECK_EQ(p->find_sequence("seq2")->origin, std::string("mixed.fa.gz:5"));
}

TEST(vcf_panel_imports_snvs_and_reports_the_rest) {
    auto p = Project::open(storage_test::temp_path("vcf.carbon"));
    import_fasta(*p, kData + "/good/mixed.fa");
    const auto r = import_vcf(*p, kData + "/good/panel.vcf", "seq1");
    CHECK_EQ(r.imported, size_t(4));
    CHECK_EQ(r.skipped.size(), size_t(4));
    const auto seq = p->find_sequence("seq1");
    const auto vs = p->variants_of_sequence(seq->id);
    CHECK_EQ(vs.size(), size_t(4));
    CHECK_EQ(vs[0].label, std::string("rs1"));
    CHECK_EQ(vs[0].position, int64_t(0));
    CHECK_EQ(vs[3].ref, 'C');
    CHECK_EQ(vs[3].alt, 'T');
    bool indel = false, chrom = false, mismatch = false;
    for (const auto& s : r.skipped) {
        indel |= s.find("panel.vcf:6: T>TA is not a single-base substitution") != std::string::npos;
        chrom |= s.find("panel.vcf:7: CHROM 'seq2' is not the sequence 'seq1'") != std::string::npos;
        mismatch |= s.find("panel.vcf:10: REF T does not match 'seq1' at 2, which is C") != std::string::npos;
    }
    CHECK(indel);
    CHECK(chrom);
    CHECK(mismatch);
    CHECK_THROWS_WITH(import_vcf(*p, kData + "/good/panel.vcf", "nope"), "no sequence named 'nope'");
}

TEST(exports_have_the_expected_shape) {
    auto p = Project::open(storage_test::temp_path("export.carbon"));
    Run run;
    run.kind = "generate";
    run.seed = 11;
    run.settings = {{"tags", "<human> promoter"}, {"temperature", "0.7"}};
    const int64_t run_id = p->begin_run(run);
    DesignRecord d;
    d.run_id = run_id;
    d.name = "design_1";
    d.bases = storage_test::design_bases(5, 130);
    d.rank = 1;
    d.design_logp = -1.3;
    Region pinned;
    pinned.kind = RegionKind::Pinned;
    pinned.start = 10;
    pinned.end = 16;
    pinned.label = "TATAAA";
    auto tracks = storage_test::design_tracks(5, 130);
    tracks[0].values[3] = NAN;
    const int64_t id = p->add_design(d, tracks, {pinned});
    std::ostringstream fa, bg, wig, gb;
    export_designs_fasta(*p, fa, {}, 60);
    CHECK(fa.str().find(">design_1 design_id=1 run=1 rank=1 design_logp=-1.3") == 0);
    CHECK(fa.str().find(" run.tags=%3Chuman%3E%20promoter") == std::string::npos);  // '<' is printable: kept
    CHECK(fa.str().find(" run.tags=<human>%20promoter") != std::string::npos);
    export_track_bedgraph(*p, bg, {.design_id = id}, "logp");
    CHECK(bg.str().find("design_1\t0\t1\t") != std::string::npos);
    CHECK(bg.str().find("design_1\t4\t5\t") != std::string::npos);
    export_track_wig(*p, wig, {.design_id = id}, "logp");
    CHECK(wig.str().find("fixedStep chrom=design_1 start=1 step=1 span=1\n") != std::string::npos);
    CHECK(wig.str().find("fixedStep chrom=design_1 start=5 step=1 span=1\n") != std::string::npos);
    CHECK_THROWS_WITH(export_track_wig(*p, wig, {.design_id = id}, "dist_acgt", 4), "channel 4 does not exist");
    CHECK_THROWS_WITH(export_track_wig(*p, wig, {.design_id = id}, "nope"), "has no track 'nope' (it has: logp, dist_acgt)");
    export_genbank(*p, gb, id);
    CHECK(gb.str().find("     misc_feature    11..16\n") != std::string::npos);
    CHECK(gb.str().find("ORIGIN\n        1 ") != std::string::npos);
    CHECK(gb.str().substr(gb.str().size() - 3) == "//\n");
    CHECK_EQ(header_unescape(header_escape("a b=c%d,\t")), std::string("a b=c%d,\t"));
}

CHECK_MAIN()
