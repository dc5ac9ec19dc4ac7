// malformed_gguf_corpus (test_gguf.h): the lies the GGUF reader must refuse, each with what its
// message must name. Offsets follow the layout gguf_bytes writes: magic, version, the tensor and
// metadata counts (the first key at byte 24), then per key its length, bytes, type and value, then
// per tensor its name, dimension count, dimensions, ggml type and data offset.
#include <cstring>

#include "carbon/test_support/test_gguf.h"

namespace carbon::test {

namespace {

template <typename T>
void poke(std::string& s, size_t at, T v) {
    std::memcpy(s.data() + at, &v, sizeof v);
}

constexpr size_t kFirstKey = 24;

std::vector<uint8_t> pattern(size_t n, int seed) {
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 37 + size_t(seed) * 11 + 5);
    return b;
}

GgufValue scalar(GgufType t, int64_t i, uint64_t u) {
    GgufValue v;
    v.type = t;
    v.i = i;
    v.u = u;
    return v;
}

}  // namespace

std::vector<MalformedGguf> malformed_gguf_corpus(const std::string& good) {
    std::vector<MalformedGguf> out;
    auto add = [&](std::string what, std::string bytes, std::vector<std::string> message) {
        out.push_back({std::move(what), std::move(bytes), std::move(message)});
    };
    {
        std::string s = good;
        s[0] = 'X';
        add("bad magic", s, {"byte 0", "not a GGUF file"});
    }
    for (uint32_t v : {1u, 4u}) {
        std::string s = good;
        poke<uint32_t>(s, 4, v);
        add("version " + std::to_string(v), s, {"byte 4", "GGUF version"});
    }
    {
        std::string s = good;
        poke<uint64_t>(s, 8, uint64_t(1) << 63);
        add("tensor count 2^63", s, {"byte 8", "tensors where the file has"});
        s = good;
        poke<uint64_t>(s, 16, ~uint64_t(0));
        add("metadata count 2^64-1", s, {"byte 16", "metadata entries"});
        s = good;
        poke<uint64_t>(s, kFirstKey, ~uint64_t(0));
        add("key length 2^64-1", s, {"byte 24", "a metadata key says it is"});
    }
    // Arrays whose count times the element size wraps, or the rest of the file cannot hold.
    for (uint64_t count : {~uint64_t(0), uint64_t(1) << 61, uint64_t(1) << 40}) {
        std::string s = gguf_bytes({{"a", gguf_array(GgufType::U64, {scalar(GgufType::U64, 0, 7)})}}, {});
        poke<uint64_t>(s, kFirstKey + 8 + 1 + 4 + 4, count);  // key "a", its type, the element type
        add("array count " + std::to_string(count), s, {"'a'", "an array of", "bytes left"});
    }
    {
        std::string s = gguf_bytes({{"s", gguf_string("abc")}}, {});
        poke<uint64_t>(s, kFirstKey + 8 + 1 + 4, ~uint64_t(0) - 1);  // the string's length wraps past the end
        add("string length 2^64-2", s, {"byte 37", "a string says it is"});
    }
    {
        GgufValue deep = gguf_array(GgufType::U8, {});
        for (int d = 0; d < 5; ++d) deep = gguf_array(GgufType::Array, {deep});
        add("arrays nested 6 deep", gguf_bytes({{"deep", deep}}, {}), {"'deep'", "nested deeper than 4"});
    }
    {
        std::string s = gguf_bytes({{"k", gguf_u32(1)}}, {});
        poke<uint32_t>(s, kFirstKey + 8 + 1, 13);
        add("value type 13", s, {"'k'", "unknown value type 13"});
        add("bool 2", gguf_bytes({{"k", scalar(GgufType::Bool, 0, 2)}}, {}), {"'k'", "a bool holds 2"});
        add("key twice", gguf_bytes({{"k", gguf_u32(1)}, {"k", gguf_u32(2)}}, {}), {"'k' appears twice"});
    }
    for (const GgufValue& a : {gguf_u32(0), gguf_u32(48), scalar(GgufType::U64, 0, 32)})
        add("general.alignment " + std::to_string(a.u), gguf_bytes({{"general.alignment", a}}, {}), {"general.alignment"});
    {
        // Array values past the reader's budget (an 8 MiB file): refused before they are held.
        std::string s = gguf_bytes({{"big", gguf_array(GgufType::U8, {})}}, {});
        const uint64_t n = (uint64_t(1) << 23) + 1;
        poke<uint64_t>(s, kFirstKey + 8 + 3 + 4 + 4, n);
        s.resize(s.size() + size_t(n), '\1');
        add("array past the budget", s, {"'big'", "array values this reader takes"});
    }
    auto with_tensor = [](GgufTensorToWrite t) { return gguf_bytes({}, {std::move(t)}); };
    add("0 dimensions", with_tensor({"t", 0, {}, {}}), {"tensor 't' has 0 dimensions"});
    add("5 dimensions", with_tensor({"t", 0, {1, 1, 1, 1, 1}, pattern(4, 0)}), {"tensor 't' has 5 dimensions"});
    add("a 0 dimension", with_tensor({"t", 0, {4, 0}, {}}), {"tensor 't'", "dimension 1 is 0"});
    add("element count wraps", with_tensor({"t", 0, {uint64_t(1) << 32, uint64_t(1) << 32, 4}, {}}), {"tensor 't'", "overflows"});
    add("ggml type 99", with_tensor({"t", 99, {4}, pattern(4, 0)}), {"tensor 't' has ggml type 99"});
    add("Q8_0 row of 33", with_tensor({"t", 8, {33}, pattern(34, 0)}), {"tensor 't' [33] is Q8_0", "whole blocks of 32"});
    // F64 at 2^31 x 2^31: the element count fits, its bytes (2^65) wrap.
    add("F64 bytes wrap", with_tensor({"t", 28, {uint64_t(1) << 31, uint64_t(1) << 31}, {}}), {"tensor 't' is too large"});
    // One F32 row of 2^62 (+16) values: the row's own bytes wrap to 0 (64).
    add("F32 row bytes wrap to 0", with_tensor({"t", 0, {uint64_t(1) << 62}, {}}), {"tensor 't' is too large"});
    add("F32 row bytes wrap to 64", with_tensor({"t", 0, {(uint64_t(1) << 62) + 16}, pattern(64, 0)}), {"tensor 't' is too large"});
    add("I64 row bytes wrap", with_tensor({"t", 27, {uint64_t(1) << 61}, {}}), {"tensor 't' is too large"});
    {
        // A tensor's offset: not aligned; past the end; its size past the end (the sum wrapping).
        std::string s = with_tensor({"t", 0, {8}, pattern(32, 0)});
        const size_t off_at = kFirstKey + 8 + 1 + 4 + 8 + 4;
        poke<uint64_t>(s, off_at, 4);
        add("offset not aligned", s, {"tensor 't' starts at data offset 4", "alignment 32"});
        poke<uint64_t>(s, off_at, 1024);
        add("offset past the end", s, {"tensor 't'", "runs past the end of the file"});
        poke<uint64_t>(s, off_at, ~uint64_t(31));
        add("offset + size wraps", s, {"tensor 't'", "runs past the end of the file"});
    }
    {
        std::string s = gguf_bytes({}, {{"a", 0, {8}, pattern(32, 0)}, {"b", 0, {8}, pattern(32, 1)}});
        const size_t b_off = kFirstKey + (8 + 1 + 4 + 8 + 4 + 8) + (8 + 1 + 4 + 8 + 4);
        poke<uint64_t>(s, b_off, 0);
        add("tensors overlap", s, {"tensors 'a' and 'b' overlap"});
        add("tensor twice", gguf_bytes({}, {{"a", 0, {8}, pattern(32, 0)}, {"a", 0, {8}, pattern(32, 1)}}), {"tensor 'a' appears twice"});
    }
    return out;
}

}  // namespace carbon::test
