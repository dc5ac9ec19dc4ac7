// GenBank and EMBL flat files (NCBI, ENA, DDBJ, and the exports of SnapGene, Benchling, UGENE and
// EMBOSS): records with their sequence and their feature table (key, INSDC location, qualifiers).
// A streaming reader (plain or gzip, multi-record, records of any length) that refuses anything
// malformed with FILE:LINE: a location that does not parse or lies outside the sequence, a
// sequence that is not IUPAC or disagrees with the declared length, a record without a sequence.
// Feature keys outside the INSDC feature table are kept, each with a notice naming its line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "carbon/storage/entry_header.h"

namespace carbon::storage {

// One local part of a feature's location: bases [start, end) (0-based; start == end for a site
// between two bases, a^b), on the reverse strand when `reverse`; `before_start` / `after_end`:
// the feature extends past the part's low / high end (INSDC's < and >).
struct LocationPart {
    int64_t start = 0, end = 0;
    bool reverse = false;
    bool before_start = false, after_end = false;
    bool operator==(const LocationPart&) const = default;
};

// An INSDC location (complement, join, order, ranges, single bases, a^b sites, < and >; remote
// parts ACC.V:range are kept in the text and left out of the parts) against a sequence of
// `length` bases. Parts are in biological order: complement(join(a, b)) gives b then a, both
// reverse (as Biopython's CompoundLocation does). Throws Error("<where>: ...") naming the column
// of the first character that does not fit.
struct ParsedLocation {
    std::vector<LocationPart> parts;
    bool remote = false;  // some parts are in other entries
};
ParsedLocation parse_insdc_location(std::string_view text, int64_t length, const std::string& where);

// The INSDC location of `parts` (biological order), which parse_insdc_location reads back to the
// same parts: one part plain or complement(...); several all on the reverse strand as
// complement(join(...)) in the file's order; otherwise join(...). A site before the first base
// (start == end == 0) cannot be written: Error.
std::string format_insdc_location(const std::vector<LocationPart>& parts);

struct Feature {
    std::string key;       // gene, CDS, promoter, misc_feature, ...
    std::string location;  // as written, line breaks and blanks removed
    std::vector<LocationPart> parts;
    bool remote = false;
    // In file order; a flag qualifier (/pseudo) has no value. Quoted values are unquoted ("" is
    // a quote), continuation lines joined with one blank (/translation without).
    std::vector<std::pair<std::string, std::optional<std::string>>> qualifiers;
    size_t line = 0;  // where the feature's key is
    // feature_name of its qualifiers; else the key.
    std::string display_label() const;
};

// What names a feature for a reader: the first of /label, /gene, /locus_tag, /product,
// /standard_name, /note with a value; empty when it has none of them.
std::string feature_name(const std::vector<std::pair<std::string, std::optional<std::string>>>& qualifiers);

struct FlatRecord {
    std::string format;       // "genbank" or "embl"
    std::string name;         // LOCUS name / ID's first word (";" removed)
    std::string accession;    // VERSION (GenBank) or AC + SV (EMBL); may be empty
    std::string description;  // DEFINITION / DE lines joined
    bool circular = false;    // the LOCUS / ID line says so
    EntryHeader header;       // LOCUS / ID fields, ACCESSION, VERSION, KEYWORDS, SOURCE, ORGANISM
    std::string bases;        // upper-cased IUPAC letters
    std::vector<Feature> features;
    size_t line = 0;  // the LOCUS / ID line
};

struct FlatFile {
    std::vector<FlatRecord> records;
    std::vector<std::string> notices;  // "FILE:LINE: feature key 'x' is not in the INSDC feature table; kept"
};

// Reads every record of a GenBank or EMBL file (recognised by its first non-blank line: LOCUS or
// ID). Error "FILE:LINE: what" on anything malformed; no records is an Error too. Every record is
// read or the file refused: a UTF-8 byte-order mark is skipped, LOCUS / ID may be followed by a
// tab, and a line before the first record that means to start one but is not written as one
// (a leading blank, lower case) is refused rather than taken for a release header; an EMBL ID
// without a name is refused. U in a sequence is read as T, text that is not UTF-8 as Latin-1,
// each said in the notices.
FlatFile read_flat_file(const std::string& path);
// The same, one record at a time: each complete record is handed to `record` (memory: one record,
// whatever the file), and a record of more than `max_bases` bases is refused as it is read, with
// `max_bases_why`. Returns the notices.
std::vector<std::string> read_flat_records(const std::string& path, const std::function<void(FlatRecord&&)>& record,
                                           size_t max_bases = SIZE_MAX, const std::string& max_bases_why = "");
FlatFile read_flat_text(std::string_view text, const std::string& display_name);

// Whether `head` (a file's first bytes) starts like a GenBank or EMBL file.
bool looks_like_flat_file(std::string_view head);

}  // namespace carbon::storage
