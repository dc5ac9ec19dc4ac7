// carbon-cli FASTA reader (see cli_fasta.h): a chunked scanner that checks every byte as it is
// read, so that a binary file (/dev/zero) or a file without line breaks is refused at once
// instead of being read whole into one line.
#include "cli_fasta.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "carbon/support/common.h"

namespace carbon::cli {

namespace {

constexpr size_t kMaxHeader = size_t(1) << 20;

std::string shown(unsigned char u) {
    if (u == 0) return "a NUL byte (0x00): this looks like a binary file, not FASTA";
    if (u >= 0x21 && u < 0x7f) return std::string("'") + char(u) + "'";
    char b[16];
    std::snprintf(b, sizeof b, "byte 0x%02x", unsigned(u));
    return b;
}

// Half the memory available now: the records are held whole, and the engine needs the rest.
size_t sequence_budget() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        size_t kib = 0;
        meminfo >> kib;
        if (key == "MemAvailable:") return kib * 1024 / 2;
        meminfo.ignore(64, '\n');
    }
    return SIZE_MAX;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::vector<FastaRecord> read_fasta(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a folder, not a FASTA file");
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f) throw Error(path + ": cannot open: " + std::strerror(errno));
    const size_t budget = sequence_budget();
    std::vector<FastaRecord> out;
    std::string header;
    enum { LineStart, Header, Sequence, Skip } state = LineStart;
    size_t line = 1, col = 1, total = 0;
    bool pending_cr = false;  // a CR was the last byte read: the next must be a line feed
    auto fail = [&](const std::string& what) -> void { throw Error(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what); };
    auto finish_header = [&] {
        const size_t b = header.find_first_not_of(" \t");
        if (b == std::string::npos) throw Error(path + ":" + std::to_string(line) + ": FASTA header has no name after '>'");
        FastaRecord r;
        r.line = line;
        const size_t sp = header.find_first_of(" \t", b);
        r.name = header.substr(b, sp == std::string::npos ? std::string::npos : sp - b);
        if (sp != std::string::npos) {
            const size_t d = header.find_first_not_of(" \t", sp);
            const size_t e = header.find_last_not_of(" \t");
            if (d != std::string::npos) r.description = header.substr(d, e - d + 1);
        }
        out.push_back(std::move(r));
    };
    std::vector<char> buf(1 << 16);
    bool first_chunk = true;
    for (;;) {
        size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
        if (n == 0) {
            if (std::ferror(f.get())) throw Error(path + ": cannot read: " + std::strerror(errno));
            break;
        }
        size_t i = 0;
        if (first_chunk && n >= 3 && std::memcmp(buf.data(), "\xEF\xBB\xBF", 3) == 0) i = 3;  // UTF-8 byte order mark
        first_chunk = false;
        for (; i < n; ++i) {
            const unsigned char c = static_cast<unsigned char>(buf[i]);
            if (pending_cr) {
                pending_cr = false;
                if (c != '\n')
                    fail("a carriage return not followed by a line feed (classic Mac line endings); convert the file to LF line "
                         "endings first, e.g. tr '\\r' '\\n'");
            }
            if (c == '\r') {
                pending_cr = true;
                continue;
            }
            if (c == '\n') {
                if (state == Header) finish_header();
                state = LineStart;
                ++line;
                col = 1;
                continue;
            }
            if (state == LineStart) {
                if (c == '>') {
                    state = Header;
                    header.clear();
                    ++col;
                    continue;
                }
                state = out.empty() ? Skip : Sequence;  // Skip: only blanks may stand before the first header
            }
            if (c == 0 || (c < 0x20 && c != '\t') || c == 0x7f) fail(shown(c) + (state == Header ? " in the header" : ""));
            if (state == Header) {
                header += char(c);
                if (header.size() > kMaxHeader) fail("the header line is longer than 1 MiB (is this a FASTA file?)");
            } else if (c != ' ' && c != '\t') {
                if (state == Skip) fail("sequence data before the first '>' header");
                // Letters (any IUPAC code, either case), gaps and stops are sequence; the model
                // reads every letter but A/C/G/T as unknown, which the scorer reports.
                if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '*' || c == '.'))
                    fail(shown(c) + " is not a sequence character (record '" + out.back().name + "')");
                if (++total > budget)
                    fail("more than " + std::to_string(budget) + " bases in the file, half the memory this machine has available");
                out.back().sequence.push_back(char(c));
            }
            ++col;
        }
    }
    if (state == Header) finish_header();  // a header as the last line, without a line feed
    if (out.empty()) throw Error(path + ": no FASTA records (no line starts with '>')");
    for (const FastaRecord& r : out)
        if (r.sequence.empty())
            throw Error(path + ":" + std::to_string(r.line) + ": record '" + r.name + "' has no bases (a header line without sequence)");
    return out;
}

}  // namespace carbon::cli
