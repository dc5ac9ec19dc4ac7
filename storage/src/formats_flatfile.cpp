// GenBank / EMBL entries into a project with their feature tables, and a stored sequence back out
// as GenBank (see formats.h).
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/formats.h"
#include "format_util.h"

namespace carbon::storage {

FlatImportResult import_flat_file(Project& project, const std::string& path) {
    FlatFile f = read_flat_file(path);  // all of it first: a malformed record stores nothing
    const size_t limit = size_t(sqlite3_limit(project.handle(), SQLITE_LIMIT_LENGTH, -1));
    for (const FlatRecord& r : f.records)
        if (r.bases.size() > limit)
            throw Error(path + ":" + std::to_string(r.line) + ": record " + r.name + " holds " + std::to_string(r.bases.size()) +
                        " bases; a project stores at most " + std::to_string(limit) + " in one sequence (SQLite's length limit)");
    FlatImportResult out;
    out.notices = std::move(f.notices);
    const std::string file = std::filesystem::path(path).filename().string();
    Transaction t(project);
    for (FlatRecord& r : f.records) {
        SequenceRecord s;
        s.name = r.name;
        s.description = r.description;
        s.origin = file + ":" + std::to_string(r.line);
        s.header = r.header;
        if (s.header.topology.empty()) s.header.topology = r.circular ? "circular" : "linear";
        out.bases += int64_t(r.bases.size());
        s.bases = std::move(r.bases);
        const int64_t id = project.add_sequence(std::move(s));
        std::vector<FeatureRecord> features;
        for (Feature& ft : r.features) {
            FeatureRecord fr;
            fr.key = std::move(ft.key);
            fr.location = std::move(ft.location);
            fr.qualifiers = std::move(ft.qualifiers);
            features.push_back(std::move(fr));
        }
        out.features += features.size();
        project.set_features(id, features);
        out.sequence_ids.push_back(id);
    }
    t.commit();
    return out;
}

namespace {

// Qualifiers INSDC writes without quotes (their values are numbers, keywords or bracketed terms).
const std::set<std::string, std::less<>> kUnquoted = {"anticodon", "citation", "codon_start", "compare", "direction",
                                                      "estimated_length", "mod_base", "number", "rpt_type",
                                                      "rpt_unit_range", "tag_peptide", "transl_except", "transl_table"};

constexpr size_t kText = 58;  // columns 22-79

// `text` from column 22 in lines of at most kText characters where it can be broken: after a comma
// (locations, read back without blanks), at a single blank (values, read back with one), or
// anywhere (a /translation, read back without blanks). A word longer than a line stays whole.
void write_wrapped(std::ostream& out, const std::string& text, char mode) {
    static const std::string indent(21, ' ');
    size_t i = 0;
    while (i < text.size()) {
        size_t take = std::min(kText, text.size() - i), skip = 0;
        if (i + take < text.size() && mode != 'a') {
            size_t cut = std::string::npos;
            for (size_t j = i + take; j > i; --j) {
                if (mode == ',' && text[j - 1] == ',') {
                    cut = j;
                    break;
                }
                if (mode == ' ' && text[j] == ' ' && text[j - 1] != ' ' && j + 1 < text.size() && text[j + 1] != ' ') {
                    cut = j;
                    break;
                }
            }
            if (cut == std::string::npos) {  // no break point in reach: the next one, however far
                for (size_t j = i + take; j < text.size() && cut == std::string::npos; ++j)
                    if ((mode == ',' && text[j] == ',') ||
                        (mode == ' ' && text[j] == ' ' && text[j - 1] != ' ' && j + 1 < text.size() && text[j + 1] != ' '))
                        cut = mode == ',' ? j + 1 : j;
                if (cut == std::string::npos) cut = text.size();
            }
            take = cut - i;
            skip = mode == ' ' && cut < text.size() ? 1 : 0;
        }
        out << (i ? indent : std::string()) << text.substr(i, take) << '\n';
        i += take + skip;
    }
}

// A header field: its keyword in the first 12 columns, the text from column 13 wrapped at blanks
// to 80 columns, continuation lines indented to column 13.
void write_header_field(std::ostream& out, const std::string& keyword, const std::string& text) {
    constexpr size_t kWidth = 80 - 12;
    std::string pad = keyword;
    pad.resize(12, ' ');
    size_t i = 0;
    do {
        size_t take = std::min(kWidth, text.size() - i);
        if (i + take < text.size()) {
            const size_t blank = text.rfind(' ', i + take);
            if (blank != std::string::npos && blank > i) take = blank - i;
        }
        out << (i ? std::string(12, ' ') : pad) << text.substr(i, take) << '\n';
        i += take;
        while (i < text.size() && text[i] == ' ') ++i;
    } while (i < text.size());
}

}  // namespace

void export_genbank_sequence(Project& project, std::ostream& out, int64_t sequence_id) {
    const auto s = project.sequence(sequence_id);
    if (!s) throw Error(project.path() + ": no sequence with id " + std::to_string(sequence_id));
    // The header the entry was imported with (its division, date, accession, version, keywords,
    // source and organism), "." where it had none; a sequence typed, or edited since its import
    // (update_sequence drops the entry's date), is dated by its last change.
    const EntryHeader& h = s->header;
    out << genbank_locus_line(s->name, "sequence_" + std::to_string(s->id), s->bases.size(), h.division.empty() ? "UNA" : h.division.c_str(),
                              s->modified, h.date, h.molecule, h.topology)
        << "DEFINITION  ";
    write_wrapped(out, s->description.empty() ? std::string(".") : s->description, ' ');
    write_header_field(out, "ACCESSION", h.accession.empty() ? "." : h.accession);
    write_header_field(out, "VERSION", h.version.empty() ? "." : h.version);
    write_header_field(out, "KEYWORDS", h.keywords + ".");
    write_header_field(out, "SOURCE", h.source.empty() ? (h.organism.empty() ? "." : h.organism) : h.source);
    write_header_field(out, "  ORGANISM", h.organism.empty() ? "." : h.organism);
    if (!h.lineage.empty()) write_header_field(out, "", h.lineage + ".");
    out << "COMMENT     Exported by Carbon Studio from " << project.path() << " (sequence " << s->id << ", from " << s->origin << ").\n"
        << "FEATURES             Location/Qualifiers\n";
    for (const FeatureRecord& f : project.features_of_sequence(sequence_id)) {
        char key[32];
        std::snprintf(key, sizeof key, "     %-16s", f.key.c_str());
        out << key;
        if (f.key.size() > 15) out << ' ';  // a long key still needs its blank before the location
        write_wrapped(out, f.location, ',');
        for (const auto& [name, value] : f.qualifiers) {
            std::string q = "/" + name;
            char mode = ' ';
            if (value) {
                if (kUnquoted.count(name)) {
                    q += "=" + *value;
                } else {
                    std::string v;
                    for (char c : *value) v += c == '"' ? std::string("\"\"") : std::string(1, c);
                    q += "=\"" + v + "\"";
                    if (name == "translation") mode = 'a';
                }
            }
            out << std::string(21, ' ');
            write_wrapped(out, q, mode);
        }
    }
    write_genbank_origin(out, s->bases);
    if (!out) throw Error("cannot write the GenBank export (disk full?)");
}

}  // namespace carbon::storage
