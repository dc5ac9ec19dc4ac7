// GenBank / EMBL entries into a project with their feature tables, and a stored sequence back out
// as GenBank (see formats.h).
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/formats.h"
#include "carbon/support/visible_text.h"
#include "format_util.h"

namespace carbon::storage {

FlatImportResult import_flat_file(Project& project, const std::string& path) {
    // A record at a time into one transaction: memory is one record whatever the file inflates to,
    // and a malformed record anywhere rolls the whole file back (nothing stored).
    const RecordLimit limit = record_base_limit(project);
    FlatImportResult out;
    const std::string file = std::filesystem::path(path).filename().string();
    Transaction t(project);
    out.notices = read_flat_records(
        path,
        [&](FlatRecord&& r) {
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
        },
        limit.bases, limit.why);
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

// One word of printable ASCII (a feature key, a qualifier name): what GenBank's columns can hold.
bool one_printable_word(std::string_view t) {
    if (t.empty()) return false;
    for (char c : t)
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
    return true;
}

// What a GenBank file cannot hold, refused before a line is written: a control character in a
// header field or a qualifier (it would start a line of its own), a key or qualifier name that is
// not one word, a location that does not parse over the sequence as it is now. Error naming the
// sequence, the feature and what.
void check_exportable(const Project& project, const SequenceRecord& s, const std::vector<FeatureRecord>& features) {
    const std::string seq = project.path() + ": sequence '" + visible_text(s.name, 80) + "' (id " + std::to_string(s.id) + ")";
    auto no_control = [&](const std::string& what, const std::string& text) {
        if (const size_t at = first_control_char(text); at != std::string::npos)
            throw Error(seq + ": " + what + " holds a control character (" + visible_text(text.substr(at, 1)) + " at character " +
                        std::to_string(at + 1) + ": '" + visible_text(text, 60) + "'), which GenBank cannot hold; edit it first");
    };
    no_control("its description", s.description);
    const EntryHeader& h = s.header;
    for (const auto& [what, text] : {std::pair<const char*, const std::string*>{"ACCESSION", &h.accession}, {"VERSION", &h.version},
                                     {"KEYWORDS", &h.keywords}, {"SOURCE", &h.source}, {"ORGANISM", &h.organism}, {"the lineage", &h.lineage}})
        no_control(what, *text);
    for (size_t i = 0; i < features.size(); ++i) {
        const FeatureRecord& f = features[i];
        const std::string where = "feature " + std::to_string(i + 1) + " ('" + visible_text(f.key, 40) + "')";
        if (!one_printable_word(f.key))
            throw Error(seq + ": " + where + ": its key is not one word of printable characters, which GenBank needs; edit it first");
        parse_insdc_location(f.location, int64_t(s.bases.size()), seq + ": " + where);
        for (const auto& [name, value] : f.qualifiers) {
            if (!one_printable_word(name) || name.find('=') != std::string::npos)
                throw Error(seq + ": " + where + ": qualifier '" + visible_text(name, 40) + "' is not one word without '='");
            if (value) no_control(where + "'s /" + name, *value);
        }
    }
}

// An unquoted qualifier (kUnquoted) is written without quotes only when it reads back as written:
// no blank (a reader would stop there, or take " /" for the next qualifier) and no quote.
bool writes_unquoted(const std::string& name, const std::string& value) {
    return kUnquoted.count(name) && !value.empty() && value.find_first_of(" \"") == std::string::npos;
}

}  // namespace

std::vector<std::string> export_genbank_sequence(Project& project, std::ostream& out, int64_t sequence_id) {
    const auto s = project.sequence(sequence_id);
    if (!s) throw Error(project.path() + ": no sequence with id " + std::to_string(sequence_id));
    const std::vector<FeatureRecord> features = project.features_of_sequence(sequence_id);
    check_exportable(project, *s, features);
    // The header the entry was imported with (its division, date, accession, version, keywords,
    // source and organism), "." where it had none; a sequence typed, or edited since its import
    // (update_sequence drops the entry's date), is dated by its last change.
    const EntryHeader& h = s->header;
    std::vector<std::string> notes;
    const std::string locus = genbank_locus_name(s->name, "sequence_" + std::to_string(s->id), "sequence " + std::to_string(s->id), notes);
    out << genbank_locus_line(locus, s->bases.size(), h.division.empty() ? "UNA" : h.division.c_str(), s->modified, h.date, h.molecule,
                              h.topology)
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
    for (const FeatureRecord& f : features) {
        std::string key = "     " + f.key;  // columns 6-20, the location from column 22; a longer key stays whole
        key.resize(std::max<size_t>(21, key.size() + 1), ' ');
        out << key;
        write_wrapped(out, f.location, ',');
        for (const auto& [name, value] : f.qualifiers) {
            std::string q = "/" + name;
            char mode = ' ';
            if (value) {
                if (writes_unquoted(name, *value)) {
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
    return notes;
}

}  // namespace carbon::storage
