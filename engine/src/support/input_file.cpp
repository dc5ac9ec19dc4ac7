// Regular-file checks and bounded reads for a model folder's small files (see input_file.h).
#include "carbon/support/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "carbon/support/common.h"
#include "carbon/support/host_memory.h"

namespace carbon {

namespace {

const char* kind_of(mode_t m) {
    if (S_ISDIR(m)) return "is a folder, not a regular file";
    if (S_ISFIFO(m)) return "is a named pipe, not a regular file";
    if (S_ISCHR(m)) return "is a character device, not a regular file";
    if (S_ISBLK(m)) return "is a block device, not a regular file";
    if (S_ISSOCK(m)) return "is a socket, not a regular file";
    return "is not a regular file";
}

}  // namespace

int open_regular_file(const std::filesystem::path& path, std::string_view what, size_t& size) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; on a
    // regular file it changes nothing.
    int fd;
    do fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        const int err = errno;
        throw Error(path.string() + ": cannot open " + std::string(what) + ": " + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw Error(path.string() + ": cannot read its size: " + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(path.string() + ": " + kind_of(st.st_mode) + " (" + std::string(what) + " must be a file)");
    }
    size = size_t(st.st_size);
    return fd;
}

std::string read_regular_file(const std::filesystem::path& path, std::string_view what, size_t max_bytes) {
    size_t size = 0;
    const int fd = open_regular_file(path, what, size);
    if (size > max_bytes) {
        ::close(fd);
        throw Error(path.string() + ": " + human_bytes(double(size)) + " is too large for " + std::string(what) + " (at most " +
                    human_bytes(double(max_bytes)) + "): is it the right file?");
    }
    std::string out(size, '\0');
    size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, out.data() + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error(path.string() + ": cannot read: " + std::strerror(err));
        }
        if (n == 0) break;  // shrank while being read
        got += size_t(n);
    }
    ::close(fd);
    out.resize(got);
    return out;
}

}  // namespace carbon
