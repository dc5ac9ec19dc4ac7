// OutputFile: regular files through "<path>.partial" and a rename, everything else in place
// (see output_file.h for why). Written through a file descriptor so the first write error's
// errno reaches the message.
#include "carbon/support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <system_error>

#include "carbon/support/common.h"

namespace carbon {

namespace fs = std::filesystem;

namespace {

std::string reason(int err) { return err ? std::strerror(err) : "write failed"; }

int open_for_writing(const fs::path& p, int flags, mode_t mode) {
    int fd;
    do fd = ::open(p.c_str(), flags | O_WRONLY | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

}  // namespace

bool OutputFile::FdBuf::drain() {
    const char* p = pbase();
    size_t left = size_t(pptr() - pbase());
    while (left && !error_) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            error_ = errno;
        } else if (n == 0) {
            error_ = EIO;
        } else {
            p += n;
            left -= size_t(n);
        }
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return !error_;
}

OutputFile::FdBuf::int_type OutputFile::FdBuf::overflow(int_type ch) {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(ch);
        pbump(1);
    }
    return traits_type::not_eof(ch);
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw Error("no output file named (an empty path)");
    if (path_ == "-") {
        std::cout.flush();
        std::fflush(stdout);  // what was printed before goes first
        fd_ = STDOUT_FILENO;
    } else {
        const fs::path p(path_);
        std::error_code ec;
        const fs::file_status link = fs::symlink_status(p, ec);
        const fs::file_status st = fs::status(p, ec);
        const fs::file_type type = st.type();
        if (type == fs::file_type::not_found && link.type() == fs::file_type::symlink)
            throw Error("cannot write " + path_ + ": it is a symbolic link to a file that does not exist (" +
                        fs::read_symlink(p, ec).string() + ")");
        switch (type) {
            case fs::file_type::directory:
                throw Error("cannot write " + path_ + ": it is a folder; name a file to write (for example " +
                            (p / "out.txt").string() + ")");
            case fs::file_type::block:
                throw Error("cannot write " + path_ + ": it is a block device (a disk); refusing to write onto it");
            case fs::file_type::character:
            case fs::file_type::fifo:
            case fs::file_type::socket:
                // A device or pipe: written in place, never replaced.
                fd_ = open_for_writing(p, O_TRUNC, 0666);
                if (fd_ < 0) throw Error("cannot write " + path_ + ": " + reason(errno));
                owns_fd_ = true;
                break;
            case fs::file_type::regular:
                if (path_.starts_with("/dev/") || path_.starts_with("/proc/")) {
                    // /dev/stdout, /proc/self/fd/N: a descriptor someone else opened (a shell
                    // redirection); written in place so their file is not replaced under them.
                    fd_ = open_for_writing(p, 0, 0666);
                    if (fd_ < 0) throw Error("cannot write " + path_ + ": " + reason(errno));
                    owns_fd_ = true;
                    break;
                }
                target_ = fs::canonical(p, ec);  // a link's target: the link itself stays
                if (ec) target_ = p;
                break;
            case fs::file_type::not_found: {
                target_ = p;
                const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
                if (!fs::is_directory(dir, ec))
                    throw Error("cannot write " + path_ + ": the folder " + dir.string() + " does not exist");
                break;
            }
            default:
                throw Error("cannot write " + path_ + ": it is not a regular file, device or pipe");
        }
        if (!target_.empty()) {
            partial_ = target_;
            partial_ += ".partial";
            // A replaced file keeps its permissions; a new one gets the usual 0666 & ~umask.
            const mode_t mode = type == fs::file_type::regular ? mode_t(st.permissions()) & 07777 : 0666;
            fd_ = open_for_writing(partial_, O_CREAT | O_TRUNC, mode);
            if (fd_ < 0) {
                const int err = errno;
                partial_.clear();
                throw Error("cannot write " + path_ + " (through " + target_.string() + ".partial): " + reason(err));
            }
            owns_fd_ = true;
            if (type == fs::file_type::regular) ::fchmod(fd_, mode);  // exactly, whatever the umask
        }
    }
    buf_ = std::make_unique<FdBuf>(fd_);
    out_ = std::make_unique<std::ostream>(buf_.get());
}

OutputFile::~OutputFile() {
    if (!committed_) discard();
}

void OutputFile::discard() noexcept {
    if (owns_fd_ && fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!partial_.empty()) {
        std::error_code ec;
        fs::remove(partial_, ec);
    }
}

void OutputFile::commit() {
    if (committed_) return;
    committed_ = true;
    int err = buf_->drain() ? 0 : buf_->error();
    if (!err && out_->bad()) err = EIO;
    // The data on the disk before the rename: a crash right after it cannot leave an empty
    // file under the user's name.
    if (!err && !partial_.empty() && ::fsync(fd_) != 0) err = errno;
    if (owns_fd_) {
        if (::close(fd_) != 0 && !err && errno != EINTR) err = errno;
        fd_ = -1;
    }
    if (err) {
        discard();
        throw Error("cannot write " + path_ + ": " + reason(err));
    }
    if (partial_.empty()) return;
    std::error_code ec;
    fs::rename(partial_, target_, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(partial_, ignored);
        throw Error("cannot write " + path_ + ": renaming " + partial_.string() + " into place failed: " + ec.message());
    }
}

}  // namespace carbon
