// zlib-backed file source (gzip or plain, chosen by zlib from the magic bytes), memory source
// and a line splitter. See gzip_reader.h.
#include "gzip_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "carbon/common.h"

namespace carbon::storage {

FileSource::FileSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a directory, not a file");
    gz_ = gzopen(path.c_str(), "rb");
    if (!gz_) throw Error(path + ": cannot open: " + std::strerror(errno));
    gzbuffer(static_cast<gzFile>(gz_), 1 << 18);
}

FileSource::~FileSource() {
    if (gz_) gzclose(static_cast<gzFile>(gz_));
}

size_t FileSource::read(char* buf, size_t n) {
    auto* gz = static_cast<gzFile>(gz_);
    const int got = gzread(gz, buf, unsigned(n > (1u << 30) ? (1u << 30) : n));
    if (got < 0) {
        int code = 0;
        const char* msg = gzerror(gz, &code);
        throw Error(path_ + ": cannot read" + (code == Z_DATA_ERROR ? " (the gzip data is corrupt)" : "") + ": " + (msg ? msg : "?"));
    }
    if (got == 0) {
        int code = 0;
        const char* msg = gzerror(gz, &code);
        if (code != Z_OK) throw Error(path_ + ": the gzip file is truncated or damaged: " + (msg ? msg : "?"));
    }
    return size_t(got);
}

size_t MemorySource::read(char* buf, size_t n) {
    const size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
}

bool LineReader::next(std::string& line) {
    for (;;) {
        const size_t nl = buf_.find('\n', pos_);
        if (nl != std::string::npos) {
            line.assign(buf_, pos_, nl - pos_);
            pos_ = nl + 1;
            break;
        }
        if (eof_) {
            if (pos_ >= buf_.size()) return false;
            line.assign(buf_, pos_, std::string::npos);
            pos_ = buf_.size();
            break;
        }
        buf_.erase(0, pos_);
        pos_ = 0;
        char chunk[1 << 16];
        const size_t got = src_.read(chunk, sizeof chunk);
        if (got == 0) eof_ = true;
        buf_.append(chunk, got);
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_;
    return true;
}

}  // namespace carbon::storage
