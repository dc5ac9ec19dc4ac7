// TensorArchive (tensor_archive.h): memory maps, views and the buffers they point into.
#include "carbon/loader/tensor_archive.h"

#include "carbon/support/input_file.h"
#include "carbon/support/user_dirs.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace carbon {

namespace fs = std::filesystem;

// ---- MappedFile -------------------------------------------------------------------------------

MappedFile MappedFile::open(const fs::path& path, std::string_view what) {
    size_t size = 0;
    const int fd = open_regular_file(path, what, size);  // a FIFO is refused, not waited on
    if (size == 0) {
        ::close(fd);
        throw Error(path.string() + ": file is empty");
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);  // the mapping keeps the file alive
    if (p == MAP_FAILED) throw Error(path.string() + ": cannot memory-map: " + std::strerror(err));
    MappedFile m;
    m.data_ = static_cast<const uint8_t*>(p);
    m.size_ = size;
    m.path_ = path;
    return m;
}

MappedFile MappedFile::map_region(int fd, uint64_t offset, size_t size, fs::path label) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, off_t(offset));
    if (p == MAP_FAILED) throw Error(label.string() + ": cannot memory-map: " + std::strerror(errno));
    MappedFile m;
    m.data_ = static_cast<const uint8_t*>(p);
    m.size_ = size;
    m.path_ = std::move(label);
    return m;
}

MappedFile::MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_), path_(std::move(o.path_)) {
    o.data_ = nullptr;
    o.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
    if (this != &o) {
        if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
        data_ = o.data_;
        size_ = o.size_;
        path_ = std::move(o.path_);
        o.data_ = nullptr;
        o.size_ = 0;
    }
    return *this;
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

int64_t TensorView::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

bool TensorArchive::contains(const std::string& name) const {
    return tensors_.count(name) != 0;
}

const TensorView& TensorArchive::get(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(source_.string() + ": tensor '" + name + "' is missing");
    return it->second;
}

size_t TensorArchive::total_bytes() const {
    size_t n = 0;
    for (const auto& [name, v] : tensors_) n += v.nbytes;
    return n;
}

// The unnamed file owned buffers are written into: O_TMPFILE in the user's cache folder (gone when
// its last mapping and descriptor are), never on tmpfs (its pages would be memory all the same).
struct TensorArchive::SpillFile {
    int fd = -1;
    uint64_t end = 0;  // the next region's offset (page-aligned)
    ~SpillFile() {
        if (fd >= 0) ::close(fd);
    }
    static std::shared_ptr<SpillFile> make() {
        const fs::path cache = user_cache_dir();
        if (cache.empty()) return nullptr;
        std::error_code ec;
        const fs::path dir = cache / "carbon-studio";
        fs::create_directories(dir, ec);
        if (ec) return nullptr;
        struct statfs st {};
        if (::statfs(dir.c_str(), &st) != 0 || st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC) return nullptr;
        const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0) return nullptr;
        auto f = std::make_shared<SpillFile>();
        f->fd = fd;
        return f;
    }
    // The bytes as a new read-only mapping of the file; null when writing fails (a full disk).
    std::shared_ptr<const MappedFile> write(const std::vector<uint8_t>& bytes) {
        const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE)), at = end;
        for (size_t done = 0; done < bytes.size();) {
            const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, off_t(at + done));
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                (void)::ftruncate(fd, off_t(at));
                return nullptr;
            }
            done += size_t(n);
        }
        try {
            auto m = std::make_shared<const MappedFile>(MappedFile::map_region(fd, at, bytes.size(), "owned tensor buffer"));
            end = (at + bytes.size() + page - 1) / page * page;
            return m;
        } catch (const Error&) {
            return nullptr;
        }
    }
};

void TensorArchive::release_pages(const TensorView& t) const {
    const auto begin = reinterpret_cast<uintptr_t>(t.data), end = begin + t.nbytes;
    for (const auto* list : {&maps_, &spilled_}) {
        for (const auto& m : *list) {
            const auto base = reinterpret_cast<uintptr_t>(m->data());
            if (begin < base || end > base + m->size()) continue;
            const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
            const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
            // Advice only: when the kernel declines, the pages stay and nothing else changes.
            if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
            return;
        }
    }
}

void TensorArchive::add_mapping(std::shared_ptr<const MappedFile> map) {
    files_.push_back(map->path());
    maps_.push_back(std::move(map));
}

const uint8_t* TensorArchive::own(std::vector<uint8_t> bytes) {
    if (!bytes.empty()) {
        if (!spill_) spill_ = SpillFile::make();
        if (spill_ && spill_->fd >= 0)
            if (auto m = spill_->write(bytes)) {
                spilled_.push_back(std::move(m));
                return spilled_.back()->data();
            }
    }
    owned_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(bytes)));
    return owned_.back()->data();
}

size_t TensorArchive::owned_on_heap() const {
    size_t n = 0;
    for (const auto& b : owned_) n += b->size();
    return n;
}

void TensorArchive::add(TensorView view) {
    if (tensors_.count(view.name)) throw Error(source_.string() + ": tensor '" + view.name + "' appears twice");
    std::string key = view.name;
    tensors_.emplace(std::move(key), std::move(view));
}

}  // namespace carbon
