// Test tool for tests/python/test_gguf_interop.py: prints what the engine reads from a GGUF file
// as JSON, or {"error": message} when it refuses the file.
//   carbon_gguf_dump FILE   {"version", "alignment", "data_offset", "metadata": {key: {"type", "value"}},
//                            "tensors": [{"name", "type", "dims", "offset", "nbytes", "byte_sum"}]}
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "carbon/loader/gguf.h"

using nlohmann::ordered_json;

namespace {

ordered_json value_json(const carbon::GgufValue& v) {
    using carbon::GgufType;
    switch (v.type) {
        case GgufType::U8: case GgufType::U16: case GgufType::U32: case GgufType::U64: return v.u;
        case GgufType::I8: case GgufType::I16: case GgufType::I32: case GgufType::I64: return v.i;
        case GgufType::F32: case GgufType::F64: return v.f;
        case GgufType::Bool: return v.u != 0;
        case GgufType::String: return v.s;
        case GgufType::Array: {
            ordered_json a = ordered_json::array();
            for (const auto& item : v.items) a.push_back(value_json(item));
            return a;
        }
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE.gguf\n", argv[0]);
        return 2;
    }
    ordered_json out;
    try {
        const carbon::GgufFile g = carbon::GgufFile::open(argv[1]);
        out["version"] = g.version();
        out["alignment"] = g.alignment();
        out["data_offset"] = g.data_offset();
        ordered_json meta = ordered_json::object();
        for (const auto& [key, v] : g.metadata()) {
            ordered_json e;
            e["type"] = carbon::gguf_type_name(v.type);
            if (v.type == carbon::GgufType::Array) e["element"] = carbon::gguf_type_name(v.element);
            e["value"] = value_json(v);
            meta[key] = e;
        }
        out["metadata"] = meta;
        ordered_json tensors = ordered_json::array();
        for (const carbon::GgufTensor& t : g.tensors()) {
            uint64_t sum = 0;
            for (uint64_t i = 0; i < t.nbytes; ++i) sum += t.data[i];
            tensors.push_back({{"name", t.name}, {"type", carbon::ggml_type_info(t.type)->name}, {"dims", t.dims},
                               {"offset", t.offset}, {"nbytes", t.nbytes}, {"byte_sum", sum}});
        }
        out["tensors"] = tensors;
    } catch (const std::exception& e) {
        out = {{"error", e.what()}};
    }
    std::cout << out.dump() << "\n";
    return 0;
}
