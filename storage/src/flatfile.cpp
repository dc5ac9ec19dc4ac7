// GenBank and EMBL reading (see flatfile.h). Both keep the feature table in the same columns (the
// key from column 6, the location and qualifiers from column 22), so EMBL's "FT" lines are read
// as GenBank's FEATURES lines once their prefix is blanked; the header lines and the sequence
// block differ and are read per format.
#include "carbon/storage/flatfile.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <set>

#include "carbon/storage/fasta.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"
#include "gzip_reader.h"

namespace carbon::storage {

namespace {

// The INSDC Feature Table Definition's keys (release 11.x), and the retired ones still met in
// older entries (allele, conflict, mutation, ...).
const std::set<std::string, std::less<>> kFeatureKeys = {
    "-10_signal", "-35_signal", "3'clip", "3'UTR", "5'clip", "5'UTR", "allele", "assembly_gap", "attenuator", "C_region",
    "CAAT_signal", "CDS", "centromere", "conflict", "D-loop", "D_segment", "enhancer", "exon", "gap", "GC_signal", "gene",
    "iDNA", "intron", "J_segment", "LTR", "mat_peptide", "misc_binding", "misc_difference", "misc_feature", "misc_recomb",
    "misc_RNA", "misc_signal", "misc_structure", "mobile_element", "modified_base", "mRNA", "mutation", "N_region",
    "ncRNA", "old_sequence", "operon", "oriT", "polyA_signal", "polyA_site", "precursor_RNA", "prim_transcript",
    "primer_bind", "promoter", "propeptide", "protein_bind", "provirus", "RBS", "regulatory", "rep_origin",
    "repeat_region", "repeat_unit", "rRNA", "S_region", "satellite", "scRNA", "sig_peptide", "snoRNA", "snRNA", "source",
    "stem_loop", "STS", "TATA_signal", "telomere", "terminator", "tmRNA", "transit_peptide", "tRNA", "unsure",
    "V_region", "V_segment", "variation", "virion"};

constexpr size_t kMaxLine = size_t(1) << 20;

std::string trim(std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return std::string(s.substr(a, b - a));
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> w;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j > i) w.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return w;
}

// The line starts a GenBank record: "LOCUS" in capitals from column 1, then a blank or a tab.
bool is_locus_line(std::string_view line) {
    return line.starts_with("LOCUS") && (line.size() == 5 || line[5] == ' ' || line[5] == '\t');
}
// The line starts an EMBL record: "ID" in capitals from column 1, then a blank or a tab.
bool is_id_line(std::string_view line) {
    return line.starts_with("ID") && line.size() > 2 && (line[2] == ' ' || line[2] == '\t');
}
// A line that means to start a record but is not written as one (a leading blank, lower case):
// before the first record such a line would be read as the release header and its record lost.
bool looks_like_record_start(std::string_view line) {
    const auto w = words(line);
    if (w.empty()) return false;
    std::string first = w[0];
    for (char& c : first) c = char(std::toupper(static_cast<unsigned char>(c)));
    return first == "LOCUS" || (first == "ID" && line.find(';') != std::string_view::npos);
}

class Parser {
public:
    using Sink = std::function<void(FlatRecord&&)>;
    Parser(ByteSource& src, std::string name, Sink sink, size_t max_bases, std::string max_bases_why)
        : lines_(src, name, "GenBank/EMBL", kMaxLine),
          name_(std::move(name)),
          sink_(std::move(sink)),
          max_bases_(max_bases),
          max_bases_why_(std::move(max_bases_why)) {}

    std::vector<std::string> parse() {
        std::string line;
        while (next(line)) {
            // A UTF-8 byte-order mark (Windows editors write one): an encoding marker, not text.
            if (line_no_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
            if (is_locus_line(line)) {
                genbank(line);
            } else if (is_id_line(line)) {
                embl(line);
            } else if (records_ > 0 && trim(line).empty()) {
                continue;
            } else if (records_ > 0) {
                fail(line_no_, "expected LOCUS or ID to start the next record, found '" + visible_text(trim(line), 40) + "'");
            } else if (looks_like_record_start(line)) {
                fail(line_no_, "'" + visible_text(trim(line), 40) +
                                   "' looks like the first line of a record but is not written as one (LOCUS or ID in capitals "
                                   "from column 1): its record would be lost; correct the line");
            }
            // Before the first record: a release header (NCBI's flat-file division files start with one).
        }
        if (records_ == 0) fail(line_no_, "no GenBank (LOCUS) or EMBL (ID) record");
        return std::move(notices_);
    }

private:
    bool next(std::string& line) {
        if (!lines_.next(line)) return false;
        line_no_ = lines_.line_number();
        return true;
    }

    [[noreturn]] void fail(size_t line, const std::string& what) const {
        throw Error(name_ + ":" + std::to_string(line) + ": " + what);
    }

    // ---- GenBank ----
    void genbank(const std::string& locus) {
        FlatRecord r;
        r.format = "genbank";
        r.line = line_no_;
        const auto w = words(locus);
        if (w.size() < 2 || (w.size() > 2 && w[2] == "bp")) fail(line_no_, "the LOCUS line names no entry");
        int64_t declared = -1;
        for (size_t i = 1; i + 1 < w.size(); ++i) {
            if (w[i + 1] == "aa") fail(line_no_, "record " + w[1] + " is a protein (" + w[i] + " aa): only DNA records can be read");
            if (w[i + 1] == "bp") declared = to_length(w[i]);
        }
        r.name = w[1];
        r.circular = std::find(w.begin(), w.end(), "circular") != w.end();
        locus_fields(w, r.header);
        std::string line;
        std::string* continued = nullptr;  // the header field that indented lines continue
        enum { Header, Definition, Features, Origin } state = Header;
        Feature* f = nullptr;
        bool open_quote = false;
        while (next(line)) {
            if (line.starts_with("//")) {
                if (open_quote) unterminated(*f);
                return finish(std::move(r), declared);
            }
            const bool top = !line.empty() && line[0] != ' ';
            if (top) {
                if (open_quote) unterminated(*f);
                f = nullptr;
                const auto top_words = words(line);
                const std::string key = top_words.empty() ? std::string() : top_words[0];
                continued = nullptr;
                const std::string rest = trim(std::string_view(line).substr(std::min<size_t>(line.size(), 12)));
                if (key == "DEFINITION") {
                    r.description = trim(std::string_view(line).substr(std::min<size_t>(line.size(), 10)));
                    state = Definition;
                } else if (key == "VERSION") {
                    if (top_words.size() >= 2) r.accession = r.header.version = top_words[1];
                    state = Header;
                } else if (key == "ACCESSION" || key == "KEYWORDS" || key == "SOURCE") {
                    if (key == "ACCESSION") r.header.accession = top_words.size() >= 2 ? top_words[1] : std::string();
                    if (key != "ACCESSION") continued = key == "KEYWORDS" ? &r.header.keywords : &r.header.source;
                    if (continued) *continued = rest;
                    state = Header;
                } else if (key == "FEATURES") {
                    state = Features;
                } else if (key == "ORIGIN") {
                    state = Origin;
                } else if (key == "LOCUS" || key == "ID") {
                    fail(line_no_, "record " + r.name + " (line " + std::to_string(r.line) + ") has no // line before the next record");
                } else {
                    state = Header;
                }
                continue;
            }
            if (state == Header) {
                // ORGANISM under SOURCE: the name on its line, the lineage on the lines below.
                if (line.starts_with("  ORGANISM")) {
                    r.header.organism = trim(std::string_view(line).substr(std::min<size_t>(line.size(), 12)));
                    continued = &r.header.lineage;
                } else if (line.size() > 2 && line[2] != ' ') {
                    continued = nullptr;  // another sub-keyword (AUTHORS, TITLE, ...)
                } else if (continued && !trim(line).empty()) {
                    *continued += (continued->empty() ? "" : " ") + trim(line);
                }
                continue;
            }
            if (state == Definition) r.description += " " + trim(line);
            else if (state == Features) feature_line(line, r, f, open_quote);
            else if (state == Origin) sequence_line(line, r);
        }
        fail(line_no_, "record " + r.name + " (line " + std::to_string(r.line) + ") ends without its // line");
    }

    // ---- EMBL ----
    void embl(const std::string& id) {
        FlatRecord r;
        r.format = "embl";
        r.line = line_no_;
        const auto w = words(std::string_view(id).substr(2));
        if (w.empty()) fail(line_no_, "the ID line names no entry");
        r.name = w[0];
        if (!r.name.empty() && r.name.back() == ';') r.name.pop_back();
        if (r.name.empty()) fail(line_no_, "the ID line names no entry (its first word is empty)");
        int64_t declared = -1;
        std::string version;
        for (size_t i = 0; i < w.size(); ++i) {
            if ((w[i] == "BP." || w[i] == "BP") && i > 0) declared = to_length(w[i - 1]);
            if ((w[i] == "AA." || w[i] == "AA") && i > 0)
                fail(line_no_, "record " + r.name + " is a protein: only DNA records can be read");
            if (w[i] == "SV" && i + 1 < w.size()) version = w[i + 1].substr(0, w[i + 1].find(';'));
            if (w[i] == "circular;" || w[i] == "circular") r.circular = true;
        }
        id_fields(id, r.header);
        std::string line, accession;
        Feature* f = nullptr;
        bool open_quote = false, in_sequence = false;
        while (next(line)) {
            if (line.starts_with("//")) {
                if (open_quote) unterminated(*f);
                if (r.accession.empty() && !accession.empty()) r.accession = version.empty() ? accession : accession + "." + version;
                r.header.accession = accession;
                if (r.header.version.empty()) r.header.version = r.accession;
                return finish(std::move(r), declared);
            }
            if (in_sequence) {
                sequence_line(line, r);
                continue;
            }
            const std::string_view code = std::string_view(line).substr(0, 2);
            const std::string rest = line.size() > 5 ? line.substr(5) : std::string();
            if (code == "FT") {
                std::string ft = line;
                ft[0] = ft[1] = ' ';
                feature_line(ft, r, f, open_quote);
                continue;
            }
            if (open_quote) unterminated(*f);
            f = nullptr;
            if (code == "AC" && accession.empty()) {
                const auto a = words(rest);
                if (!a.empty()) accession = a[0].substr(0, a[0].find(';'));
            } else if (code == "SV") {
                r.accession = r.header.version = trim(rest);
            } else if (code == "KW") {
                append(r.header.keywords, rest);
            } else if (code == "OS" && r.header.organism.empty()) {
                r.header.organism = r.header.source = trim(rest);
            } else if (code == "OC") {
                append(r.header.lineage, rest);
            } else if (code == "DT") {
                const auto d = words(rest);
                if (!d.empty()) r.header.date = d[0];  // the last DT line: the entry's last update
            } else if (code == "DE") {
                r.description += (r.description.empty() ? "" : " ") + trim(rest);
            } else if (code == "SQ") {
                in_sequence = true;
            } else if (code == "ID") {
                fail(line_no_, "record " + r.name + " (line " + std::to_string(r.line) + ") has no // line before the next record");
            }
        }
        fail(line_no_, "record " + r.name + " (line " + std::to_string(r.line) + ") ends without its // line");
    }

    // LOCUS name length bp molecule topology division date: each field where it is recognisable
    // (older files leave some out).
    static void locus_fields(const std::vector<std::string>& w, EntryHeader& h) {
        size_t i = 0;
        while (i < w.size() && w[i] != "bp") ++i;
        for (++i; i < w.size(); ++i) {
            const std::string& x = w[i];
            if (x == "linear" || x == "circular") h.topology = x;
            else if (x.size() == 11 && x[2] == '-' && x[6] == '-') h.date = x;
            else if (x.size() == 3 && std::all_of(x.begin(), x.end(), [](char c) { return c >= 'A' && c <= 'Z'; }) && x != "DNA" && x != "RNA")
                h.division = x;
            else if (h.molecule.empty() && h.topology.empty()) h.molecule = x;
        }
    }

    // ID   name; SV 1; linear; mRNA; STD; PLN; 1859 BP.
    static void id_fields(const std::string& id, EntryHeader& h) {
        std::vector<std::string> f;
        std::string_view rest = std::string_view(id).substr(std::min<size_t>(id.size(), 5));
        for (size_t at; (at = rest.find(';')) != std::string_view::npos; rest.remove_prefix(at + 1)) f.push_back(trim(rest.substr(0, at)));
        if (f.size() >= 6) {
            h.topology = f[2];
            h.molecule = f[3].substr(f[3].rfind(' ') + 1);  // "genomic DNA": GenBank's molecule is DNA
            h.division = f[5];
        }
    }

    // EMBL's continued header lines (KW, OC), joined with one blank.
    static void append(std::string& field, const std::string& text) {
        const std::string t = trim(text);
        if (!t.empty()) field += (field.empty() ? "" : " ") + t;
    }

    [[noreturn]] void unterminated(const Feature& f) const {
        fail(line_no_, "the quoted value of /" + f.qualifiers.back().first + " (feature " + f.key + " at line " +
                           std::to_string(f.line) + ") is not closed before the feature table ends");
    }

    int64_t to_length(const std::string& s) const {
        if (s.empty() || s.size() > 15 || !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            fail(line_no_, "the declared length '" + s + "' is not a number");
        return std::stoll(s);
    }

    // The sequence block: letters, with the position numbers and blanks around them.
    void sequence_line(const std::string& line, FlatRecord& r) {
        for (size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (std::isdigit(static_cast<unsigned char>(c)) || std::isspace(static_cast<unsigned char>(c))) continue;
            if (!is_iupac_base(c))
                fail(line_no_, "'" + std::string(1, c) + "' (column " + std::to_string(i + 1) + ") in the sequence of " + r.name +
                                   " is not an IUPAC nucleotide code");
            r.bases += char(std::toupper(static_cast<unsigned char>(c)));
        }
        if (r.bases.size() > max_bases_)
            fail(line_no_, "record " + r.name + " holds more than " + std::to_string(max_bases_) + " bases: " + max_bases_why_);
    }

    // One line of the feature table, GenBank columns: a key from column 6 starts a feature; lines
    // indented to column 22 continue its location, start a qualifier (/) or continue one.
    void feature_line(const std::string& line, FlatRecord& r, Feature*& f, bool& open_quote) {
        size_t indent = 0;
        while (indent < line.size() && line[indent] == ' ') ++indent;
        if (trim(line).empty()) return;  // a blank line ("FH" spacer, trailing blanks)
        if (indent < 21 && !open_quote) {
            const auto w = words(line);
            Feature nf;
            nf.key = w[0];
            nf.line = line_no_;
            for (size_t i = 1; i < w.size(); ++i) nf.location += w[i];
            if (nf.key == "Key" && nf.location == "Location/Qualifiers") return;  // EMBL's FH header
            if (!kFeatureKeys.count(nf.key))
                notices_.push_back(name_ + ":" + std::to_string(line_no_) + ": feature key '" + nf.key +
                                       "' is not in the INSDC feature table; kept as written");
            r.features.push_back(std::move(nf));
            f = &r.features.back();
            return;
        }
        if (!f) fail(line_no_, "a continuation line before any feature key");
        const std::string text = trim(line);
        if (open_quote) {
            append_value(*f, text, open_quote);
        } else if (text[0] == '/') {
            const size_t eq = text.find('=');
            std::string key = text.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
            if (key.empty()) fail(line_no_, "a qualifier without a name");
            if (eq == std::string::npos) {
                f->qualifiers.emplace_back(std::move(key), std::nullopt);
                return;
            }
            f->qualifiers.emplace_back(std::move(key), std::string());
            const std::string value = text.substr(eq + 1);
            if (!value.empty() && value[0] == '"') {
                open_quote = true;
                append_value(*f, value.substr(1), open_quote, true);
            } else {
                *f->qualifiers.back().second = value;
            }
        } else if (f->qualifiers.empty()) {
            for (char c : text)
                if (c != ' ') f->location += c;
        } else {
            auto& v = f->qualifiers.back().second;
            if (!v) fail(line_no_, "text after the flag qualifier /" + f->qualifiers.back().first);
            *v += " " + text;
        }
    }

    // Quoted text up to its closing quote ("" is a quote); a line break is one blank, or nothing
    // in a /translation.
    void append_value(Feature& f, const std::string& text, bool& open_quote, bool first = false) {
        std::string& v = *f.qualifiers.back().second;
        if (!first && f.qualifiers.back().first != "translation") v += ' ';
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] != '"') {
                v += text[i];
            } else if (i + 1 < text.size() && text[i + 1] == '"') {
                v += '"';
                ++i;
            } else {
                open_quote = false;
                if (i + 1 < text.size() && !trim(std::string_view(text).substr(i + 1)).empty())
                    fail(line_no_, "text after the closing quote of /" + f.qualifiers.back().first);
                return;
            }
        }
    }

    void finish(FlatRecord r, int64_t declared) {
        if (r.description == ".") r.description.clear();  // GenBank's "none"
        // Closing periods are the format's, not the text's ("KEYWORDS    ." is none).
        for (std::string* field : {&r.header.keywords, &r.header.lineage})
            if (!field->empty() && field->back() == '.') field->pop_back();
        for (std::string* field : {&r.header.source, &r.header.organism, &r.header.accession, &r.header.version})
            if (*field == ".") field->clear();
        if (r.bases.empty())
            fail(r.line, "record " + r.name + " has no sequence (no ORIGIN / SQ block, as in a CONTIG record): nothing to import");
        if (declared >= 0 && declared != int64_t(r.bases.size()))
            fail(r.line, "record " + r.name + " declares " + std::to_string(declared) + " bp but its sequence holds " +
                             std::to_string(r.bases.size()));
        // U (an RNA entry): the engine reads DNA, so U is read as T, and said.
        if (const size_t u = size_t(std::count(r.bases.begin(), r.bases.end(), 'U')); u > 0) {
            std::replace(r.bases.begin(), r.bases.end(), 'U', 'T');
            notices_.push_back(name_ + ":" + std::to_string(r.line) + ": record " + r.name + ": " + std::to_string(u) +
                               " U (RNA) in its sequence, read as T");
        }
        // Text that is not UTF-8 is read as Latin-1 (what such files are written in), and said.
        auto utf8 = [&](std::string& text, size_t line, const std::string& what) {
            if (is_utf8(text)) return;
            text = latin1_to_utf8(text);
            notices_.push_back(name_ + ":" + std::to_string(line) + ": " + what + " is not UTF-8: read as Latin-1");
        };
        utf8(r.name, r.line, "the record's name");
        utf8(r.description, r.line, "record " + r.name + "'s description");
        for (std::string* field : {&r.header.accession, &r.header.version, &r.header.keywords, &r.header.source, &r.header.organism,
                                   &r.header.lineage, &r.header.division, &r.header.date, &r.header.molecule, &r.header.topology})
            utf8(*field, r.line, "a header field of record " + r.name);
        r.header = writable_entry_header(std::move(r.header));
        for (Feature& f : r.features) {
            const std::string where = name_ + ":" + std::to_string(f.line) + ": feature " + visible_text(f.key, 40);
            utf8(f.key, f.line, "the key of a feature");
            for (auto& [q, value] : f.qualifiers) {
                utf8(q, f.line, "a qualifier name of feature " + f.key);
                if (value) utf8(*value, f.line, "/" + q + " of feature " + f.key);
            }
            ParsedLocation loc = parse_insdc_location(f.location, int64_t(r.bases.size()), where);
            f.parts = std::move(loc.parts);
            f.remote = loc.remote;
        }
        ++records_;
        sink_(std::move(r));
    }

    LineReader lines_;
    std::string name_;
    Sink sink_;
    size_t max_bases_;
    std::string max_bases_why_;
    size_t line_no_ = 0, records_ = 0;
    std::vector<std::string> notices_;
};

}  // namespace

std::string feature_name(const std::vector<std::pair<std::string, std::optional<std::string>>>& qualifiers) {
    for (const char* k : {"label", "gene", "locus_tag", "product", "standard_name", "note"})
        for (const auto& [name, value] : qualifiers)
            if (name == k && value && !value->empty()) return *value;
    return {};
}

std::string Feature::display_label() const {
    std::string name = feature_name(qualifiers);
    return name.empty() ? key : name;
}

std::vector<std::string> read_flat_records(const std::string& path, const std::function<void(FlatRecord&&)>& record, size_t max_bases,
                                           const std::string& max_bases_why) {
    FileSource src(path);
    return Parser(src, path, record, max_bases, max_bases_why).parse();
}

FlatFile read_flat_file(const std::string& path) {
    FlatFile f;
    f.notices = read_flat_records(path, [&](FlatRecord&& r) { f.records.push_back(std::move(r)); });
    return f;
}

FlatFile read_flat_text(std::string_view text, const std::string& display_name) {
    MemorySource src(text);
    FlatFile f;
    f.notices = Parser(src, display_name, [&](FlatRecord&& r) { f.records.push_back(std::move(r)); }, SIZE_MAX, "").parse();
    return f;
}

bool looks_like_flat_file(std::string_view head) {
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    const std::string_view s = head.substr(i);
    if (s.starts_with("LOCUS ") || s.starts_with("ID   ")) return true;
    // An NCBI division file: a release header, then the first LOCUS at the start of a line.
    return !s.empty() && s[0] != '>' && head.find("\nLOCUS       ") != std::string_view::npos;
}

}  // namespace carbon::storage
