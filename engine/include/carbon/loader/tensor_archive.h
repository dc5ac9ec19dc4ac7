// The tensors of a model, whatever file format they came from (safetensors.h, gguf_model.h):
// read-only views into memory-mapped files, or into buffers the archive owns where the loader had
// to rearrange the bytes (a GGUF file's permuted q/k rows). The archive keeps alive everything its
// views point into.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/support/common.h"

namespace carbon {

// A read-only memory map of a whole file (MAP_PRIVATE, PROT_READ). Move-only.
class MappedFile {
public:
    // Throws Error naming the file and `what` it was meant to be ("a safetensors file", "a GGUF file").
    static MappedFile open(const std::filesystem::path& path, std::string_view what = "a safetensors file");
    MappedFile() = default;
    MappedFile(MappedFile&&) noexcept;
    MappedFile& operator=(MappedFile&&) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();
    // `size` bytes of the open file `fd` from `offset` (a multiple of the page size), read-only
    // and private like open's; the caller keeps `fd` (the mapping does not need it open).
    static MappedFile map_region(int fd, uint64_t offset, size_t size, std::filesystem::path label);
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    std::filesystem::path path_;
};

struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;  // inside a mapping or a buffer of the archive; valid while it lives
    size_t nbytes = 0;
    std::filesystem::path file;  // which file holds it
    std::string stored_name;     // its name in that file when it differs (a GGUF file's "blk.0.attn_q.weight")
    int64_t numel() const;
};

class TensorArchive {
public:
    bool contains(const std::string& name) const;
    // Throws Error("<source>: tensor '<name>' is missing") when absent.
    const TensorView& get(const std::string& name) const;
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    size_t total_bytes() const;  // sum of tensor payload bytes
    // Drops this process's copy of the whole pages inside the tensor's bytes (madvise
    // MADV_DONTNEED on the read-only private mapping): for a backend that keeps its own copy of
    // the tensor, so the weights are not held twice. The bytes stay readable: a page touched again
    // is read back from the file. A tensor in an owned buffer on the heap is left as it is.
    void release_pages(const TensorView& t) const;
    // The files the tensors were read from.
    const std::vector<std::filesystem::path>& files() const { return files_; }
    const std::filesystem::path& source() const { return source_; }

    // Building (the format readers): what was opened, for messages; a mapping the views point
    // into; a buffer they point into (returned: its bytes); a view (Error when its name is taken).
    // An owned buffer goes into an unnamed file in the user's cache folder when one can be made on
    // a disk (not tmpfs), mapped like the model's files, so that release_pages frees it as it frees
    // theirs (a GGUF file's un-permuted q/k rows are not held beside the backend's copy); else it
    // stays on the heap.
    void set_source(std::filesystem::path p) { source_ = std::move(p); }
    void add_mapping(std::shared_ptr<const MappedFile> map);
    const uint8_t* own(std::vector<uint8_t> bytes);
    size_t owned_on_heap() const;  // bytes of owned buffers that stayed on the heap
    void add(TensorView view);

private:
    struct SpillFile;  // the unnamed file of owned buffers (tensor_archive.cpp)
    std::vector<std::shared_ptr<const MappedFile>> maps_;
    std::vector<std::shared_ptr<const MappedFile>> spilled_;  // owned buffers in the spill file
    std::shared_ptr<SpillFile> spill_;
    std::vector<std::unique_ptr<std::vector<uint8_t>>> owned_;
    std::vector<std::filesystem::path> files_;
    std::map<std::string, TensorView> tensors_;
    std::filesystem::path source_;  // the directory or file opened, for messages
};

}  // namespace carbon
