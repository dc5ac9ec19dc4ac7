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

// A one-layer Carbon model as llama.cpp's converter lays it out: hidden 32, two heads of 16 (one
// KV head), FFN 64, the HybridDNA vocabulary (<dna>, </dna>, <oov>, the 4,096 marked 6-mers, two
// BPE letters and their merge), BF16 matrices with a Q8_0 up projection, F32 norms, tied head.
std::string carbon_model_seed() {
    using carbon::GgufType;
    const uint64_t H = 32, F = 64, hd = 16, heads = 2, kv = 1, V = 4 + 4096 + 2;
    std::vector<carbon::GgufValue> tokens = {gguf_string("a"), gguf_string("b"), gguf_string("ab")};
    std::vector<carbon::GgufValue> types = {gguf_i32(1), gguf_i32(1), gguf_i32(1)};
    for (const char* s : {"<dna>", "</dna>", "<oov>"}) {
        tokens.push_back(gguf_string(s));
        types.push_back(gguf_i32(3));
    }
    const char bases[] = "ATCG";
    for (int i = 0; i < 4096; ++i) {
        std::string k(6, 'A');
        for (int p = 0; p < 6; ++p) k[size_t(p)] = bases[(i >> (2 * (5 - p))) & 3];
        tokens.push_back(gguf_string(k + "\xEE\x80\x80"));
        types.push_back(gguf_i32(1));
    }
    tokens.resize(V, gguf_string("[PAD]"));
    types.resize(V, gguf_i32(5));
    const std::vector<GgufKv> kv_ = {
        {"general.architecture", gguf_string("llama")},
        {"llama.block_count", gguf_u32(1)},
        {"llama.context_length", gguf_u32(64)},
        {"llama.embedding_length", gguf_u32(uint32_t(H))},
        {"llama.feed_forward_length", gguf_u32(uint32_t(F))},
        {"llama.attention.head_count", gguf_u32(uint32_t(heads))},
        {"llama.attention.head_count_kv", gguf_u32(uint32_t(kv))},
        {"llama.attention.key_length", gguf_u32(uint32_t(hd))},
        {"llama.rope.freq_base", gguf_f32(10000.f)},
        {"llama.attention.layer_norm_rms_epsilon", gguf_f32(1e-6f)},
        {"llama.vocab_size", gguf_u32(uint32_t(V))},
        {"tokenizer.ggml.model", gguf_string("hybriddna")},
        {"tokenizer.ggml.pre", gguf_string("qwen2")},
        {"tokenizer.ggml.tokens", gguf_array(GgufType::String, tokens)},
        {"tokenizer.ggml.token_type", gguf_array(GgufType::I32, types)},
        {"tokenizer.ggml.merges", gguf_array(GgufType::String, {gguf_string("a b")})},
    };
    std::vector<GgufTensorToWrite> t;
    auto add = [&](std::string name, uint32_t type, std::vector<uint64_t> dims) {
        uint64_t n = 1;
        for (uint64_t d : dims) n *= d;
        const size_t bytes = type == 0 ? n * 4 : type == 8 ? n / 32 * 34 : n * 2;
        std::vector<uint8_t> b(bytes);
        for (size_t i = 0; i < bytes; ++i) b[i] = uint8_t((i * 37 + 11) % 251 & 0x3f);  // small values, no -128, finite scales
        t.push_back({std::move(name), type, std::move(dims), std::move(b)});
    };
    add("token_embd.weight", 30, {H, V});
    add("output_norm.weight", 0, {H});
    add("blk.0.attn_norm.weight", 0, {H});
    add("blk.0.attn_q.weight", 30, {H, heads * hd});
    add("blk.0.attn_k.weight", 30, {H, kv * hd});
    add("blk.0.attn_v.weight", 30, {H, kv * hd});
    add("blk.0.attn_output.weight", 30, {heads * hd, H});
    add("blk.0.ffn_norm.weight", 0, {H});
    add("blk.0.ffn_gate.weight", 30, {H, F});
    add("blk.0.ffn_up.weight", 8, {H, F});
    add("blk.0.ffn_down.weight", 30, {F, H});
    return gguf_bytes(kv_, t);
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
                                      gguf_bytes(metadata, tensors, 32, 2), gguf_bytes(metadata, {}), carbon_model_seed()};
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
