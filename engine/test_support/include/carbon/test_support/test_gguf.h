// GGUF files written byte by byte as the format lays them out (gguf.h reads them), for the
// reader's tests and the fuzz target's seeds: any metadata, any tensors, any alignment and
// version, including what a valid writer never produces (the tests make the lies from these bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "carbon/loader/gguf.h"

namespace carbon::test {

struct GgufKv {
    std::string key;
    GgufValue value;
};

struct GgufTensorToWrite {
    std::string name;
    uint32_t type;               // ggml type id
    std::vector<uint64_t> dims;  // GGUF order (dims[0] fastest)
    std::vector<uint8_t> bytes;  // the payload as stored
};

// Scalar and string values.
GgufValue gguf_u32(uint32_t v);
GgufValue gguf_i32(int32_t v);
GgufValue gguf_f32(float v);
GgufValue gguf_string(std::string s);
GgufValue gguf_array(GgufType element, std::vector<GgufValue> items);

// The whole file: header, metadata, tensor infos (offsets assigned in order, each aligned), the
// padding, the payloads.
std::string gguf_bytes(const std::vector<GgufKv>& metadata, const std::vector<GgufTensorToWrite>& tensors,
                       uint32_t alignment = 32, uint32_t version = 3);

// A complete one-layer Carbon model as llama.cpp's converter lays it out: hidden 32, two heads of
// 16 (one KV head), FFN 64, the HybridDNA vocabulary (<dna>, </dna>, <oov>, the 4,096 marked
// 6-mers, two BPE letters and their merge), BF16 matrices with a Q8_0 up projection, F32 norms, a
// tied head; small finite weights (no -128 in the Q8_0 blocks). It loads as a model (the GGUF
// fuzz target's seed, the application's tests of GGUF files).
std::string one_layer_carbon_gguf();

// Files that lie, each with the parts the reader's refusal must name (besides the file): the
// malformed corpus the reader's tests check and the GGUF fuzz target starts from, the
// integer-overflow class of llama.cpp's GGUF advisories included (tensor and metadata counts, key,
// string and array lengths, element counts and byte sizes, offsets that wrap). `good` is a valid
// file with at least one key and one tensor (the header lies are made from it).
struct MalformedGguf {
    std::string what;
    std::string bytes;
    std::vector<std::string> message;
};
std::vector<MalformedGguf> malformed_gguf_corpus(const std::string& good);

}  // namespace carbon::test
