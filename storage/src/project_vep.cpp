// Project's rows of whole-VCF variant effect runs (the vep_results table; see vep_result.h).
#include <sqlite3.h>

#include "carbon/storage/project.h"
#include "carbon/storage/vep_result.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

void Project::add_vep_rows(int64_t run_id, int64_t first_index, const std::vector<VepRow>& rows) {
    Transaction t(*this);
    Stmt st(db_, "INSERT INTO vep_results(run_id, row_index, chrom, pos, vcf_id, ref, alt, status, window_start, window_end, "
                 "site_log_odds, window_delta, window_delta_rc, window_delta_mean, sequence_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    int64_t index = first_index;
    for (const VepRow& r : rows) {
        st.bind(1, run_id).bind(2, index++).bind(3, r.chrom).bind(4, r.pos).bind(5, r.id).bind(6, r.ref).bind(7, r.alt);
        st.bind(8, r.status);
        if (r.scored()) st.bind(9, r.window_start).bind(10, r.window_end);
        st.bind(11, r.site_log_odds).bind(12, r.window_delta).bind(13, r.window_delta_rc).bind(14, r.window_delta_mean);
        st.bind_id(15, r.sequence_id).run();
    }
    t.commit();
}

void Project::each_vep_row(int64_t run_id, const std::function<void(VepRow&&)>& row) {
    // One statement stepped to the end: linear in the rows (LIMIT/OFFSET pages rescanned the rows
    // before each page: 2M rows took 32 s), one row in memory at a time.
    Stmt s(db_, "SELECT chrom, pos, vcf_id, ref, alt, status, window_start, window_end, site_log_odds, window_delta, "
                "window_delta_rc, window_delta_mean, sequence_id FROM vep_results WHERE run_id = ? ORDER BY row_index");
    s.bind(1, run_id);
    while (s.step()) {
        VepRow r;
        r.chrom = s.text(0);
        r.pos = s.i64(1);
        r.id = s.text(2);
        r.ref = s.text(3);
        r.alt = s.text(4);
        r.status = s.text(5);
        r.window_start = s.i64(6);
        r.window_end = s.i64(7);
        r.site_log_odds = s.real(8);
        r.window_delta = s.real(9);
        r.window_delta_rc = s.real(10);
        r.window_delta_mean = s.real(11);
        r.sequence_id = s.i64(12);  // NULL reads as 0;
        row(std::move(r));
    }
}

std::vector<VepRow> Project::vep_rows(int64_t run_id) {
    std::vector<VepRow> out;
    each_vep_row(run_id, [&](VepRow&& r) { out.push_back(std::move(r)); });
    return out;
}

}  // namespace carbon::storage
