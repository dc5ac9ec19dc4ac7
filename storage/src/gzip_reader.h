// Byte sources for the streaming readers: a file through zlib (gzip members are inflated,
// plain files pass through unchanged) or a block of memory. Private to storage/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace carbon::storage {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to n bytes into buf; 0 at the end. Error naming the file on read or gzip failures.
    virtual size_t read(char* buf, size_t n) = 0;
};

class FileSource : public ByteSource {
public:
    explicit FileSource(const std::string& path);
    ~FileSource() override;
    size_t read(char* buf, size_t n) override;

private:
    std::string path_;
    void* gz_ = nullptr;  // gzFile
};

class MemorySource : public ByteSource {
public:
    explicit MemorySource(std::string_view data) : data_(data) {}
    size_t read(char* buf, size_t n) override;

private:
    std::string_view data_;
    size_t pos_ = 0;
};

// Reads a text source line by line (LF or CRLF; the CR is removed), counting lines. For the
// small line-oriented formats (VCF); FASTA has its own chunked scanner for unbounded lines.
class LineReader {
public:
    explicit LineReader(ByteSource& src) : src_(src) {}
    bool next(std::string& line);  // false at the end
    size_t line_number() const { return line_; }

private:
    ByteSource& src_;
    std::string buf_;
    size_t pos_ = 0;
    size_t line_ = 0;
    bool eof_ = false;
};

}  // namespace carbon::storage
