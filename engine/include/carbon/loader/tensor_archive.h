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
    // is read back from the file. A tensor in an owned buffer is left as it is.
    void release_pages(const TensorView& t) const;
    // The files the tensors were read from.
    const std::vector<std::filesystem::path>& files() const { return files_; }
    const std::filesystem::path& source() const { return source_; }

    // Building (the format readers): what was opened, for messages; a mapping the views point
    // into; a buffer they point into (returned: its bytes); a view (Error when its name is taken).
    void set_source(std::filesystem::path p) { source_ = std::move(p); }
    void add_mapping(std::shared_ptr<const MappedFile> map);
    const uint8_t* own(std::vector<uint8_t> bytes);
    void add(TensorView view);

private:
    std::vector<std::shared_ptr<const MappedFile>> maps_;
    std::vector<std::unique_ptr<std::vector<uint8_t>>> owned_;
    std::vector<std::filesystem::path> files_;
    std::map<std::string, TensorView> tensors_;
    std::filesystem::path source_;  // the directory or file opened, for messages
};

}  // namespace carbon
