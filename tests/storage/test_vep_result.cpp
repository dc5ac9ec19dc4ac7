// vep results in projects: a TSV stored as a "vep" run and exported back byte for byte, rows read
// in pages, sequences linked by name, a recovery project's vep rows merged; the reader's refusals
// (first line, fields, numbers) with file and line, leaving the project as it was; a schema 3
// project read-only has no vep rows; and the named-sequence genome the application scores against.
#include <cmath>
#include <fstream>
#include <sstream>

#include "carbon/storage/recovery.h"
#include "carbon/storage/reference.h"
#include "carbon/storage/vep_result.h"
#include "carbon/support/common.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon;
using namespace carbon::storage;
using storage_test::temp_path;

namespace {

const std::string kHeader =
    "##carbon-cli vep 0.0-test\n##model=/models/tiny\n##reference=ref.fa\n##vcf=v.vcf\n##window_bp=600\n"
    "##reverse_complement=1\n##tags=\n##regions=\n##yarn=\n##prefix_sharing=1\n";

std::string rows_text(int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        VepRow r;
        r.chrom = i % 3 == 0 ? "chrA" : "chrB";
        r.pos = 10 + i;
        r.id = i % 2 ? "." : "rs" + std::to_string(i);
        r.ref = "A";
        r.alt = i % 7 == 0 ? "ACGTACGTACGT" : "G";
        if (i % 5 == 4) {
            r.status = "ref_mismatch";
            r.site_log_odds = r.window_delta = r.window_delta_rc = r.window_delta_mean = NAN;
        } else {
            r.status = "ok";
            r.window_start = 1 + i;
            r.window_end = 600 + i;
            r.site_log_odds = r.alt.size() == 1 ? 0.1234567891 * i : NAN;
            r.window_delta = -1e-7 * (i + 1);
            r.window_delta_rc = 3.25e-3 / (i + 1);
            r.window_delta_mean = 0.5 * (r.window_delta + r.window_delta_rc);
        }
        out += format_vep_row(r);
    }
    return out;
}

std::string write(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

TEST(a_vep_tsv_is_stored_as_a_run_and_exported_back_byte_for_byte) {
    const std::string text = kHeader + kVepColumnLine + rows_text(9000);  // more than one batch
    const std::string tsv = write("r.tsv", text);
    auto p = Project::open(temp_path("vep.carbon"));
    SequenceRecord s;
    s.name = "chrA";
    s.bases = "ACGT";
    const int64_t seq = p->add_sequence(s);
    Run identity;
    identity.backend = "cpu (test)";
    identity.settings = {{"note", "given by the caller"}};
    const VepStored st = store_vep_result(*p, tsv, identity, "finished", {{"chrA", seq}});
    CHECK_EQ(st.rows, int64_t(9000));
    const auto run = p->run(st.run_id);
    CHECK(run && run->kind == "vep" && run->status == "finished" && run->backend == "cpu (test)");
    CHECK(run->model_path == "/models/tiny" && run->engine_version == "0.0-test");
    CHECK(run->setting("window_bp") == std::optional<std::string>("600"));
    CHECK(run->setting("note") == std::optional<std::string>("given by the caller"));
    std::ostringstream out;
    export_vep_tsv(*p, out, st.run_id);
    CHECK(out.str() == text);
    // The rows in order, and the chrom that names a stored sequence linked to it.
    const auto rows = p->vep_rows(st.run_id);
    CHECK_EQ(rows.size(), size_t(9000));
    CHECK_EQ(rows[4095].pos, int64_t(10 + 4095));
    CHECK_EQ(rows[4095].sequence_id, seq);   // row 4095: chrA
    CHECK_EQ(rows[4096].sequence_id, int64_t(0));  // chrB: no such sequence
    CHECK(rows[4096].status == "ok" && rows[4096].window_end == 600 + 4096);
    CHECK(std::isnan(rows[4].window_delta));  // a ref_mismatch row
    size_t streamed = 0;
    p->each_vep_row(st.run_id, [&](VepRow&& r) { CHECK_EQ(r.pos, rows[streamed++].pos); });
    CHECK_EQ(streamed, rows.size());
    CHECK_EQ(p->count("vep_results"), int64_t(9000));
    CHECK_THROWS_WITH(export_vep_tsv(*p, out, st.run_id + 1), "no run");
}

TEST(a_file_that_is_not_a_vep_result_is_refused_with_its_line_and_nothing_is_stored) {
    auto p = Project::open(temp_path("refused.carbon"));
    const std::string good = kHeader + kVepColumnLine + rows_text(3);
    struct Case {
        std::string name, text, want;
    };
    std::string cut = good.substr(0, good.size() - 1);
    cut = cut.substr(0, cut.rfind('\t')) + "\n";
    const Case cases[] = {
        {"vcf.tsv", "##fileformat=VCFv4.2\n#CHROM\tPOS\n", "vcf.tsv:1: not a carbon-cli vep result"},
        {"nocols.tsv", kHeader, "no #chrom column line"},
        {"othercols.tsv", kHeader + "#chrom\tpos\n", "othercols.tsv:11: the column line is not vep's"},
        {"cut.tsv", cut, "cut.tsv:14: 11 fields; a vep row has 12"},
        {"word.tsv", kHeader + kVepColumnLine + "chrA\t5\t.\tA\tG\tok\t1\t9\tnan\t0\t0\t0\n", "word.tsv:12: field 9 (site_log_odds) is 'nan'"},
        {"pos.tsv", kHeader + kVepColumnLine + "chrA\t0\t.\tA\tG\tok\t1\t9\t1\t0\t0\t0\n", "pos.tsv:12: field 2 (pos)"},
        {"window.tsv", kHeader + kVepColumnLine + "chrA\t5\t.\tA\tG\tok\tNA\t9\t1\t0\t0\t0\n", "window.tsv:12: field 8 (window_end)"},
        {"binary.tsv", kHeader + kVepColumnLine + std::string("chrA\t5\0\t", 8), "binary.tsv:12"},
    };
    for (const Case& c : cases) {
        const std::string path = write(c.name, c.text);
        CHECK_THROWS_WITH(store_vep_result(*p, path, Run{}, "finished"), c.want.c_str());
    }
    CHECK_EQ(p->count("runs"), int64_t(0));
    CHECK_EQ(p->count("vep_results"), int64_t(0));
}

TEST(a_recovery_projects_vep_rows_are_merged_with_their_sequences) {
    const std::string tsv = write("m.tsv", kHeader + kVepColumnLine + rows_text(50));
    auto from = Project::open(temp_path("from.carbon"));
    SequenceRecord s;
    s.name = "chrA";
    s.bases = "ACGTTT";
    const int64_t seq = from->add_sequence(s);
    store_vep_result(*from, tsv, Run{}, "cancelled", {{"chrA", seq}});
    auto into = Project::open(temp_path("into.carbon"));
    SequenceRecord other;
    other.name = "other";
    other.bases = "GG";
    into->add_sequence(other);  // ids differ between the two projects
    const MergeResult m = merge_project(*into, *from);
    CHECK_EQ(m.vep_rows, size_t(50));
    CHECK_EQ(m.run_ids.size(), size_t(1));
    const auto rows = into->vep_rows(m.run_ids[0]);
    CHECK_EQ(rows.size(), size_t(50));
    const auto a = into->find_sequence("chrA");
    CHECK(a.has_value());
    CHECK_EQ(rows[0].sequence_id, a->id);
    CHECK(into->run(m.run_ids[0])->status == "cancelled");
    std::ostringstream x, y;
    export_vep_tsv(*from, x, 1);
    export_vep_tsv(*into, y, m.run_ids[0]);
    CHECK(x.str() == y.str());
}

TEST(named_sequences_are_a_genome_with_unique_names) {
    SequenceSetGenome g("project p.carbon", {{"a", "acgtN"}, {"b", "GG"}});
    CHECK_EQ(g.length("a"), int64_t(5));
    CHECK_EQ(g.length("c"), int64_t(-1));
    CHECK(g.fetch("a", 1, 4) == "CGT");
    CHECK(g.fetch("b", 2, 2).empty());
    CHECK_THROWS_WITH(g.fetch("a", 3, 6), "project p.carbon", "a:4-6 is outside a (1-5)");
    CHECK_THROWS_WITH(g.fetch("c", 0, 1), "no sequence named 'c'");
    CHECK_THROWS_WITH(SequenceSetGenome("project q", {{"a", "A"}, {"a", "C"}}), "two sequences are named 'a'");
}

CHECK_MAIN()
