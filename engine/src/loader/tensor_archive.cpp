// TensorArchive (tensor_archive.h): memory maps, views and the buffers they point into.
#include "carbon/loader/tensor_archive.h"

#include "carbon/support/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
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

void TensorArchive::release_pages(const TensorView& t) const {
    const auto begin = reinterpret_cast<uintptr_t>(t.data), end = begin + t.nbytes;
    for (const auto& m : maps_) {
        const auto base = reinterpret_cast<uintptr_t>(m->data());
        if (begin < base || end > base + m->size()) continue;
        const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
        const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
        // Advice only: when the kernel declines, the pages stay and nothing else changes.
        if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
        return;
    }
}

void TensorArchive::add_mapping(std::shared_ptr<const MappedFile> map) {
    files_.push_back(map->path());
    maps_.push_back(std::move(map));
}

const uint8_t* TensorArchive::own(std::vector<uint8_t> bytes) {
    owned_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(bytes)));
    return owned_.back()->data();
}

void TensorArchive::add(TensorView view) {
    if (tensors_.count(view.name)) throw Error(source_.string() + ": tensor '" + view.name + "' appears twice");
    std::string key = view.name;
    tensors_.emplace(std::move(key), std::move(view));
}

}  // namespace carbon
