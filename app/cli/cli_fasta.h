// A small FASTA reader for carbon-cli (the project-file importer in storage/ is the full one):
// multi-record, any line width, CRLF, blank lines; lowercase kept as is. Errors name the file
// and the 1-based line.
#pragma once

#include <string>
#include <vector>

namespace carbon::cli {

struct FastaRecord {
    std::string name;         // first word of the header
    std::string description;  // rest of the header
    std::string sequence;     // bases, line breaks and spaces removed
    size_t line = 0;          // line of the header
};

std::vector<FastaRecord> read_fasta(const std::string& path);

}  // namespace carbon::cli
