// The file source (plain, or gzip inflated with zlib member after member, counting compressed
// and inflated bytes for the decompression-bomb limit), the memory source, and the line
// splitter. See gzip_reader.h.
#include "gzip_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "carbon/support/common.h"

namespace carbon::storage {

namespace {

std::string mib(uint64_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / double(1 << 20));
    return b;
}

}  // namespace

FileSource::FileSource(const std::string& path) : path_(path), in_(1 << 18) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a folder, not a file");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    while (in_len_ < 2 && fill() > 0) {
    }
    gzip_ = in_len_ >= 2 && in_[0] == 0x1f && in_[1] == 0x8b;
    if (gzip_) {
        auto* z = new z_stream{};
        z_ = z;
        if (inflateInit2(z, 15 + 16) != Z_OK) throw Error(path + ": cannot start inflating: out of memory");
    }
}

FileSource::~FileSource() {
    if (z_) {
        inflateEnd(static_cast<z_stream*>(z_));
        delete static_cast<z_stream*>(z_);
    }
    if (fd_ >= 0) ::close(fd_);
}

size_t FileSource::fill() {
    if (in_eof_) return 0;
    if (in_pos_ > 0) {  // keep what is left at the front
        std::memmove(in_.data(), in_.data() + in_pos_, in_len_ - in_pos_);
        in_len_ -= in_pos_;
        in_pos_ = 0;
    }
    if (in_len_ == in_.size()) return 0;
    for (;;) {
        const ssize_t got = ::read(fd_, in_.data() + in_len_, in_.size() - in_len_);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw Error(path_ + ": cannot read: " + std::strerror(errno));
        if (got == 0) in_eof_ = true;
        in_len_ += size_t(got);
        packed_ += uint64_t(got);
        return size_t(got);
    }
}

size_t FileSource::inflate_into(char* buf, size_t n) {
    auto* z = static_cast<z_stream*>(z_);
    z->next_out = reinterpret_cast<Bytef*>(buf);
    z->avail_out = uInt(std::min<size_t>(n, 1u << 30));
    const uInt want = z->avail_out;
    while (z->avail_out == want && !done_) {
        if (in_pos_ == in_len_ && fill() == 0 && in_eof_) {
            // The input ended inside a member (after a complete one, done_ is already set).
            throw Error(path_ + ": the gzip file is truncated or damaged: unexpected end of file");
        }
        z->next_in = in_.data() + in_pos_;
        z->avail_in = uInt(in_len_ - in_pos_);
        const int rc = inflate(z, Z_NO_FLUSH);
        in_pos_ = in_len_ - z->avail_in;
        if (rc == Z_STREAM_END) {
            // Another member may follow (concatenated gzip, as bgzip and `cat a.gz b.gz` write);
            // anything else after a member is ignored, as zlib's gzread does.
            while (in_len_ - in_pos_ < 2 && fill() > 0) {
            }
            if (in_len_ - in_pos_ >= 2 && in_[in_pos_] == 0x1f && in_[in_pos_ + 1] == 0x8b) inflateReset(z);
            else done_ = true;
        } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
            throw Error(path_ + ": cannot read (the gzip data is corrupt): " + (z->msg ? z->msg : "invalid data"));
        } else if (rc == Z_MEM_ERROR) {
            throw Error(path_ + ": cannot inflate: out of memory");
        }
    }
    return want - z->avail_out;
}

size_t FileSource::read(char* buf, size_t n) {
    size_t got = 0;
    if (gzip_) {
        got = inflate_into(buf, n);
    } else {
        if (in_pos_ == in_len_) fill();
        got = std::min(n, in_len_ - in_pos_);
        std::memcpy(buf, in_.data() + in_pos_, got);
        in_pos_ += got;
    }
    inflated_ += got;
    if (gzip_ && inflated_ > kGzipRatioCheckAfter && double(inflated_) > kGzipMaxRatio * double(packed_))
        throw Error(path_ + ": the gzip data expands more than " + std::to_string(int(kGzipMaxRatio)) + "-fold (" + mib(inflated_) +
                    " from the first " + mib(packed_) +
                    "); no sequence file compresses that well, so this looks like a decompression bomb and was refused");
    return got;
}

size_t MemorySource::read(char* buf, size_t n) {
    const size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
}

void LineReader::fail(size_t column, const std::string& what) const {
    throw Error(name_ + ":" + std::to_string(line_ + 1) + ":" + std::to_string(column) + ": " + what);
}

bool LineReader::next(std::string& line) {
    for (;;) {
        while (scan_ < buf_.size()) {
            ++examined_;
            const unsigned char c = static_cast<unsigned char>(buf_[scan_]);
            if (c == '\n') {
                if (scan_ - pos_ > max_line_) fail(max_line_ + 1, "the line is longer than " + mib(max_line_) + " (is this a " + format_ + " file?)");
                size_t end = scan_;
                if (end > pos_ && buf_[end - 1] == '\r') --end;
                line.assign(buf_, pos_, end - pos_);
                pos_ = ++scan_;
                ++line_;
                return true;
            }
            if (c == '\r') {
                if (scan_ + 1 == buf_.size() && !eof_) break;  // is the next byte, still unread, a line feed?
                if (scan_ + 1 < buf_.size() && buf_[scan_ + 1] != '\n')
                    fail(scan_ - pos_ + 1, "a carriage return not followed by a line feed (classic Mac line endings?); convert the "
                                           "file to LF or CRLF line endings");
            } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02X", unsigned(c));
                fail(scan_ - pos_ + 1, c == 0 ? "a NUL byte (0x00): this looks like a binary file, not " + format_
                                              : "control character " + std::string(hex) + " (not text; is this a " + format_ + " file?)");
            }
            ++scan_;
        }
        if (scan_ - pos_ > max_line_)
            fail(max_line_ + 1, "the line is longer than " + mib(max_line_) + " (is this a " + format_ + " file?)");
        if (eof_) {
            if (pos_ >= buf_.size()) return false;
            size_t end = buf_.size();
            if (buf_[end - 1] == '\r') --end;  // a CR as the very last byte
            line.assign(buf_, pos_, end - pos_);
            pos_ = scan_ = buf_.size();
            ++line_;
            return true;
        }
        // Keep only the unfinished line, so that a long line is never scanned twice.
        buf_.erase(0, pos_);
        scan_ -= pos_;
        pos_ = 0;
        char chunk[1 << 16];
        size_t got = 0;
        try {
            got = src_.read(chunk, sizeof chunk);
        } catch (const Error& e) {  // a truncated or damaged gzip stream: say where the text had got to
            std::string why = e.what();
            if (why.starts_with(name_ + ": ")) why.erase(0, name_.size() + 2);
            throw Error(name_ + ":" + std::to_string(line_ + 1) + ": " + why + " (after " + std::to_string(line_) + " whole lines)");
        }
        if (got == 0) eof_ = true;
        buf_.append(chunk, got);
    }
}

}  // namespace carbon::storage
