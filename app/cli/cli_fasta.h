// A small FASTA reader for carbon-cli (the project-file importer in storage/ is the full one):
// multi-record, any line width, CRLF, blank lines, a UTF-8 byte order mark; lowercase kept as
// is. Errors name the file and the 1-based line. No gzip (decompress first).
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

// Error for a file that cannot be read, holds no record, has sequence before the first header,
// a header without a name, or a character that is not a letter, '-', '*' or '.'.
std::vector<FastaRecord> read_fasta(const std::string& path);

}  // namespace carbon::cli
