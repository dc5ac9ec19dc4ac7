// FASTA for carbon-cli's commands, through the one FASTA reader (storage::FastaReader, the project
// import's): plain, gzip or bgzip, multi-record, any line width, LF or CRLF, blank lines, a UTF-8
// byte order mark; lowercase kept as is. Errors name the file, line and column.
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

// Error for a file that cannot be read or is a folder, holds no record, has sequence before the
// first header, a header without a name or longer than 1 MiB, a record without bases, a byte that
// is not a letter, '-', '*' or '.' (a NUL byte: a binary file, refused at the first one), a
// carriage return not followed by a line feed (classic Mac line endings), gzip that is damaged or
// expands like a decompression bomb, or more bases than half the memory available.
std::vector<FastaRecord> read_fasta(const std::string& path);

}  // namespace carbon::cli
