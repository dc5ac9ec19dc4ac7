// Byte sources for the streaming readers: a file, pipe or device (gzip data, recognised by its
// magic bytes, is inflated member after member; anything else passes through unchanged) or a
// block of memory; and a line splitter with limits. Private to storage/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace carbon::storage {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to n bytes into buf; 0 at the end. Error naming the file on read or gzip failures.
    virtual size_t read(char* buf, size_t n) = 0;
};

// A gzip stream may inflate to at most this many times its compressed size once it has produced
// kGzipRatioCheckAfter bytes: real sequence files compress 3-5 fold, long runs of N a few hundred
// fold at most over a whole file, while a decompression bomb (concatenated members of one
// repeated letter) reaches 1,000 fold. Refusing it early keeps memory and disk from filling.
constexpr double kGzipMaxRatio = 200;
constexpr uint64_t kGzipRatioCheckAfter = uint64_t(64) << 20;

class FileSource : public ByteSource {
public:
    // A directory is refused; devices, FIFOs and pipes are read as streams.
    explicit FileSource(const std::string& path);
    ~FileSource() override;
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    size_t read(char* buf, size_t n) override;

private:
    size_t fill();  // more raw bytes into in_; 0 at the end
    size_t inflate_into(char* buf, size_t n);
    std::string path_;
    int fd_ = -1;
    std::vector<unsigned char> in_;
    size_t in_pos_ = 0, in_len_ = 0;
    bool in_eof_ = false, gzip_ = false, done_ = false;
    void* z_ = nullptr;  // z_stream while inflating
    uint64_t packed_ = 0, inflated_ = 0;  // compressed bytes read, bytes produced
};

class MemorySource : public ByteSource {
public:
    explicit MemorySource(std::string_view data) : data_(data) {}
    size_t read(char* buf, size_t n) override;

private:
    std::string_view data_;
    size_t pos_ = 0;
};

// Reads a text source line by line (LF or CRLF; the CR is removed), counting lines, in time
// linear in the input however long a line is. Refuses, with FILE:LINE:COL, a control byte
// (NUL and the like: a binary file) at the moment it is read, a carriage return not followed by
// a line feed (classic Mac line endings), and a line longer than `max_line` bytes before it is
// held in memory. `format` names the expected format in messages ("VCF").
class LineReader {
public:
    LineReader(ByteSource& src, std::string display_name, std::string format, size_t max_line)
        : src_(src), name_(std::move(display_name)), format_(std::move(format)), max_line_(max_line) {}
    bool next(std::string& line);  // false at the end
    size_t line_number() const { return line_; }
    // Bytes looked at so far: each byte once, whatever the line lengths (the tests hold it to that).
    uint64_t bytes_examined() const { return examined_; }

private:
    [[noreturn]] void fail(size_t column, const std::string& what) const;
    ByteSource& src_;
    std::string name_, format_;
    size_t max_line_;
    std::string buf_;
    size_t pos_ = 0;   // start of the current line in buf_
    size_t scan_ = 0;  // first byte not yet looked at
    size_t line_ = 0;
    uint64_t examined_ = 0;
    bool eof_ = false;
};

}  // namespace carbon::storage
