// GGUF files (llama.cpp's model format, versions 2 and 3; Carbon publishes its models in it too),
// memory-mapped and checked before any byte is used: every count against the bytes that follow it
// (without overflow: the integer-overflow class of llama.cpp's GGUF advisories), every string and
// array inside the file, every tensor's dimensions, type, size, offset and alignment inside the
// data section, no tensor overlapping another, no key or tensor name twice. A file that fails any
// check is an Error naming the file, the byte and what is wrong; never a crash.
//
// This layer reads the container: metadata and tensor views. Which tensors and keys make a model
// is the model loader's business.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "carbon/loader/tensor_archive.h"

namespace carbon {

enum class GgufType : uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12
};
const char* gguf_type_name(GgufType t);

// One metadata value. Integers of every width are held in `i` (signed) or `u` (unsigned, and
// bool), floats in `f`; arrays in `items` (all of type `element`).
struct GgufValue {
    GgufType type = GgufType::U8;
    GgufType element = GgufType::U8;  // arrays only
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0.0;
    std::string s;
    std::vector<GgufValue> items;

    bool is_integer() const;
    // The value as an integer of any width or sign; throws Error naming `key` otherwise (or when
    // it does not fit an int64).
    int64_t as_int(const std::string& key) const;
    double as_float(const std::string& key) const;  // any integer or float
    const std::string& as_string(const std::string& key) const;
};

// ggml tensor types this reader knows the sizes of (a block of `block` values in `bytes`).
struct GgmlTypeInfo {
    uint32_t id;
    const char* name;
    uint32_t block, bytes;
};
const GgmlTypeInfo* ggml_type_info(uint32_t id);  // null when unknown

struct GgufTensor {
    std::string name;
    uint32_t type = 0;            // ggml type id (ggml_type_info)
    std::vector<uint64_t> dims;   // GGUF order: dims[0] varies fastest (a row); a Hugging Face [out, in] weight is {in, out}
    uint64_t offset = 0;          // within the data section
    uint64_t nbytes = 0;
    const uint8_t* data = nullptr;  // inside the mapping; valid while the file lives
    uint64_t numel() const;
};

class GgufFile {
public:
    static GgufFile open(const std::filesystem::path& path);  // throws Error
    GgufFile(GgufFile&&) noexcept = default;
    GgufFile& operator=(GgufFile&&) noexcept = default;

    uint32_t version() const { return version_; }
    uint32_t alignment() const { return alignment_; }
    uint64_t data_offset() const { return data_offset_; }
    const std::filesystem::path& path() const { return map_->path(); }
    // The mapping the tensors' bytes lie in (a TensorArchive keeps it alive).
    const std::shared_ptr<const MappedFile>& mapping() const { return map_; }
    const std::map<std::string, GgufValue>& metadata() const { return metadata_; }
    const GgufValue* find(const std::string& key) const;  // null when absent
    // In file order.
    const std::vector<GgufTensor>& tensors() const { return tensors_; }
    const GgufTensor* tensor(const std::string& name) const;  // null when absent

private:
    GgufFile() = default;
    std::shared_ptr<const MappedFile> map_;
    uint32_t version_ = 0, alignment_ = 32;
    uint64_t data_offset_ = 0;
    std::map<std::string, GgufValue> metadata_;
    std::vector<GgufTensor> tensors_;
    std::map<std::string, size_t> by_name_;
};

}  // namespace carbon
