// gguf_bytes (test_gguf.h).
#include "carbon/test_support/test_gguf.h"

#include <cstring>

namespace carbon::test {

namespace {

template <typename T>
void put(std::string& out, T v) {
    char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out.append(b, sizeof v);
}

void put_string(std::string& out, const std::string& s) {
    put<uint64_t>(out, s.size());
    out += s;
}

void put_value(std::string& out, const GgufValue& v) {
    switch (v.type) {
        case GgufType::U8: put<uint8_t>(out, uint8_t(v.u)); break;
        case GgufType::I8: put<int8_t>(out, int8_t(v.i)); break;
        case GgufType::U16: put<uint16_t>(out, uint16_t(v.u)); break;
        case GgufType::I16: put<int16_t>(out, int16_t(v.i)); break;
        case GgufType::U32: put<uint32_t>(out, uint32_t(v.u)); break;
        case GgufType::I32: put<int32_t>(out, int32_t(v.i)); break;
        case GgufType::U64: put<uint64_t>(out, v.u); break;
        case GgufType::I64: put<int64_t>(out, v.i); break;
        case GgufType::F32: put<float>(out, float(v.f)); break;
        case GgufType::F64: put<double>(out, v.f); break;
        case GgufType::Bool: put<uint8_t>(out, uint8_t(v.u)); break;
        case GgufType::String: put_string(out, v.s); break;
        case GgufType::Array:
            put<uint32_t>(out, uint32_t(v.element));
            put<uint64_t>(out, v.items.size());
            for (const GgufValue& item : v.items) put_value(out, item);
            break;
    }
}

}  // namespace

GgufValue gguf_u32(uint32_t v) {
    GgufValue g;
    g.type = GgufType::U32;
    g.u = v;
    return g;
}
GgufValue gguf_i32(int32_t v) {
    GgufValue g;
    g.type = GgufType::I32;
    g.i = v;
    return g;
}
GgufValue gguf_f32(float v) {
    GgufValue g;
    g.type = GgufType::F32;
    g.f = v;
    return g;
}
GgufValue gguf_string(std::string s) {
    GgufValue g;
    g.type = GgufType::String;
    g.s = std::move(s);
    return g;
}
GgufValue gguf_array(GgufType element, std::vector<GgufValue> items) {
    GgufValue g;
    g.type = GgufType::Array;
    g.element = element;
    g.items = std::move(items);
    return g;
}

std::string gguf_bytes(const std::vector<GgufKv>& metadata, const std::vector<GgufTensorToWrite>& tensors, uint32_t alignment,
                       uint32_t version) {
    std::string out;
    put<uint32_t>(out, 0x46554747);
    put<uint32_t>(out, version);
    put<uint64_t>(out, tensors.size());
    put<uint64_t>(out, metadata.size());
    for (const GgufKv& kv : metadata) {
        put_string(out, kv.key);
        put<uint32_t>(out, uint32_t(kv.value.type));
        put_value(out, kv.value);
    }
    const uint64_t align = alignment ? alignment : 1;
    uint64_t offset = 0;
    for (const GgufTensorToWrite& t : tensors) {
        put_string(out, t.name);
        put<uint32_t>(out, uint32_t(t.dims.size()));
        for (uint64_t d : t.dims) put<uint64_t>(out, d);
        put<uint32_t>(out, t.type);
        put<uint64_t>(out, offset);
        offset = (offset + t.bytes.size() + align - 1) / align * align;
    }
    out.resize((out.size() + align - 1) / align * align, '\0');
    for (const GgufTensorToWrite& t : tensors) {
        out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
        out.resize((out.size() + align - 1) / align * align, '\0');
    }
    return out;
}

std::string one_layer_carbon_gguf() {
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

}  // namespace carbon::test
