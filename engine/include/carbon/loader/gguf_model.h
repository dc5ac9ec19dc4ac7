// A Carbon GGUF file (llama.cpp's converter, or the gguf Python package, from a Hugging Face Llama
// checkpoint) read as a model: the config from its llama.* keys, passed through the same checks as
// a config.json; its tensors under their Hugging Face names and shapes, with the converter's q/k
// row permutation undone, so that the rest of the engine cannot tell a GGUF model from the
// checkpoint it was made from. F32, F16 and BF16 tensors are read in place; Q8_0 tensors are kept
// as their blocks (DType::Q8_0), which the CPU backend takes as its q8_0 weights without
// requantising. Anything else (other quantisations, RoPE frequency factors, another architecture)
// is refused by name.
#pragma once

#include <filesystem>
#include <memory>

#include "carbon/loader/config.h"
#include "carbon/loader/gguf.h"
#include "carbon/loader/tensor_archive.h"

namespace carbon {

struct GgufModel {
    ModelConfig config;
    TensorArchive archive;
    std::shared_ptr<const GgufFile> file;  // its metadata carries the tokenizer
};

// Throws Error naming the file and the key or tensor.
GgufModel open_gguf_model(const std::filesystem::path& file);

// The llama.cpp converter's q/k row order (LlamaModel.permute: per head, the rows of the two
// rotary halves interleaved) undone: Hugging Face row h x head_dim + t x head_dim/2 + j is GGUF row
// h x head_dim + 2j + t. `row_bytes` is one row's bytes in any type (a Q8_0 row is whole blocks).
std::vector<uint8_t> unpermute_gguf_rows(const uint8_t* data, size_t rows, size_t row_bytes, size_t heads);

}  // namespace carbon
