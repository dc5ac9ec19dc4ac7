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

#include "carbon/loader/tensor_archive.h"

namespace carbon {

// A checkpoint directory: model.safetensors, or model.safetensors.index.json and its shards.
TensorArchive open_safetensors_dir(const std::filesystem::path& dir);
// One safetensors file.
TensorArchive open_safetensors_file(const std::filesystem::path& file);

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
