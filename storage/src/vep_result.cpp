// Reading and writing vep results, and storing one in a project (see vep_result.h).
#include "carbon/storage/vep_result.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>

#include "carbon/support/common.h"
#include "format_util.h"
#include "gzip_reader.h"

namespace carbon::storage {

const char* const kVepColumnLine =
    "#chrom\tpos\tid\tref\talt\tstatus\twindow_start\twindow_end\tsite_log_odds\twindow_delta\twindow_delta_rc\twindow_delta_mean\n";

namespace {

constexpr const char* kMagic = "##carbon-cli vep ";
// The run setting that keeps the order of the TSV's '##' lines.
constexpr const char* kHeaderKeys = "vep_header_keys";
// A row holds REF and ALT whole: long indels make long lines, a binary file none at all.
constexpr size_t kMaxLine = size_t(64) << 20;

std::vector<std::string_view> split_tabs(std::string_view s) {
    std::vector<std::string_view> out;
    size_t at = 0;
    for (;;) {
        const size_t tab = s.find('\t', at);
        out.push_back(s.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
        if (tab == std::string_view::npos) return out;
        at = tab + 1;
    }
}

bool parse_int(std::string_view s, int64_t& v) {
    if (s.empty() || s.size() > 19) return false;
    v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    return true;
}

bool parse_real(std::string_view s, double& v) {
    if (s == "NA") {
        v = NAN;
        return true;
    }
    if (s.empty() || s.size() > 40) return false;
    const std::string t(s);
    char* end = nullptr;
    errno = 0;
    v = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size() && std::isfinite(v);
}

}  // namespace

std::string format_vep_row(const VepRow& r) {
    const bool w = r.window_end > 0;
    return r.chrom + '\t' + std::to_string(r.pos) + '\t' + r.id + '\t' + r.ref + '\t' + r.alt + '\t' + r.status + '\t' +
           (w ? std::to_string(r.window_start) : "NA") + '\t' + (w ? std::to_string(r.window_end) : "NA") + '\t' + num(r.site_log_odds) +
           '\t' + num(r.window_delta) + '\t' + num(r.window_delta_rc) + '\t' + num(r.window_delta_mean) + '\n';
}

struct VepResultReader::Impl {
    FileSource source;
    LineReader lines;
    explicit Impl(const std::string& path) : source(path), lines(source, path, "vep result", kMaxLine) {}
};

VepResultReader::VepResultReader(const std::string& path) : impl_(std::make_unique<Impl>(path)), path_(path) {
    std::string line;
    auto where = [&] { return path_ + ":" + std::to_string(impl_->lines.line_number()) + ": "; };
    if (!impl_->lines.next(line) || line.rfind(kMagic, 0) != 0)
        throw Error(path_ + ":1: not a carbon-cli vep result (its first line is not '##carbon-cli vep VERSION')");
    version_ = line.substr(std::string(kMagic).size());
    const std::string columns(kVepColumnLine, std::string(kVepColumnLine).size() - 1);
    for (;;) {
        if (!impl_->lines.next(line)) throw Error(path_ + ": no #chrom column line after the '##' lines (is this a whole vep result?)");
        if (line.rfind("##", 0) == 0) {
            const size_t eq = line.find('=');
            if (eq == std::string::npos) throw Error(where() + "a '##' line without '=': " + line.substr(0, 120));
            settings_.emplace_back(line.substr(2, eq - 2), line.substr(eq + 1));
            continue;
        }
        if (line != columns) throw Error(where() + "the column line is not vep's: " + line.substr(0, 120));
        return;
    }
}

VepResultReader::~VepResultReader() = default;

std::optional<std::string> VepResultReader::setting(const std::string& key) const {
    for (const auto& [k, v] : settings_)
        if (k == key) return v;
    return std::nullopt;
}

size_t VepResultReader::line() const { return impl_->lines.line_number(); }

bool VepResultReader::next(VepRow& r) {
    std::string line;
    do {
        if (!impl_->lines.next(line)) return false;
    } while (line.empty());
    auto fail = [&](const std::string& what) {
        return Error(path_ + ":" + std::to_string(impl_->lines.line_number()) + ": " + what);
    };
    const std::vector<std::string_view> c = split_tabs(line);
    if (c.size() != kVepColumns)
        throw fail(std::to_string(c.size()) + " fields; a vep row has " + std::to_string(kVepColumns) + " (tab-separated)");
    static const char* const kNames[] = {"chrom", "pos", "id", "ref", "alt", "status", "window_start", "window_end",
                                         "site_log_odds", "window_delta", "window_delta_rc", "window_delta_mean"};
    auto bad = [&](size_t i) { return fail("field " + std::to_string(i + 1) + " (" + kNames[i] + ") is '" + std::string(c[i].substr(0, 60)) + "', which vep never writes there"); };
    for (size_t i : {0, 2, 3, 4, 5})
        if (c[i].empty()) throw bad(i);
    r = VepRow{};
    r.chrom = c[0];
    if (!parse_int(c[1], r.pos) || r.pos < 1) throw bad(1);
    r.id = c[2];
    r.ref = c[3];
    r.alt = c[4];
    r.status = c[5];
    // The statuses vep writes (docs/vep.md); the scored ones have a window, the others none.
    static const std::set<std::string, std::less<>> kScored = {"ok", "window_clipped"};
    static const std::set<std::string, std::less<>> kUnscored = {"ref_mismatch",    "missing_contig", "outside_contig",
                                                                 "symbolic_allele", "breakend",       "invalid_allele",
                                                                 "alt_equals_ref",  "no_alt"};
    const bool scored = kScored.count(c[5]) > 0;
    if (!scored && !kUnscored.count(c[5])) throw bad(5);
    if (r.ref.find_first_not_of("ACGTN") != std::string::npos) throw bad(3);
    if (r.pos > 2147483647) throw bad(1);
    if (c[6] == "NA" || c[7] == "NA") {
        if (c[6] != c[7]) throw bad(c[6] == "NA" ? 7 : 6);
        if (scored) throw bad(6);
    } else {
        if (!parse_int(c[6], r.window_start) || r.window_start < 1) throw bad(6);
        if (!parse_int(c[7], r.window_end) || r.window_end < r.window_start) throw bad(7);
    }
    if (!parse_real(c[8], r.site_log_odds)) throw bad(8);
    if (!parse_real(c[9], r.window_delta)) throw bad(9);
    if (!parse_real(c[10], r.window_delta_rc)) throw bad(10);
    if (!parse_real(c[11], r.window_delta_mean)) throw bad(11);
    return true;
}

VepStored store_vep_result(Project& p, const std::string& tsv, Run run, const std::string& status,
                           const std::vector<std::pair<std::string, int64_t>>& sequence_ids) {
    VepResultReader in(tsv);
    run.id = 0;
    run.kind = "vep";
    if (run.model_path.empty()) run.model_path = in.setting("model").value_or("");
    run.engine_version = in.version();  // the build that wrote the rows
    run.status = "running";
    const std::vector<std::pair<std::string, std::string>> extra = std::move(run.settings);
    run.settings = in.settings();
    // The '##' lines' order, so that export_vep_tsv gives back the same bytes (settings are
    // stored by key).
    std::string keys;
    for (const auto& [k, v] : in.settings()) {
        if (k.find(',') != std::string::npos || k == kHeaderKeys) throw Error(tsv + ": a '##' line named '" + k + "', which vep never writes");
        keys += (keys.empty() ? "" : ",") + k;
    }
    run.settings.emplace_back(kHeaderKeys, keys);
    run.settings.insert(run.settings.end(), extra.begin(), extra.end());
    const std::map<std::string, int64_t> ids(sequence_ids.begin(), sequence_ids.end());

    Transaction t(p);
    const int64_t run_id = p.begin_run(run);
    std::vector<VepRow> batch;
    int64_t index = 0;
    VepRow row;
    auto flush = [&] {
        p.add_vep_rows(run_id, index, batch);
        index += int64_t(batch.size());
        batch.clear();
    };
    while (in.next(row)) {
        const auto it = ids.find(row.chrom);
        row.sequence_id = it == ids.end() ? 0 : it->second;
        batch.push_back(std::move(row));
        if (batch.size() == 4096) flush();
    }
    flush();
    p.finish_run(run_id, status, 0);
    t.commit();
    return {run_id, index};
}

void export_vep_tsv(Project& p, std::ostream& out, int64_t run_id) {
    const std::optional<Run> run = p.run(run_id);
    if (!run) throw Error(p.path() + ": no run " + std::to_string(run_id) + " (carbon-cli project list shows the runs)");
    if (run->kind != "vep") throw Error(p.path() + ": run " + std::to_string(run_id) + " is a " + run->kind + " run, not a vep run");
    out << kMagic << run->engine_version << '\n';
    const std::string keys = run->setting(kHeaderKeys).value_or("");
    size_t at = 0;
    while (at < keys.size()) {
        size_t comma = keys.find(',', at);
        if (comma == std::string::npos) comma = keys.size();
        const std::string key = keys.substr(at, comma - at);
        out << "##" << key << '=' << run->setting(key).value_or("") << '\n';
        at = comma + 1;
    }
    out << kVepColumnLine;
    p.each_vep_row(run_id, [&](VepRow&& r) { out << format_vep_row(r); });
}

}  // namespace carbon::storage
