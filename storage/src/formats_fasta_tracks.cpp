// FASTA import into a project, design export as FASTA and TSV/CSV, and per-base tracks as
// bedGraph and WIG fixedStep. See formats.h for the layouts.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <string_view>
#include <algorithm>
#include <fstream>

#include <sqlite3.h>

#include "carbon/storage/browser_tracks.h"
#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "carbon/support/visible_text.h"
#include "format_util.h"

namespace carbon::storage {

namespace {

double gc_fraction(const std::string& s) {
    size_t gc = 0, acgt = 0;
    for (char c : s) {
        const char u = char(c & ~0x20);
        if (u == 'G' || u == 'C') ++gc;
        if (u == 'G' || u == 'C' || u == 'A' || u == 'T') ++acgt;
    }
    return acgt ? double(gc) / double(acgt) : double(NAN);
}

std::vector<DesignRecord> pick_designs(Project& p, const std::vector<int64_t>& ids) {
    if (ids.empty()) return p.list_designs();
    std::vector<DesignRecord> out;
    for (int64_t id : ids) {
        auto d = p.design(id);
        if (!d) throw Error(p.path() + ": no design with id " + std::to_string(id));
        out.push_back(std::move(*d));
    }
    return out;
}

Track find_track(Project& p, const TrackOwner& owner, const std::string& kind, int channel, std::string& chrom) {
    std::vector<Track> tracks;
    if (owner.design_id) {
        auto d = p.design(owner.design_id);
        if (!d) throw Error(p.path() + ": no design with id " + std::to_string(owner.design_id));
        chrom = d->name;
        tracks = p.tracks_of_design(owner.design_id);
    } else {
        auto s = p.sequence(owner.sequence_id);
        if (!s) throw Error(p.path() + ": no sequence with id " + std::to_string(owner.sequence_id));
        chrom = s->name;
        tracks = p.tracks_of_sequence(owner.sequence_id);
    }
    std::string have;
    for (Track& t : tracks) {
        have += (have.empty() ? "" : ", ") + t.kind;
        if (t.kind != kind) continue;
        if (channel < 0 || channel >= t.width)
            throw Error(p.path() + ": track '" + kind + "' of '" + visible_text(chrom, 80) + "' has " + std::to_string(t.width) +
                        " value(s) per base; channel " + std::to_string(channel) + " does not exist");
        return std::move(t);
    }
    throw Error(p.path() + ": '" + visible_text(chrom, 80) + "' has no track '" + kind + "' (it has: " + (have.empty() ? "none" : have) + ")");
}

// Track names in browser headers are quoted; a quote inside would end them, a control character
// would end the line.
std::string quoted(std::string s) {
    for (char& c : s)
        if (c == '"') c = '\'';
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return "\"" + s + "\"";
}

// A name as one word of a bedGraph/WIG/FASTA line: blanks and control bytes escaped (header_escape)
// when it has any, else as it is.
std::string one_word(const std::string& name) {
    for (char c : name)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return header_escape(name);
    return name;
}

// A FASTA description: control bytes as %XX (a line break would start a record of its own).
std::string one_line(const std::string& text) {
    if (first_control_char(text) == std::string::npos) return text;
    std::string out;
    char b[4];
    for (char c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            std::snprintf(b, sizeof b, "%%%02X", unsigned(static_cast<unsigned char>(c)));
            out += b;
        } else {
            out += c;
        }
    }
    return out;
}

// Run settings longer than this are left out of a FASTA header (a header must stay a line that
// readers, ours included, take: kFastaMaxHeader), with their length said in their place.
constexpr size_t kMaxHeaderSetting = 4096;

std::string csv_field(const std::string& s, char sep) {
    if (sep != ',') {  // TSV has no quoting: a tab or a line break would start a column or a row
        if (s.find_first_of("\t\n\r") == std::string::npos) return s;
        std::string out;
        for (char c : s) out += c == '\t' ? "%09" : c == '\n' ? "%0A" : c == '\r' ? "%0D" : std::string(1, c);
        return out;
    }
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

RecordLimit record_base_limit(Project& project) {
    const size_t sqlite_limit = size_t(sqlite3_limit(project.handle(), SQLITE_LIMIT_LENGTH, -1));
    size_t available = 0;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        size_t kib = 0;
        meminfo >> kib;
        if (key == "MemAvailable:") available = kib * 1024;
        meminfo.ignore(64, '\n');
    }
    if (available && available / 3 < sqlite_limit)
        return {available / 3, "importing it needs about 3 bytes per base and this machine has " + std::to_string(available >> 20) +
                                   " MiB of memory available"};
    return {sqlite_limit, "a project stores at most " + std::to_string(sqlite_limit) + " bases in one sequence (SQLite's length limit)"};
}

FastaImportResult import_fasta(Project& project, const std::string& path) {
    FastaReader reader(path);
    const RecordLimit limit = record_base_limit(project);
    reader.limit_record_bases(limit.bases, limit.why);
    FastaImportResult r;
    const std::string file = std::filesystem::path(path).filename().string();
    Transaction t(project);
    FastaEntry e;
    while (reader.next(e)) {
        SequenceRecord s;
        if (e.name.empty()) {
            s.name = "record_" + std::to_string(e.index);
            ++r.unnamed;
        } else {
            s.name = e.name;
        }
        s.description = e.description;
        s.origin = file + ":" + std::to_string(e.line);
        r.bases += int64_t(e.bases.size());
        s.bases = std::move(e.bases);
        r.sequence_ids.push_back(project.add_sequence(std::move(s)));
    }
    t.commit();
    return r;
}

std::vector<std::string> export_designs_fasta(Project& project, std::ostream& out, const std::vector<int64_t>& ids, size_t width) {
    std::vector<std::string> notes;
    std::set<std::pair<int64_t, std::string>> noted;
    std::map<int64_t, Run> runs;
    for (const DesignRecord& d : pick_designs(project, ids)) {
        auto it = runs.find(d.run_id);
        if (it == runs.end()) it = runs.emplace(d.run_id, project.run(d.run_id).value_or(Run{})).first;
        const Run& run = it->second;
        std::vector<std::pair<std::string, std::string>> f = {
            {"design_id", std::to_string(d.id)}, {"run", std::to_string(d.run_id)}, {"rank", std::to_string(d.rank)},
            {"design_logp", num(d.design_logp)}, {"ranking_logp", num(d.ranking_logp)}, {"length", std::to_string(d.bases.size())},
            {"gc", num(gc_fraction(d.bases), 6)}, {"stream", std::to_string(d.stream_index)},
            {"backtracks", std::to_string(d.backtracks)}, {"seed", std::to_string(run.seed)}, {"model", run.model_path},
            {"backend", run.backend}, {"engine_version", run.engine_version}};
        for (const auto& [k, v] : run.settings) {
            if (v.size() <= kMaxHeaderSetting) {
                f.emplace_back("run." + k, v);
                continue;
            }
            f.emplace_back("run." + k + ".omitted_bytes", std::to_string(v.size()));
            if (noted.emplace(d.run_id, k).second)
                notes.push_back("run " + std::to_string(d.run_id) + "'s setting '" + visible_text(k, 80) + "' holds " + std::to_string(v.size()) +
                                " bytes; the headers say run." + visible_text(k, 80) + ".omitted_bytes instead (the project keeps it)");
        }
        write_fasta_record(out, d.name, f, d.bases, width);
    }
    if (!out) throw Error("cannot write the FASTA export (disk full?)");
    return notes;
}

void export_designs_table(Project& project, std::ostream& out, const std::vector<int64_t>& ids, char sep) {
    const char* cols[] = {"design_id", "name", "run", "rank", "length", "gc", "design_logp", "ranking_logp", "stream", "backtracks"};
    for (size_t i = 0; i < std::size(cols); ++i) out << (i ? std::string(1, sep) : "") << cols[i];
    out << '\n';
    for (const DesignRecord& d : pick_designs(project, ids)) {
        out << d.id << sep << csv_field(d.name, sep) << sep << d.run_id << sep << d.rank << sep << d.bases.size() << sep
            << num(gc_fraction(d.bases), 6) << sep << num(d.design_logp) << sep << num(d.ranking_logp) << sep << d.stream_index << sep
            << d.backtracks << '\n';
    }
    if (!out) throw Error("cannot write the table export (disk full?)");
}

namespace {

// The runs of equal values of one channel of a track (NaN left out), on chromosome `chrom`.
TrackChrom track_runs(const Track& t, int channel, const std::string& chrom) {
    TrackChrom c;
    c.name = one_word(chrom);
    c.length = t.length();
    for (int64_t i = 0; i < c.length;) {
        const float v = t.values[size_t(i * t.width + channel)];
        int64_t j = i + 1;
        if (std::isnan(v)) {
            while (j < c.length && std::isnan(t.values[size_t(j * t.width + channel)])) ++j;
        } else {
            while (j < c.length && t.values[size_t(j * t.width + channel)] == v) ++j;
            c.intervals.push_back({i, j, v});
        }
        i = j;
    }
    return c;
}

}  // namespace

TrackChrom track_intervals(Project& project, const TrackOwner& owner, const std::string& kind, int channel) {
    std::string chrom;
    const Track t = find_track(project, owner, kind, channel, chrom);
    return track_runs(t, channel, chrom);
}

void export_track_bedgraph(Project& project, std::ostream& out, const TrackOwner& owner, const std::string& kind, int channel) {
    std::string chrom;
    const TrackChrom c = track_runs(find_track(project, owner, kind, channel, chrom), channel, chrom);
    out << "track type=bedGraph name=" << quoted(chrom + " " + kind) << " description=" << quoted(kind + " of " + chrom) << "\n";
    for (const TrackInterval& r : c.intervals) out << c.name << '\t' << r.start << '\t' << r.end << '\t' << num(r.value, 7) << '\n';
    if (!out) throw Error("cannot write the bedGraph export (disk full?)");
}

void export_track_wig(Project& project, std::ostream& out, const TrackOwner& owner, const std::string& kind, int channel) {
    std::string chrom;
    const Track t = find_track(project, owner, kind, channel, chrom);
    out << "track type=wiggle_0 name=" << quoted(chrom + " " + kind) << " description=" << quoted(kind + " of " + chrom) << "\n";
    bool in_block = false;
    for (int64_t i = 0; i < t.length(); ++i) {
        const float v = t.values[size_t(i * t.width + channel)];
        if (std::isnan(v)) {
            in_block = false;
            continue;
        }
        if (!in_block) out << "fixedStep chrom=" << one_word(chrom) << " start=" << i + 1 << " step=1 span=1\n";
        in_block = true;
        out << num(v, 7) << '\n';
    }
    if (!out) throw Error("cannot write the WIG export (disk full?)");
}

std::vector<std::string> export_sequences_fasta(Project& project, std::ostream& out, size_t width) {
    std::vector<std::string> notes;
    for (const SequenceRecord& s : project.list_sequences(true)) {
        const std::string name = one_word(s.name), description = one_line(s.description);
        if (name != s.name)
            notes.push_back("sequence " + std::to_string(s.id) + ": its name '" + visible_text(s.name, 80) +
                            "' holds blanks or control characters, written escaped as " + name);
        if (description != s.description)
            notes.push_back("sequence " + std::to_string(s.id) + " (" + visible_text(s.name, 80) +
                            "): control characters in its description written as %XX");
        out << '>' << name;
        if (!description.empty()) out << ' ' << description;
        out << '\n';
        const size_t w = width ? width : std::max<size_t>(1, s.bases.size());
        for (size_t i = 0; i < s.bases.size(); i += w) out << std::string_view(s.bases).substr(i, w) << '\n';
    }
    if (!out) throw Error("cannot write the FASTA export (disk full?)");
    return notes;
}

}  // namespace carbon::storage
