// The .fai reader, the raw reads and the layout checks of fasta_index.h.
#include "fasta_index.h"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include "carbon/support/common.h"

namespace carbon::storage {

namespace {

constexpr int64_t kMaxHeaderBytes = int64_t(1) << 20;  // a header line longer than this is not one
constexpr int64_t kMaxLineBreak = 256;                 // bytes after a line's bases (trailing blanks, \r\n)
constexpr size_t kTailBytes = size_t(64) << 10;        // what is read after the last contig

bool is_base(char c) { return std::isgraph(static_cast<unsigned char>(c)) && c != '>'; }
bool is_blank(char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; }

std::string printable(char c) {
    if (c == '\n') return "a line break";
    if (c == '\r') return "a carriage return";
    if (std::isgraph(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", unsigned(static_cast<unsigned char>(c)));
    return buf;
}

// The 1-based line of the file that holds byte `offset` (for messages only: reads up to it).
int64_t line_of(const RawFasta& f, int64_t offset) {
    int64_t line = 1;
    constexpr size_t kChunk = size_t(4) << 20;
    for (int64_t at = 0; at < offset;) {
        const std::string s = f.read(at, size_t(std::min<int64_t>(int64_t(kChunk), offset - at)));
        if (s.empty()) break;
        line += std::count(s.begin(), s.end(), '\n');
        at += int64_t(s.size());
    }
    return line;
}

std::string at_line(const RawFasta& f, const std::string& path, int64_t offset) {
    return path + ":" + std::to_string(line_of(f, offset));
}

// A line break as the index says: `width` bytes of blanks, the last a '\n'. Empty when it is one,
// else what is wrong.
std::string line_break_problem(const std::string& s, size_t at, int64_t width) {
    if (at + size_t(width) > s.size()) return "the file ends";
    for (int64_t k = 0; k < width; ++k)
        if (!is_blank(s[at + size_t(k)]) || (k + 1 == width && s[at + size_t(k)] != '\n'))
            return printable(s[at + size_t(k)]) + " where a line break belongs";
    return {};
}

// The name a header line gives ('>' NAME [description]): htslib's rule, up to the first blank.
std::string header_name(const std::string& line) {
    size_t e = 1;
    while (e < line.size() && !std::isspace(static_cast<unsigned char>(line[e]))) ++e;
    return line.substr(1, e - 1);
}

int64_t number(const std::string& field, const std::string& where, const char* what) {
    if (field.empty() || field.size() > 15 || field.find_first_not_of("0123456789") != std::string::npos)
        throw Error(where + what + " '" + field.substr(0, 40) + "' is not a whole number below 10^15");
    return std::stoll(field);
}

}  // namespace

std::vector<FaiEntry> read_fai_file(const std::string& fai, const std::string& fasta) {
    std::ifstream f(fai, std::ios::binary);
    if (!f) throw Error(fai + ": cannot read the index of " + fasta);
    std::vector<FaiEntry> out;
    std::string line;
    size_t n = 0;
    while (std::getline(f, line)) {
        ++n;
        const std::string where = fai + ":" + std::to_string(n) + ": ";
        if (line.size() > size_t(kMaxHeaderBytes)) throw Error(where + "a line of more than 1 MiB is not a faidx line");
        std::vector<std::string> cols;
        for (size_t a = 0;;) {
            const size_t b = line.find('\t', a);
            cols.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
            if (b == std::string::npos) break;
            a = b + 1;
        }
        if (cols.size() == 6) throw Error(where + "an index of a FASTQ file (6 columns), not of a FASTA");
        if (cols.size() != 5)
            throw Error(where + "not a faidx line: NAME, LENGTH, OFFSET, LINEBASES, LINEWIDTH separated by tabs (" +
                        std::to_string(cols.size()) + " columns)");
        FaiEntry e;
        e.name = cols[0];
        if (e.name.empty()) throw Error(where + "the contig's name is empty");
        e.length = number(cols[1], where, "LENGTH");
        e.offset = number(cols[2], where, "OFFSET");
        e.line_bases = number(cols[3], where, "LINEBASES");
        e.line_bytes = number(cols[4], where, "LINEWIDTH");
        if (e.length > 0 && e.line_bases < 1) throw Error(where + "LINEBASES is 0 for a contig of " + cols[1] + " bases");
        if (e.length > 0 && (e.line_bytes <= e.line_bases || e.line_bytes - e.line_bases > kMaxLineBreak))
            throw Error(where + "LINEWIDTH " + cols[4] + " is not LINEBASES " + cols[3] + " plus a line break");
        out.push_back(std::move(e));
    }
    return out;
}

RawFasta::RawFasta(const std::string& path, bool bgzip, const std::string& gzi) : path_(path) {
    if (bgzip) {
        bgzf_ = bgzf_open(path.c_str(), "r");
        if (!bgzf_) throw Error(path + ": htslib cannot open it as bgzip: " + std::strerror(errno));
        if (bgzf_index_load(bgzf_, gzi.c_str(), nullptr) != 0) {
            bgzf_close(bgzf_);
            bgzf_ = nullptr;
            throw Error(gzi + ": htslib cannot read it as the bgzip index (.gzi) of " + path);
        }
    } else {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    }
}

RawFasta::~RawFasta() {
    if (bgzf_) bgzf_close(bgzf_);
    if (fd_ >= 0) ::close(fd_);
}

std::string RawFasta::read(int64_t offset, size_t n) const {
    std::string out(n, '\0');
    size_t got = 0;
    if (bgzf_) {
        std::lock_guard lock(mutex_);
        if (bgzf_useek(bgzf_, offset, SEEK_SET) < 0) return {};  // past the end
        while (got < n) {
            const ssize_t r = bgzf_read(bgzf_, out.data() + got, n - got);
            if (r < 0) throw Error(path_ + ": htslib could not decompress it near byte " + std::to_string(offset + int64_t(got)) + " (damaged bgzip)");
            if (r == 0) break;
            got += size_t(r);
        }
    } else {
        while (got < n) {
            const ssize_t r = ::pread(fd_, out.data() + got, n - got, off_t(offset + int64_t(got)));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) throw Error(path_ + ": cannot read at byte " + std::to_string(offset + int64_t(got)) + ": " + std::strerror(errno));
            if (r == 0) break;
            got += size_t(r);
        }
    }
    out.resize(got);
    return out;
}

std::optional<std::string> check_fai_layout(const std::vector<FaiEntry>& entries, const RawFasta& f, const std::string& path) {
    std::unordered_map<std::string, size_t> seen;
    int64_t prev_end = 0;  // the byte after the previous contig's last base
    auto named_twice = [&](const std::string& name, int64_t header_at) {
        return "contig '" + name + "' is named twice: again at " + at_line(f, path, header_at) +
               " (a VCF's CHROM cannot tell them apart: rename or remove one)";
    };
    for (const FaiEntry& e : entries) {
        const std::string c = "contig '" + e.name + "'";
        if (seen.count(e.name)) return "the index lists " + c + " twice";
        if (e.offset < prev_end) return "the index puts " + c + " at byte " + std::to_string(e.offset) + ", inside the contig before it";
        // The header: blanks (the previous line's break, blank lines), then '>' NAME ... '\n' ending where the bases begin.
        const int64_t gap = e.offset - prev_end;
        const std::string h = f.read(prev_end, size_t(std::min(gap, kMaxHeaderBytes)));
        size_t k = 0;
        while (k < h.size() && is_blank(h[k])) ++k;
        if (k == h.size() || h[k] != '>')
            return "no header line '>" + e.name + "' before the first base the index gives " + c + " (byte " + std::to_string(e.offset) + ")";
        const size_t eol = h.find('\n', k);
        const std::string line = h.substr(k, eol == std::string::npos ? std::string::npos : eol - k);
        const std::string name = header_name(line);
        if (name != e.name) {
            if (seen.count(name)) return named_twice(name, prev_end + int64_t(k));
            return "the header line at " + at_line(f, path, prev_end + int64_t(k)) + " names '" + name + "' where the index expects " + c;
        }
        if (eol == std::string::npos || int64_t(eol) + 1 != gap)
            return "the bases of " + c + " do not begin where the index says (byte " + std::to_string(e.offset) +
                   "): its header line ends at byte " +
                   (eol == std::string::npos ? std::string("(more than 1 MiB on)") : std::to_string(prev_end + int64_t(eol) + 1));
        // The first and the last line: bases, and a line break where LINEBASES and LINEWIDTH put it.
        int64_t end = e.offset;
        if (e.length > 0) {
            const int64_t b = e.line_bases, w = e.line_bytes;
            const int64_t lines = (e.length + b - 1) / b, last = e.length - (lines - 1) * b;
            auto check_line = [&](int64_t start, int64_t bases, bool break_after) -> std::string {
                const std::string s = f.read(start, size_t(bases + (break_after ? w - b : 0)));
                for (int64_t j = 0; j < bases; ++j)
                    if (j >= int64_t(s.size()) || !is_base(s[size_t(j)]))
                        return j >= int64_t(s.size()) ? "the file ends at byte " + std::to_string(start + int64_t(s.size()))
                                                      : printable(s[size_t(j)]) + " at " + at_line(f, path, start + j) +
                                                            " where the index expects a base of " + c;
                if (!break_after) return {};
                const std::string why = line_break_problem(s, size_t(bases), w - b);
                return why.empty() ? why : why + " at " + at_line(f, path, start + bases) + " (after " + std::to_string(b) + " bases of " + c + ")";
            };
            std::string why = check_line(e.offset, std::min(e.length, b), lines > 1);
            if (why.empty() && lines > 1) why = check_line(e.offset + (lines - 1) * w - (w - b), 0, true);
            end = e.offset + (lines - 1) * w + last;
            if (why.empty() && lines > 1) why = check_line(end - last, last, false);
            if (!why.empty()) return why;
            const std::string after = f.read(end, 1);
            if (!after.empty() && !is_blank(after[0]))
                return c + " goes on past the " + std::to_string(e.length) + " bases the index gives it (" + printable(after[0]) +
                       " at " + at_line(f, path, end) + ")";
        }
        seen.emplace(e.name, seen.size());
        prev_end = end;
    }
    const std::string tail = f.read(prev_end, kTailBytes);
    size_t k = 0;
    while (k < tail.size() && is_blank(tail[k])) ++k;
    if (k < tail.size()) {
        if (tail[k] == '>') {
            const std::string name = header_name(tail.substr(k, tail.find('\n', k) - k));
            if (seen.count(name)) return named_twice(name, prev_end + int64_t(k));
            return "contig '" + name + "' at " + at_line(f, path, prev_end + int64_t(k)) + " is not in the index";
        }
        return printable(tail[k]) + " at " + at_line(f, path, prev_end + int64_t(k)) + " after the last contig the index lists";
    }
    return std::nullopt;
}

std::string fetch_bases(const FaiEntry& e, const RawFasta& f, int64_t begin, int64_t end, const std::string& path) {
    if (begin >= end) return {};
    const int64_t b = e.line_bases, w = e.line_bytes;
    auto raw = [&](int64_t pos) { return e.offset + (pos / b) * w + pos % b; };
    const int64_t first = raw(begin);
    const std::string s = f.read(first, size_t(raw(end - 1) + 1 - first));
    auto mismatch = [&](size_t i, const std::string& what) {
        return Error(at_line(f, path, first + int64_t(i)) + ": " + what + " in " + e.name + ":" + std::to_string(begin + 1) + "-" +
                     std::to_string(end) + ": the FASTA does not match its index (it changed after it was indexed, or the lines of " +
                     e.name + " are not all the same length); index it again (samtools faidx) or delete its .fai");
    };
    std::string out;
    out.reserve(size_t(end - begin));
    size_t i = 0;
    for (int64_t pos = begin; pos < end;) {
        const int64_t take = std::min(b - pos % b, end - pos);
        for (int64_t j = 0; j < take; ++j, ++i) {
            if (i >= s.size()) throw mismatch(i, "the file ends");
            if (!is_base(s[i])) throw mismatch(i, printable(s[i]) + " where a base belongs");
            out.push_back(s[i]);
        }
        pos += take;
        if (pos < end) {
            const std::string why = line_break_problem(s, i, w - b);
            if (!why.empty()) throw mismatch(i, why);
            i += size_t(w - b);
        }
    }
    return out;
}

}  // namespace carbon::storage
