// carbon-cli FASTA reader (see cli_fasta.h).
#include "cli_fasta.h"

#include <fstream>

#include "carbon/common.h"

namespace carbon::cli {

std::vector<FastaRecord> read_fasta(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot open");
    std::vector<FastaRecord> out;
    std::string line;
    size_t n = 0;
    while (std::getline(f, line)) {
        ++n;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line[0] == '>') {
            FastaRecord r;
            r.line = n;
            const std::string h = line.substr(1);
            const size_t sp = h.find_first_of(" \t");
            r.name = h.substr(0, sp);
            if (sp != std::string::npos) r.description = h.substr(h.find_first_not_of(" \t", sp) == std::string::npos ? h.size() : h.find_first_not_of(" \t", sp));
            out.push_back(std::move(r));
            continue;
        }
        if (out.empty()) throw Error(path + ":" + std::to_string(n) + ": sequence data before the first '>' header");
        for (size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (c == ' ' || c == '\t') continue;
            const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '*';
            if (!letter)
                throw Error(path + ":" + std::to_string(n) + ": character '" + std::string(1, c) + "' at column " +
                            std::to_string(i + 1) + " is not a sequence letter");
            out.back().sequence.push_back(c);
        }
    }
    if (f.bad()) throw Error(path + ": read error");
    if (out.empty()) throw Error(path + ": no FASTA records (no line starts with '>')");
    return out;
}

}  // namespace carbon::cli
