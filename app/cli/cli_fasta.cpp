// carbon-cli FASTA reader (see cli_fasta.h).
#include "cli_fasta.h"

#include <fstream>

#include "carbon/common.h"

namespace carbon::cli {

namespace {

std::string shown(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return (u >= 0x21 && u < 0x7f) ? std::string("'") + c + "'" : "byte 0x" + std::string(1, "0123456789abcdef"[u >> 4]) +
                                                                      std::string(1, "0123456789abcdef"[u & 15]);
}

}  // namespace

std::vector<FastaRecord> read_fasta(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot open");
    std::vector<FastaRecord> out;
    std::string line;
    size_t n = 0;
    while (std::getline(f, line)) {
        ++n;
        if (n == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // UTF-8 byte order mark
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(n);
        if (line[0] == '>') {
            FastaRecord r;
            r.line = n;
            const std::string h = line.substr(1);
            const size_t b = h.find_first_not_of(" \t");
            if (b == std::string::npos) throw Error(where + ": FASTA header has no name after '>'");
            const size_t sp = h.find_first_of(" \t", b);
            r.name = h.substr(b, sp == std::string::npos ? std::string::npos : sp - b);
            if (sp != std::string::npos) {
                const size_t d = h.find_first_not_of(" \t", sp);
                if (d != std::string::npos) r.description = h.substr(d);
            }
            out.push_back(std::move(r));
            continue;
        }
        if (out.empty()) throw Error(where + ": sequence data before the first '>' header");
        for (size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (c == ' ' || c == '\t') continue;
            // Letters (any IUPAC code, either case), gaps and stops are sequence; the model reads
            // every letter but A/C/G/T as unknown, which the scorer reports.
            const bool seq = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '*' || c == '.';
            if (!seq)
                throw Error(where + ": " + shown(c) + " at column " + std::to_string(i + 1) +
                            " is not a sequence character (record '" + out.back().name + "')");
            out.back().sequence.push_back(c);
        }
    }
    if (f.bad()) throw Error(path + ": read error");
    if (out.empty()) throw Error(path + ": no FASTA records (no line starts with '>')");
    return out;
}

}  // namespace carbon::cli
