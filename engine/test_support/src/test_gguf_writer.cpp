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

}  // namespace carbon::test
