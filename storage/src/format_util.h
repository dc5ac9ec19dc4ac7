// Small helpers shared by the exporters: numbers as text, NA for missing values; the LOCUS line
// and the ORIGIN block of a GenBank file.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "carbon/storage/project.h"
#include "carbon/support/visible_text.h"

namespace carbon::storage {

// %.9g (or `digits`) of v, "NA" for NaN (the convention of every TSV/CSV the project writes).
inline std::string num(double v, int digits = 9) {
    if (std::isnan(v)) return "NA";
    char b[40];
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return b;
}

// The most bases one imported record may have, and why: SQLite stores a value of at most its
// length limit (one billion bytes by default), and an import holds a record about twice (the text,
// and SQLite's copy while it is written) with room for the string's growth: three bytes per base
// of the memory available. (formats_fasta_tracks.cpp)
struct RecordLimit {
    size_t bases;
    std::string why;
};
RecordLimit record_base_limit(Project& project);

// The name a LOCUS line holds for `name`: blanks and control characters as '_' (a LOCUS name is one
// word), `fallback` when empty, whole however long (names past the strict 16 columns are still read
// by Biopython and SnapGene, separated by blanks). `notes` gets what changed, naming `what`.
inline std::string genbank_locus_name(const std::string& name, const std::string& fallback, const std::string& what,
                                      std::vector<std::string>& notes) {
    std::string locus;
    for (char c : name) locus += static_cast<unsigned char>(c) <= 0x20 || c == 0x7f ? '_' : c;
    if (locus.empty()) {
        notes.push_back(what + " has no name; its LOCUS name is '" + fallback + "'");
        return fallback;
    }
    if (locus != name)
        notes.push_back(what + " '" + visible_text(name, 80) + "': a LOCUS name is one word, so it was written '" + visible_text(locus, 80) +
                        "' (blanks and control characters as '_'); imported again, it has that name");
    return locus;
}

// The LOCUS line, with its line break: `locus` (from genbank_locus_name), the length, the molecule
// (DNA unless given), the topology (linear unless given), the division and the date: `date` as
// written (DD-MMM-YYYY) when given, else that of `iso_time` (now when it has none).
inline std::string genbank_locus_line(std::string locus, size_t length,
                                      const char* division, const std::string& iso_time, const std::string& date_as_written = {},
                                      const std::string& molecule = {}, const std::string& topology = {}) {
    static const char* const kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    const std::string when = iso_time.size() >= 10 ? iso_time : utc_now_iso8601();
    const int month = std::atoi(when.substr(5, 2).c_str());
    const std::string date = !date_as_written.empty() ? date_as_written
                                                      : when.substr(8, 2) + "-" + kMonths[(month >= 1 && month <= 12) ? month - 1 : 0] + "-" + when.substr(0, 4);
    // Columns as INSDC writes them; a longer name stays whole (no fixed buffer cuts it).
    char tail[160];
    std::snprintf(tail, sizeof tail, " %11zu bp    %-7s %-8s %s %s\n", length, molecule.empty() ? "DNA" : molecule.substr(0, 40).c_str(),
                  topology.empty() ? "linear" : topology.substr(0, 20).c_str(), std::string(division).substr(0, 20).c_str(),
                  date.substr(0, 40).c_str());
    if (locus.size() < 16) locus.resize(16, ' ');
    return "LOCUS       " + locus + tail;
}

// "ORIGIN", the bases in lower case in blocks of 10, 60 a line after their 1-based position, "//".
inline void write_genbank_origin(std::ostream& out, const std::string& bases) {
    out << "ORIGIN\n";
    for (size_t i = 0; i < bases.size(); i += 60) {
        char pos[32];
        std::snprintf(pos, sizeof pos, "%9zu", i + 1);
        out << pos;
        for (size_t j = i; j < std::min(i + 60, bases.size()); j += 10) {
            std::string block = bases.substr(j, 10);
            for (char& c : block) c = char(std::tolower(static_cast<unsigned char>(c)));
            out << ' ' << block;
        }
        out << '\n';
    }
    out << "//\n";
}

}  // namespace carbon::storage
