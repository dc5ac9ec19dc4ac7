// Fuzz target for GGUF files (gguf.h, gguf_model.h): the input is the whole file. Opening must
// succeed or raise carbon::Error; every tensor of a file that opens must lie inside its mapping
// (read here byte by byte, so AddressSanitizer sees a view that points outside) and every metadata
// value must be readable. The file is then opened as a model (Checkpoint::open: the config from its
// keys, the tensors under Hugging Face names with q/k un-permuted, the Q8_0 checks) and its
// tokenizer built (Tokenizer::from_gguf), each succeeding or raising carbon::Error, every view of a
// model that opens read to its last byte. Seeds: files from the test writer (every metadata type,
// nested arrays, the tokenizer arrays a Carbon GGUF holds, F32/BF16/Q8_0 tensors, alignments 32 and
// 64, versions 2 and 3), a complete one-layer Carbon model with its HybridDNA vocabulary, and the
// malformed corpus of test_gguf.h (overflowing counts, lengths, sizes and offsets).
#include <filesystem>
#include <fstream>

#include "carbon/loader/checkpoint.h"
#include "carbon/loader/gguf.h"
#include "carbon/model.h"
#include "carbon/support/common.h"
#include "carbon/test_support/test_gguf.h"
#include "fuzz_files.h"
#include "fuzz_target.h"

namespace {

namespace fs = std::filesystem;
using namespace carbon::test;

size_t touch(const carbon::GgufValue& v) {
    size_t n = v.s.size() + size_t(v.u & 1) + size_t(v.i & 1);
    for (const auto& item : v.items) n += touch(item);
    return n;
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    using carbon::GgufType;
    std::vector<GgufTensorToWrite> tensors;
    auto tensor = [&](std::string name, uint32_t type, std::vector<uint64_t> dims, size_t bytes) {
        std::vector<uint8_t> b(bytes);
        for (size_t i = 0; i < bytes; ++i) b[i] = uint8_t(i * 29 + 3);
        tensors.push_back({std::move(name), type, std::move(dims), std::move(b)});
    };
    tensor("token_embd.weight", 30, {64, 6}, 64 * 6 * 2);   // BF16
    tensor("output_norm.weight", 0, {64}, 64 * 4);          // F32
    tensor("blk.0.attn_q.weight", 8, {64, 3}, 3 * 2 * 34);  // Q8_0: two blocks per row
    carbon::GgufValue b;
    b.type = GgufType::Bool;
    b.u = 1;
    const std::vector<GgufKv> metadata = {
        {"general.architecture", gguf_string("llama")},
        {"llama.block_count", gguf_u32(1)},
        {"llama.rope.freq_base", gguf_f32(500000.f)},
        {"llama.attention.layer_norm_rms_epsilon", gguf_f32(1e-5f)},
        {"tokenizer.ggml.model", gguf_string("gpt2")},
        {"tokenizer.ggml.tokens", gguf_array(GgufType::String, {gguf_string("<dna>"), gguf_string("</dna>"), gguf_string("AAAAAA")})},
        {"tokenizer.ggml.token_type", gguf_array(GgufType::I32, {gguf_i32(3), gguf_i32(3), gguf_i32(1)})},
        {"tokenizer.ggml.add_bos_token", b},
        {"nested", gguf_array(GgufType::Array, {gguf_array(GgufType::U32, {gguf_u32(1), gguf_u32(2)})})},
    };
    std::vector<carbon::test::GgufKv> aligned64 = metadata;
    aligned64.push_back({"general.alignment", gguf_u32(64)});
    std::vector<std::string> seeds = {gguf_bytes(metadata, tensors), gguf_bytes(aligned64, tensors, 64),
                                      gguf_bytes(metadata, tensors, 32, 2), gguf_bytes(metadata, {}), one_layer_carbon_gguf()};
    // The malformed corpus (the lies the reader's tests refuse, the integer-overflow class of
    // llama.cpp's GGUF advisories among them), but for the 8 MiB one: mutations start from each.
    for (const MalformedGguf& lie : malformed_gguf_corpus(seeds.front()))
        if (lie.bytes.size() <= (size_t(1) << 20)) seeds.push_back(lie.bytes);
    return seeds;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const fs::path file = carbon::fuzz::scratch_dir("gguf") / "model.gguf";
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    try {
        const carbon::GgufFile g = carbon::GgufFile::open(file);
        volatile size_t sink = 0;
        for (const auto& [key, value] : g.metadata()) sink = sink + key.size() + touch(value);
        for (const carbon::GgufTensor& t : g.tensors())
            for (uint64_t i = 0; i < t.nbytes; ++i) sink = sink + t.data[i];
        (void)sink;
    } catch (const carbon::Error&) {
        return 0;
    }
    try {
        const carbon::Checkpoint ck = carbon::Checkpoint::open(file);
        volatile size_t sink = 0;
        for (const auto& [name, view] : ck.archive().tensors())
            for (size_t i = 0; i < view.nbytes; ++i) sink = sink + static_cast<const uint8_t*>(view.data)[i];
        const carbon::Tokenizer tok = carbon::open_tokenizer(ck);
        sink = sink + size_t(tok.kmer_id(4095)) + tok.encode_prompt("ab", "ACGTNacgt", true).ids.size();
        (void)sink;
    } catch (const carbon::Error&) {
    }
    return 0;
}
