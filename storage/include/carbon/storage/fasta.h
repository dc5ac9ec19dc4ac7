// FASTA for project files: a streaming reader (plain or gzip, multi-record, any line width,
// CRLF, blank lines, empty names, soft-masked lowercase and IUPAC codes kept as written) with
// errors naming file, line and column, and a writer whose headers are parseable key=value.
// Limits hold while streaming: a header line of at most kFastaMaxHeader bytes, a caller's
// limit on the bases of one record, and the gzip expansion limit of gzip_reader.h.
#pragma once

#include <cstdint>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace carbon::storage {

class ByteSource;

// The longest header line accepted (NCBI's are under 1 KiB; long pangenome names under 64 KiB).
constexpr size_t kFastaMaxHeader = size_t(1) << 20;

struct FastaEntry {
    std::string name;         // first word of the header; may be empty ("> description")
    std::string description;  // rest of the header, surrounding blanks removed
    std::string bases;        // line breaks and blanks removed, letters as written
    size_t line = 0;          // 1-based line of the header
    size_t index = 0;         // 1-based record number
};

class FastaReader {
public:
    // A file, plain or gzip-compressed (recognised by its magic bytes, whatever its name).
    explicit FastaReader(const std::string& path);
    // In-memory text (tests, fuzzing); `display_name` stands for the file in messages. A small
    // `chunk_bytes` exercises the scanner's chunk boundaries.
    FastaReader(std::string_view text, std::string display_name, size_t chunk_bytes = 1 << 16);
    ~FastaReader();
    FastaReader(const FastaReader&) = delete;
    FastaReader& operator=(const FastaReader&) = delete;

    // The next record, or false at the end. carbon::Error "FILE:LINE:COL: what" on anything
    // that is not FASTA, and for a source without any record.
    bool next(FastaEntry& out);

    // A record may hold at most `max_bases` bases; one more is an Error naming the record and
    // `why` (what sets the limit), raised while reading, before the memory is taken.
    void limit_record_bases(size_t max_bases, std::string why);

    // What a sequence line may hold: the IUPAC nucleotide codes (the default: what a project
    // stores), or any letter, '-', '*' and '.' (what the scoring commands read, reporting every
    // letter but A, C, G, T as unknown to the model).
    enum class Alphabet { Iupac, Letters };
    void set_alphabet(Alphabet alphabet);

private:
    bool fill();
    void take_header(std::string& header, size_t header_line);  // sets next_
    void check_header(const std::string& header, size_t from, size_t header_line) const;
    [[noreturn]] void fail(const std::string& what, bool with_column = true) const;
    std::unique_ptr<ByteSource> src_;
    std::string name_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    size_t line_ = 1, col_ = 1;
    size_t records_ = 0;
    size_t max_bases_ = SIZE_MAX;
    const bool* accepted_ = nullptr;  // the alphabet's table of 256
    std::string max_bases_why_;
    bool eof_ = false, seen_header_ = false, pending_ = false;
    FastaEntry next_;  // the record being read
};

// True for the letters a sequence may hold: IUPAC nucleotide codes ACGTU RYSWKM BDHV N, either case.
bool is_iupac_base(char c);

// Header value encoding: '%', blanks, '=', ',' and control bytes as %XX, so that a header
// ">name k1=v1 k2=v2" splits on blanks and then on the first '='.
std::string header_escape(std::string_view value);
std::string header_unescape(std::string_view value);

// ">name k=v ...\n" then the bases wrapped at `width` (0 = one line).
void write_fasta_record(std::ostream& out, std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields,
                        std::string_view bases, size_t width);

}  // namespace carbon::storage
