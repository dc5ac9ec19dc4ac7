// Memory-mapped safetensors files (single file or shards listed in model.safetensors.index.json).
// Every header is checked before any byte is used: a lying header is an Error, never a crash.
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
    const void* data = nullptr;  // inside the mapping; valid while the archive lives
    size_t nbytes = 0;
    std::filesystem::path file;  // which shard holds it
    int64_t numel() const;
};

// All tensors of a checkpoint directory, across shards.
class SafetensorsArchive {
public:
    // `dir` holds model.safetensors, or model.safetensors.index.json and its shards.
    static SafetensorsArchive open_dir(const std::filesystem::path& dir);
    // One safetensors file.
    static SafetensorsArchive open_file(const std::filesystem::path& file);

    bool contains(const std::string& name) const;
    // Throws Error("<dir>: tensor '<name>' is missing") when absent.
    const TensorView& get(const std::string& name) const;
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    size_t total_bytes() const;  // sum of tensor payload bytes
    // Drops this process's copy of the whole pages inside the tensor's bytes (madvise
    // MADV_DONTNEED on the read-only private mapping): for a backend that keeps its own copy of
    // the tensor, so the weights are not held twice. The bytes stay readable: a page touched again
    // is read back from the file.
    void release_pages(const TensorView& t) const;
    const std::vector<std::filesystem::path>& files() const { return files_; }

private:
    void add_file(const std::filesystem::path& file, const std::map<std::string, std::string>* expected);
    std::vector<std::unique_ptr<MappedFile>> maps_;
    std::vector<std::filesystem::path> files_;
    std::map<std::string, TensorView> tensors_;
    std::filesystem::path source_;  // the directory or file opened, for messages
};

// Writing, for make-test-model and the tests. Tensors are written in the given order, with the
// header padded to a multiple of 8 bytes as the reference writer does, and
// {"__metadata__": {"format": "pt"}}.
struct TensorToWrite {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // little-endian payload, numel * dtype_size bytes
};
void write_safetensors(const std::filesystem::path& file, const std::vector<TensorToWrite>& tensors);
// Splits `tensors` into shards of at most `max_shard_bytes` payload each, writes
// model-0000i-of-0000n.safetensors and model.safetensors.index.json (metadata.total_size and
// weight_map) into `dir`. With one shard it writes model.safetensors and no index.
void write_sharded_safetensors(const std::filesystem::path& dir, const std::vector<TensorToWrite>& tensors,
                               size_t max_shard_bytes);

}  // namespace carbon
