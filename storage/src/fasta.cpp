// The streaming FASTA reader (a chunked scanner, so a 100 Mbp single-line record costs no more
// than a wrapped one) and the FASTA writer. Every rejection names file, line and column.
#include "carbon/storage/fasta.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "carbon/support/common.h"
#include "gzip_reader.h"

namespace carbon::storage {

namespace {

constexpr size_t kChunk = 1 << 20;

std::array<bool, 256> make_iupac_table() {
    std::array<bool, 256> t{};
    for (const char* p = "ACGTURYSWKMBDHVN"; *p; ++p) {
        t[static_cast<unsigned char>(*p)] = true;
        t[static_cast<unsigned char>(*p - 'A' + 'a')] = true;
    }
    return t;
}
const std::array<bool, 256> kIupac = make_iupac_table();

// FastaReader::Alphabet::Letters: any letter, gaps and stops.
std::array<bool, 256> make_letters_table() {
    std::array<bool, 256> t{};
    for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = t[size_t(c - 'A' + 'a')] = true;
    t[size_t('-')] = t[size_t('*')] = t[size_t('.')] = true;
    return t;
}
const std::array<bool, 256> kLetters = make_letters_table();

// Why a byte cannot be in a sequence line, in words a user can act on.
std::string describe_bad_byte(unsigned char c) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", unsigned(c));
    if (c == 0) return "a NUL byte (0x00): this looks like a binary file, not FASTA";
    if (c == '-' || c == '.') return std::string("'") + char(c) + "' (an alignment gap) is not a nucleotide code; remove gaps first";
    if (c == '*') return "'*' (a stop or gap marker) is not a nucleotide code";
    if (c >= '0' && c <= '9') return std::string("digit '") + char(c) + "' in a sequence line (numbered GenBank/EMBL lines are not FASTA)";
    if (c == '>') return "'>' inside a sequence line (a header must start its own line)";
    if (c == ';') return "';' comment lines are not supported";
    if (c == '\r') return "a carriage return not followed by a line feed (old Mac line endings?)";
    if (c >= 0x80) return std::string("byte ") + hex + " (not ASCII) is not a nucleotide code";
    if (c < 0x20 || c == 0x7f) return std::string("control character ") + hex + " is not a nucleotide code";
    return std::string("'") + char(c) + "' is not an IUPAC nucleotide code (A C G T U R Y S W K M B D H V N)";
}

}  // namespace

bool is_iupac_base(char c) { return kIupac[static_cast<unsigned char>(c)]; }

FastaReader::FastaReader(const std::string& path)
    : src_(std::make_unique<FileSource>(path)), name_(path), buf_(kChunk) {}

FastaReader::FastaReader(std::string_view text, std::string display_name, size_t chunk_bytes)
    : src_(std::make_unique<MemorySource>(text)), name_(std::move(display_name)), buf_(std::max<size_t>(1, chunk_bytes)) {}

FastaReader::~FastaReader() = default;

void FastaReader::fail(const std::string& what, bool with_column) const {
    throw Error(name_ + ":" + std::to_string(line_) + (with_column ? ":" + std::to_string(col_) : "") + ": " + what);
}

bool FastaReader::fill() {
    if (eof_) return false;
    pos_ = 0;
    end_ = src_->read(buf_.data(), buf_.size());
    if (end_ == 0) eof_ = true;
    return end_ > 0;
}

void FastaReader::set_alphabet(Alphabet alphabet) {
    accepted_ = alphabet == Alphabet::Letters ? kLetters.data() : kIupac.data();
}

void FastaReader::limit_record_bases(size_t max_bases, std::string why) {
    max_bases_ = max_bases;
    max_bases_why_ = std::move(why);
}

// Checks the header bytes [from, header.size()) as they arrive, so that a binary file or an
// endless line is refused at once. A CR passes only as the last byte so far: the CR of a CRLF,
// or one the next chunk decides on (checking resumes there).
void FastaReader::check_header(const std::string& header, size_t from, size_t header_line) const {
    const size_t n = header.size();
    for (size_t i = from; i < n; ++i) {
        const unsigned char c = static_cast<unsigned char>(header[i]);
        if (c == '\r' ? i + 1 == n : !((c < 0x20 && c != '\t') || c == 0x7f)) continue;
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", unsigned(c));
        throw Error(name_ + ":" + std::to_string(header_line) + ":" + std::to_string(i + 2) + ": " +
                    (c == '\r' ? std::string("a carriage return inside the header (classic Mac line endings?)")
                     : c == 0   ? std::string("a NUL byte (0x00) in the header: this looks like a binary file, not FASTA")
                                : "control character " + std::string(hex) + " in the header"));
    }
    if (n > kFastaMaxHeader)
        throw Error(name_ + ":" + std::to_string(header_line) + ": the header line is longer than " + std::to_string(kFastaMaxHeader >> 20) +
                    " MiB (is this a FASTA file?)");
}

void FastaReader::take_header(std::string& header, size_t header_line) {
    if (!header.empty() && header.back() == '\r') header.pop_back();
    auto blank = [&](size_t i) { return header[i] == ' ' || header[i] == '\t'; };
    size_t a = 0;
    while (a < header.size() && blank(a)) ++a;
    size_t b = a;
    while (b < header.size() && !blank(b)) ++b;
    size_t d0 = b, d1 = header.size();
    while (d0 < d1 && blank(d0)) ++d0;
    while (d1 > d0 && blank(d1 - 1)) --d1;
    next_ = FastaEntry{};
    next_.name = header.substr(a, b - a);
    next_.description = header.substr(d0, d1 - d0);
    next_.line = header_line;
    next_.index = ++records_;
}

bool FastaReader::next(FastaEntry& out) {
    // States between bytes: at a line start, inside a header line, inside a sequence line.
    enum { LineStart, Header, Sequence } state = LineStart;
    std::string header;
    size_t header_line = 0;
    for (;;) {
        if (pos_ == end_ && !fill()) break;
        if (state == LineStart) {
            const char c = buf_[pos_];
            if (c == '>') {
                if (pending_) {  // the next record starts: hand out the current one
                    out = std::move(next_);
                    next_ = FastaEntry{};
                    pending_ = false;
                    return true;
                }
                ++pos_;
                ++col_;
                state = Header;
                header.clear();
                header_line = line_;
                continue;
            }
            if (c == '\n') {
                ++pos_;
                ++line_;
                col_ = 1;
                continue;
            }
            if (c == '\r' && pos_ + 1 < end_ && buf_[pos_ + 1] == '\n') {
                pos_ += 2;
                ++line_;
                col_ = 1;
                continue;
            }
            if (!seen_header_) {
                if (line_ == 1 && col_ == 1 && static_cast<unsigned char>(c) == 0x1f && pos_ + 1 < end_ &&
                    static_cast<unsigned char>(buf_[pos_ + 1]) == 0x8b)
                    fail("gzip data inside gzip data (compressed twice?)");
                if (line_ == 1 && col_ == 1 && end_ - pos_ >= 3 && std::memcmp(&buf_[pos_], "\xEF\xBB\xBF", 3) == 0) {
                    pos_ += 3;  // a UTF-8 byte order mark, as some editors write it
                    continue;
                }
                if (c == ' ' || c == '\t' || c == '\r') {
                    ++pos_;
                    ++col_;
                    continue;
                }
                const unsigned char u = static_cast<unsigned char>(c);
                if (kIupac[u]) fail("sequence before the first '>' header line");
                if (u > 0x20 && u < 0x7f) fail(std::string("not FASTA: expected a '>' header line, found '") + c + "'");
                fail("not FASTA: expected a '>' header line, found " + describe_bad_byte(u));
            }
            state = Sequence;
            continue;
        }
        if (state == Header) {
            const char* start = &buf_[pos_];
            const void* nl = std::memchr(start, '\n', end_ - pos_);
            const size_t n = nl ? size_t(static_cast<const char*>(nl) - start) : end_ - pos_;
            const size_t from = header.empty() ? 0 : header.size() - 1;  // a CR left at the last chunk's end
            header.append(start, n);
            check_header(header, from, header_line);
            pos_ += n;
            col_ += n;
            if (!nl) continue;
            ++pos_;
            take_header(header, header_line);
            pending_ = true;
            seen_header_ = true;
            ++line_;
            col_ = 1;
            state = LineStart;
            continue;
        }
        // Sequence: the hot loop; valid letters go straight into the record.
        std::string& bases = next_.bases;
        const bool* const ok = accepted_ ? accepted_ : kIupac.data();
        while (pos_ < end_) {
            const char c = buf_[pos_];
            if (ok[static_cast<unsigned char>(c)]) {
                size_t run = pos_ + 1;
                while (run < end_ && ok[static_cast<unsigned char>(buf_[run])]) ++run;
                if (bases.size() + (run - pos_) > max_bases_)
                    fail("record '" + next_.name + "' (line " + std::to_string(next_.line) + ") has more than " +
                         std::to_string(max_bases_) + " bases: " + max_bases_why_);
                bases.append(&buf_[pos_], run - pos_);
                col_ += run - pos_;
                pos_ = run;
                continue;
            }
            if (c == '\n') {
                ++pos_;
                ++line_;
                col_ = 1;
                state = LineStart;
                break;
            }
            if (c == ' ' || c == '\t') {
                ++pos_;
                ++col_;
                continue;
            }
            if (c == '\r') {
                if (pos_ + 1 == end_) {  // CR at the chunk's end: look at the next byte first
                    ++pos_;
                    if (!fill() || buf_[0] != '\n') {
                        if (eof_) break;  // CR at the very end of the file
                        fail(describe_bad_byte('\r'));
                    }
                    continue;  // the LF is handled by the loop
                }
                if (buf_[pos_ + 1] != '\n') fail(describe_bad_byte('\r'));
                ++pos_;
                continue;
            }
            fail(describe_bad_byte(static_cast<unsigned char>(c)));
        }
    }
    if (state == Header) {  // a header as the last line, without a line feed
        take_header(header, header_line);
        pending_ = true;
        seen_header_ = true;
    }
    if (pending_) {
        out = std::move(next_);
        next_ = FastaEntry{};
        pending_ = false;
        return true;
    }
    if (!seen_header_) {
        if (line_ == 1 && col_ == 1) throw Error(name_ + ": the file is empty");
        fail("no FASTA record (no '>' header line) in the file", false);
    }
    return false;
}

std::string header_escape(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (const char ch : v) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f || c == '%' || c == '=' || c == ',') {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", unsigned(c));
            out += b;
        } else {
            out += ch;
        }
    }
    return out;
}

std::string header_unescape(std::string_view v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '%' && i + 2 < v.size() && std::isxdigit(static_cast<unsigned char>(v[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(v[i + 2]))) {
            out += char(std::stoi(std::string(v.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += v[i];
        }
    }
    return out;
}

void write_fasta_record(std::ostream& out, std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields,
                        std::string_view bases, size_t width) {
    out << '>' << header_escape(name);
    for (const auto& [k, v] : fields) out << ' ' << k << '=' << header_escape(v);
    out << '\n';
    if (width == 0) width = bases.size() ? bases.size() : 1;
    for (size_t i = 0; i < bases.size(); i += width) out << bases.substr(i, width) << '\n';
}

}  // namespace carbon::storage
