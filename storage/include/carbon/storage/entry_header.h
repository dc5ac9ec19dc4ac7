// What a GenBank or EMBL entry says about itself beyond its sequence and its features (LOCUS / ID,
// ACCESSION, VERSION, KEYWORDS, SOURCE, ORGANISM and its lineage): read with the entry, kept with
// the imported sequence in the project, and written back by GenBank export, so that an entry goes
// out as it came in. Each field is "" when the file had none; a field whose text GenBank could not
// write back (a division that is not three capitals, a date not DD-MMM-YYYY, a line break) is not
// kept.
#pragma once

#include <string>

namespace carbon::storage {

struct EntryHeader {
    std::string molecule;   // DNA, mRNA, ss-DNA, ...
    std::string topology;   // "linear" or "circular"
    std::string division;   // PLN, BCT, SYN, ... (GenBank's three-letter division)
    std::string date;       // 12-MAR-2024
    std::string accession;  // the primary accession
    std::string version;    // accession.version
    std::string keywords;   // as written, without the closing '.'
    std::string source;     // SOURCE: the organism's common name
    std::string organism;   // ORGANISM / OS: its scientific name
    std::string lineage;    // the taxonomy under ORGANISM / OC, without the closing '.'
    bool empty() const { return *this == EntryHeader{}; }
    bool operator==(const EntryHeader&) const = default;
};

// The header as the project stores it (a JSON object of its non-empty fields) and back. Reading
// refuses, naming `where`, what is not such an object (a project file is untrusted input); fields
// it does not know are left out, and so is a field GenBank could not write back.
std::string entry_header_json(const EntryHeader& header);
EntryHeader parse_entry_header_json(const std::string& json, const std::string& where);

// The header with every field GenBank cannot write back emptied (see above).
EntryHeader writable_entry_header(EntryHeader header);

}  // namespace carbon::storage
