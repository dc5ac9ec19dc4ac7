// OutputFile: the one way every program here writes a file the user named (designs, exports,
// tracks, ISM tables). What it does depends on what the path is:
//   - a regular file, new or existing: written to "<path>.partial" beside it and renamed over the
//     path by commit(), so a failure never leaves a truncated file under the user's name and an
//     existing file stays as it was until the new one is complete (a symbolic link is followed:
//     the file it points to is replaced, the link stays);
//   - a device, FIFO or socket (/dev/null, a named pipe), or any path under /dev/ or /proc/
//     (/dev/stdout redirected to a file): written in place, never replaced: renaming a file over
//     /dev/null as root would break every program on the machine;
//   - "-": standard output;
//   - a directory, or a path whose folder does not exist: refused by the constructor, before any
//     work is done and before anything is created.
// Destroyed without commit() (an error, a cancel), the partial file is removed.
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace carbon {

class OutputFile {
public:
    // Opens the output (see above); throws carbon::Error naming the path and the reason.
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::ostream& stream() { return *out_; }
    // Flushes and checks every write; a regular file is then renamed into place. Throws
    // carbon::Error ("cannot write PATH: No space left on device") when anything failed, after
    // removing the partial file.
    void commit();

    const std::string& path() const { return path_; }
    // Whether the output replaces a regular file through a partial file (false: device, FIFO,
    // standard output).
    bool replaces_file() const { return !partial_.empty(); }

private:
    // A buffered stream over a file descriptor that keeps the first write error (errno), so the
    // message can say why ("No space left on device"), which std::ofstream forgets.
    class FdBuf : public std::streambuf {
    public:
        explicit FdBuf(int fd) : fd_(fd), buf_(1 << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
        int error() const { return error_; }
        bool drain();  // writes out what is buffered; false after any error

    protected:
        int_type overflow(int_type ch) override;
        int sync() override { return drain() ? 0 : -1; }

    private:
        int fd_;
        int error_ = 0;
        std::vector<char> buf_;
    };

    void discard() noexcept;

    std::string path_;              // as the user gave it, for messages
    std::filesystem::path target_;  // the regular file to replace (a link's target), if any
    std::filesystem::path partial_;  // target_ + ".partial"; empty when written in place
    int fd_ = -1;
    bool owns_fd_ = false;           // false for standard output
    std::unique_ptr<FdBuf> buf_;
    std::unique_ptr<std::ostream> out_;
    bool committed_ = false;
};

}  // namespace carbon
