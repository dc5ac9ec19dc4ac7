// bigWig through libBigWig and IGV session files (browser_tracks.h).
#include "carbon/storage/browser_tracks.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

extern "C" {
#include <bigWig.h>
}

#include "carbon/storage/vep_result.h"
#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "temp_file.h"

namespace carbon::storage {

namespace {

namespace fs = std::filesystem;

// Intervals per bwAddIntervals / bwAppendIntervals call.
constexpr size_t kBatch = size_t(1) << 16;

// libBigWig's global set-up (curl, which it needs only for remote files), once per process.
void bigwig_init() {
    static std::once_flag once;
    static int rc = 0;
    std::call_once(once, [] { rc = bwInit(size_t(1) << 17); });
    if (rc != 0) throw Error("libBigWig could not be initialised (bwInit failed)");
}

void check_chroms(const std::string& path, const std::vector<TrackChrom>& chroms) {
    if (chroms.empty()) throw Error(path + ": a bigWig needs at least one chromosome");
    std::map<std::string, size_t> seen;
    for (const TrackChrom& c : chroms) {
        const std::string where = path + ": chromosome '" + visible_text(c.name, 80) + "'";
        if (c.name.empty()) throw Error(path + ": a chromosome has no name");
        for (char ch : c.name)
            if (static_cast<unsigned char>(ch) <= 0x20 || ch == 0x7f) throw Error(where + ": a name with blanks or control characters");
        if (!seen.emplace(c.name, 0).second) throw Error(where + " appears twice");
        if (c.length <= 0 || c.length > int64_t(UINT32_MAX))
            throw Error(where + ": length " + std::to_string(c.length) + " is outside 1 .. 4294967295 (the bigWig limit)");
        int64_t end = 0;
        for (const TrackInterval& r : c.intervals) {
            const std::string at = where + ", interval " + std::to_string(r.start) + "-" + std::to_string(r.end);
            if (r.start < end) throw Error(at + ": out of order or overlapping the previous one (ends at " + std::to_string(end) + ")");
            if (r.end <= r.start) throw Error(at + ": empty");
            if (r.end > c.length) throw Error(at + ": past the chromosome's end (" + std::to_string(c.length) + ")");
            if (!std::isfinite(r.value)) throw Error(at + ": the value is not a finite number");
            end = r.end;
        }
    }
}

struct BigWigHandle {
    bigWigFile_t* fp = nullptr;
    ~BigWigHandle() {
        if (fp) bwClose(fp);
    }
};

// The bigWig at `tmp`; Error naming `path` (the user's) when libBigWig fails.
void write_bigwig_file(const std::string& path, const std::string& tmp, const std::vector<TrackChrom>& chroms) {
    bigwig_init();
    BigWigHandle bw;
    bw.fp = bwOpen(tmp.c_str(), nullptr, "w");
    if (!bw.fp) throw Error(path + ": libBigWig could not create the file (" + tmp + ")");
    if (bwCreateHdr(bw.fp, 10) != 0) throw Error(path + ": libBigWig could not create the header");
    std::vector<const char*> names;
    std::vector<uint32_t> lengths;
    for (const TrackChrom& c : chroms) {
        names.push_back(c.name.c_str());
        lengths.push_back(uint32_t(c.length));
    }
    bw.fp->cl = bwCreateChromList(names.data(), lengths.data(), int64_t(chroms.size()));
    if (!bw.fp->cl) throw Error(path + ": libBigWig could not make the chromosome list");
    if (bwWriteHdr(bw.fp) != 0) throw Error(path + ": libBigWig could not write the header");
    std::vector<const char*> chrom_of;
    std::vector<uint32_t> starts, ends;
    std::vector<float> values;
    for (const TrackChrom& c : chroms)
        for (size_t i = 0; i < c.intervals.size(); i += kBatch) {
            const size_t n = std::min(kBatch, c.intervals.size() - i);
            chrom_of.assign(n, c.name.c_str());
            starts.resize(n);
            ends.resize(n);
            values.resize(n);
            for (size_t k = 0; k < n; ++k) {
                starts[k] = uint32_t(c.intervals[i + k].start);
                ends[k] = uint32_t(c.intervals[i + k].end);
                values[k] = c.intervals[i + k].value;
            }
            const int rc = i == 0 ? bwAddIntervals(bw.fp, chrom_of.data(), starts.data(), ends.data(), values.data(), uint32_t(n))
                                  : bwAppendIntervals(bw.fp, starts.data(), ends.data(), values.data(), uint32_t(n));
            if (rc != 0)
                throw Error(path + ": libBigWig could not write the intervals of '" + visible_text(c.name, 80) + "' (disk full?)");
        }
    bwClose(bw.fp);  // writes the zoom levels and the index; says nothing when that fails
    bw.fp = nullptr;
    // So it is read back: the header, the chromosome list and the index have to be there.
    BigWigHandle check;
    check.fp = bwOpen(tmp.c_str(), nullptr, "r");
    if (!check.fp || !check.fp->cl || check.fp->cl->nKeys != int64_t(chroms.size()) || !check.fp->idx)
        throw Error(path + ": the bigWig libBigWig wrote does not read back whole (disk full?)");
}

std::string xml_escaped(const std::string& s) {
    std::string out;
    for (char c : s) switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    return out;
}

// IGV's resource type from the file name (IGV guesses it the same way; writing it helps older IGVs).
std::string igv_type(const std::string& path) {
    std::string p = path;
    for (char& c : p) c = char(std::tolower(static_cast<unsigned char>(c)));
    auto ends = [&](const char* s) {
        const std::string e(s);
        return p.size() >= e.size() && p.compare(p.size() - e.size(), e.size(), e) == 0;
    };
    if (ends(".bw") || ends(".bigwig")) return "bigwig";
    if (ends(".vcf") || ends(".vcf.gz") || ends(".bcf")) return "vcf";
    if (ends(".bedgraph") || ends(".bedgraph.gz")) return "bedgraph";
    if (ends(".wig")) return "wig";
    if (ends(".bed") || ends(".bed.gz")) return "bed";
    return "";
}

void require_file(const std::string& session_path, const std::string& file, const char* what) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw Error(session_path + ": the " + std::string(what) + " '" + visible_text(file, 200) + "' is not an existing file");
}

}  // namespace

void write_bigwig(std::ostream& out, const std::string& name, const std::vector<TrackChrom>& chroms) {
    check_chroms(name, chroms);
    TempFile tmp("bigwig", ".bw");
    write_bigwig_file(name, tmp.path.string(), chroms);
    tmp.copy_into(out, name);
}

void export_track_bigwig(Project& project, std::ostream& out, const std::string& name, const TrackOwner& owner,
                         const std::string& kind, int channel) {
    write_bigwig(out, name, {track_intervals(project, owner, kind, channel)});
}

const char* vep_value_name(VepValue v) {
    switch (v) {
        case VepValue::WindowDeltaMean: return "window_delta_mean";
        case VepValue::WindowDelta: return "window_delta";
        case VepValue::WindowDeltaRc: return "window_delta_rc";
        case VepValue::SiteLogOdds: return "site_log_odds";
    }
    return "?";
}

VepValue parse_vep_value(const std::string& name) {
    for (VepValue v : {VepValue::WindowDeltaMean, VepValue::WindowDelta, VepValue::WindowDeltaRc, VepValue::SiteLogOdds})
        if (name == vep_value_name(v)) return v;
    throw Error("'" + visible_text(name, 40) + "' is not a vep score: window_delta_mean, window_delta, window_delta_rc or site_log_odds");
}

VepTrackSummary export_vep_bigwig(Project& project, std::ostream& out, const std::string& name, int64_t run_id,
                                  const std::vector<ReferenceContig>& contigs, VepValue value) {
    std::map<std::string, size_t> index;
    std::vector<TrackChrom> chroms;
    for (const ReferenceContig& c : contigs) {
        index.emplace(c.name, chroms.size());
        chroms.push_back({c.name, c.length, {}});
    }
    // Per contig, the value kept at each position (0-based): the largest magnitude, the first of equals.
    std::vector<std::map<int64_t, float>> at(chroms.size());
    VepTrackSummary sum;
    size_t row_number = 0;
    const auto run = project.run(run_id);
    if (!run || run->kind != "vep") throw Error(project.path() + ": no vep run with id " + std::to_string(run_id));
    project.each_vep_row(run_id, [&](VepRow&& r) {
        ++row_number;
        ++sum.rows;
        const double v = value == VepValue::WindowDeltaMean ? r.window_delta_mean
                         : value == VepValue::WindowDelta   ? r.window_delta
                         : value == VepValue::WindowDeltaRc ? r.window_delta_rc
                                                            : r.site_log_odds;
        if (!r.scored() || !std::isfinite(v)) {
            ++sum.without_value;
            return;
        }
        const std::string where = project.path() + ": vep run " + std::to_string(run_id) + ", row " + std::to_string(row_number) +
                                  " (" + visible_text(r.chrom, 80) + ":" + std::to_string(r.pos) + ")";
        const auto it = index.find(r.chrom);
        if (it == index.end())
            throw Error(where + ": the reference has no contig '" + visible_text(r.chrom, 80) +
                        "' (was the run scored against another reference?)");
        if (r.pos < 1 || r.pos > chroms[it->second].length)
            throw Error(where + ": position outside the contig (length " + std::to_string(chroms[it->second].length) + ")");
        const auto [slot, fresh] = at[it->second].emplace(r.pos - 1, float(v));
        if (!fresh && std::fabs(float(v)) > std::fabs(slot->second)) slot->second = float(v);
    });
    for (size_t c = 0; c < chroms.size(); ++c)
        for (const auto& [pos, v] : at[c]) {
            chroms[c].intervals.push_back({pos, pos + 1, v});
            ++sum.positions;
        }
    write_bigwig(out, name, chroms);
    return sum;
}

void write_igv_session(std::ostream& out, const std::string& session_path, const IgvSession& session) {
    const fs::path dir = fs::absolute(fs::path(session_path)).parent_path();
    auto relative = [&](const std::string& file, const char* what) {
        require_file(session_path, file, what);
        const fs::path rel = fs::absolute(file).lexically_relative(dir);
        return rel.empty() ? fs::absolute(file).string() : rel.generic_string();
    };
    std::ostringstream x;
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      << "<Session genome=\"" << xml_escaped(relative(session.genome, "genome")) << "\" hasGeneTrack=\"false\" hasSequenceTrack=\"true\""
      << " locus=\"" << xml_escaped(session.locus.empty() ? "All" : session.locus) << "\" version=\"8\">\n"
      << "    <Resources>\n";
    for (const std::string& r : session.resources) {
        x << "        <Resource path=\"" << xml_escaped(relative(r, "resource")) << "\"";
        if (const std::string t = igv_type(r); !t.empty()) x << " type=\"" << t << "\"";
        x << "/>\n";
    }
    x << "    </Resources>\n</Session>\n";
    out << x.str();
    if (!out) throw Error("cannot write " + session_path + " (disk full?)");
}

std::vector<ReferenceContig> vep_run_contigs(Project& project, const Run& run, const std::string& reference_path, const std::string& index_dir,
                                             std::string& genome_path, std::vector<std::string>& notes) {
    genome_path.clear();
    const std::string reference = reference_path.empty() ? run.setting("reference").value_or("") : reference_path;
    std::vector<ReferenceContig> contigs;
    if (reference_path.empty() && reference.rfind("project:", 0) == 0) {
        // The names a VCF's CHROM can hold (one word), each once: what the run could have scored.
        std::map<std::string, int> seen;
        for (const SequenceRecord& s : project.list_sequences(false)) {
            const bool one_word =
                std::none_of(s.name.begin(), s.name.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; });
            if (!s.name.empty() && one_word && seen[s.name]++ == 0 && s.length > 0) contigs.push_back({s.name, s.length});
        }
        return contigs;
    }
    if (reference.empty())
        throw Error(project.path() + ": vep run " + std::to_string(run.id) + " names no reference; give the genome FASTA");
    const auto genome = ReferenceGenome::open(reference, index_dir);
    if (!genome->index_note().empty()) notes.push_back(genome->index_note());
    genome_path = genome->path();
    return genome->contigs();
}

VepBrowserFiles export_vep_for_igv(Project& project, std::ostream& session_out, const VepBrowserExport& request) {
    VepBrowserFiles files;
    const auto run = project.run(request.run_id);
    if (!run || run->kind != "vep") throw Error(project.path() + ": no vep run with id " + std::to_string(request.run_id));
    fs::path stem(request.session_path);
    stem.replace_extension();
    IgvSession session;
    session.locus = request.locus;
    const std::vector<ReferenceContig> contigs = vep_run_contigs(project, *run, request.reference, request.index_dir, files.genome, files.notes);
    const bool own_sequences = files.genome.empty();
    if (own_sequences) files.genome = stem.string() + ".fa";
    // The VCF, and the other tracks.
    std::string vcf = request.vcf;
    if (vcf.empty()) {
        const std::string was = run->setting("vcf").value_or("");
        std::error_code ec;
        if (!was.empty() && fs::is_regular_file(was, ec)) vcf = was;
        else if (!was.empty()) files.notes.push_back("the run's VCF '" + visible_text(was, 200) + "' is not there any more: left out of the session");
    }
    if (!vcf.empty()) session.resources.push_back(vcf);
    for (const std::string& t : request.tracks) session.resources.push_back(t);
    // Every file named exists before anything is written (the genome FASTA and the bigWig come next).
    if (!own_sequences) require_file(request.session_path, files.genome, "genome");
    for (const std::string& r : session.resources) require_file(request.session_path, r, "resource");
    if (own_sequences) {
        OutputFile fasta(files.genome);
        const std::vector<std::string> changed = export_sequences_fasta(project, fasta.stream(), 60);
        fasta.commit();
        for (const std::string& n : changed) files.notes.push_back(files.genome + ": " + n);
        files.notes.push_back("the project's sequences, which the run was scored on, written to " + files.genome);
    }
    files.bigwig = stem.string() + ".vep-run" + std::to_string(request.run_id) + ".bw";
    OutputFile track(files.bigwig);
    files.summary = export_vep_bigwig(project, track.stream(), files.bigwig, request.run_id, contigs, request.value);
    track.commit();
    session.genome = files.genome;
    session.resources.insert(session.resources.begin() + (vcf.empty() ? 0 : 1), files.bigwig);
    files.resources = session.resources.size();
    write_igv_session(session_out, request.session_path, session);
    return files;
}

}  // namespace carbon::storage
