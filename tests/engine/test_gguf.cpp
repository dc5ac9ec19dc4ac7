// The GGUF reader (gguf.h): a file of every metadata type and F32/BF16/Q8_0 tensors reads back
// exactly (values, dimensions, offsets, the bytes each view points at), at alignments 32 and 64
// and in versions 2 and 3; every prefix of it is refused with an Error, never a crash; and each
// kind of lie (test_support's malformed_gguf_corpus, which the GGUF fuzz target starts from too) is
// refused with a message that names the file, the byte and what is wrong, including the
// integer-overflow class of llama.cpp's GGUF advisories (counts, string lengths, array sizes and
// tensor sizes that wrap), before anything is allocated for them.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "carbon/loader/gguf.h"
#include "carbon/test_support/test_gguf.h"
#include "check.h"

namespace fs = std::filesystem;
using namespace carbon;
using namespace carbon::test;

namespace {

fs::path scratch() {
    static const fs::path d = [] {
        const fs::path p = fs::temp_directory_path() / ("carbon-test-gguf-" + std::to_string(::getpid()));
        fs::create_directories(p);
        return p;
    }();
    return d;
}

std::string write(const std::string& bytes, const char* name = "model.gguf") {
    const fs::path p = scratch() / name;
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    return p.string();
}

std::vector<uint8_t> pattern(size_t n, int seed) {
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 37 + size_t(seed) * 11 + 5);
    return b;
}

std::vector<GgufTensorToWrite> some_tensors() {
    return {{"token_embd.weight", 30, {64, 5}, pattern(64 * 5 * 2, 1)},
            {"output_norm.weight", 0, {64}, pattern(64 * 4, 2)},
            {"blk.0.ffn_up.weight", 8, {96, 3}, pattern(3 * 3 * 34, 3)},
            {"blk.0.attn_k.weight", 1, {7, 2, 3}, pattern(7 * 2 * 3 * 2, 4)}};
}

GgufValue scalar(GgufType t, int64_t i, uint64_t u, double f) {
    GgufValue v;
    v.type = t;
    v.i = i;
    v.u = u;
    v.f = f;
    return v;
}

std::vector<GgufKv> some_metadata() {
    return {{"general.architecture", gguf_string("llama")},
            {"u8", scalar(GgufType::U8, 0, 200, 0)},
            {"i8", scalar(GgufType::I8, -100, 0, 0)},
            {"u16", scalar(GgufType::U16, 0, 60000, 0)},
            {"i16", scalar(GgufType::I16, -30000, 0, 0)},
            {"u32", gguf_u32(4000000000u)},
            {"i32", gguf_i32(-2000000000)},
            {"u64", scalar(GgufType::U64, 0, 1ull << 60, 0)},
            {"i64", scalar(GgufType::I64, -(1ll << 60), 0, 0)},
            {"f32", gguf_f32(0.25f)},
            {"f64", scalar(GgufType::F64, 0, 0, 1e-300)},
            {"bool", scalar(GgufType::Bool, 0, 1, 0)},
            {"tokenizer.ggml.tokens", gguf_array(GgufType::String, {gguf_string("<dna>"), gguf_string(""), gguf_string("ACGTAC")})},
            {"nested", gguf_array(GgufType::Array, {gguf_array(GgufType::I32, {gguf_i32(1), gguf_i32(-2)}), gguf_array(GgufType::I32, {})})}};
}

}  // namespace

TEST(a_file_reads_back_exactly) {
    for (uint32_t version : {2u, 3u})
        for (uint32_t alignment : {32u, 64u}) {
            auto metadata = some_metadata();
            if (alignment != 32) metadata.push_back({"general.alignment", gguf_u32(alignment)});
            const auto tensors = some_tensors();
            const GgufFile g = GgufFile::open(write(gguf_bytes(metadata, tensors, alignment, version)));
            CHECK_EQ(g.version(), version);
            CHECK_EQ(g.alignment(), alignment);
            CHECK_EQ(g.data_offset() % alignment, uint64_t(0));
            CHECK_EQ(g.metadata().size(), metadata.size());
            for (const GgufKv& kv : metadata) {
                const GgufValue* v = g.find(kv.key);
                CHECK(v != nullptr);
                if (!v) continue;
                CHECK(v->type == kv.value.type);
                CHECK_EQ(v->i, kv.value.i);
                CHECK_EQ(v->u, kv.value.u);
                CHECK(v->f == (kv.value.type == GgufType::F32 ? double(float(kv.value.f)) : kv.value.f));
                CHECK(v->s == kv.value.s);
                CHECK_EQ(v->items.size(), kv.value.items.size());
            }
            CHECK(g.find("tokenizer.ggml.tokens")->items[2].as_string("t") == "ACGTAC");
            CHECK_EQ(g.find("nested")->items[0].items[1].as_int("nested"), int64_t(-2));
            CHECK_EQ(g.find("u32")->as_int("u32"), int64_t(4000000000u));
            CHECK_THROWS_WITH(g.find("general.architecture")->as_int("general.architecture"), "general.architecture", "string");
            CHECK_EQ(g.tensors().size(), tensors.size());
            for (size_t i = 0; i < tensors.size(); ++i) {
                const GgufTensor& t = g.tensors()[i];
                CHECK(t.name == tensors[i].name);
                CHECK(t.dims == tensors[i].dims);
                CHECK_EQ(t.type, tensors[i].type);
                CHECK_EQ(t.nbytes, uint64_t(tensors[i].bytes.size()));
                CHECK_EQ(t.offset % alignment, uint64_t(0));
                CHECK(std::memcmp(t.data, tensors[i].bytes.data(), tensors[i].bytes.size()) == 0);
                CHECK(g.tensor(t.name) == &t);
            }
            CHECK_EQ(g.tensor("blk.0.attn_k.weight")->numel(), uint64_t(42));
            CHECK(g.tensor("absent") == nullptr);
        }
}

TEST(every_prefix_is_refused) {
    const std::string whole = gguf_bytes(some_metadata(), some_tensors());
    size_t refused = 0;
    for (size_t n = 0; n < whole.size(); ++n) {
        const std::string path = write(whole.substr(0, n));
        try {
            (void)GgufFile::open(path);
            // Only a cut inside the last tensor's trailing padding leaves a whole file.
            CHECK(n >= whole.size() - 31);
        } catch (const Error& e) {
            ++refused;
            CHECK(std::string(e.what()).find(path) != std::string::npos);
        }
    }
    CHECK(refused > whole.size() - 32);
}

TEST(a_folder_or_missing_file_is_called_a_gguf_file) {
    const std::string dir = write("x") + ".d";
    std::filesystem::create_directories(dir);
    CHECK_THROWS_WITH((void)GgufFile::open(dir), dir.c_str(), "a GGUF file must be a file");
    CHECK_THROWS_WITH((void)GgufFile::open(dir + "/absent.gguf"), "cannot open a GGUF file");
}

TEST(each_lie_is_refused_with_what_and_where) {
    const std::vector<MalformedGguf> corpus = malformed_gguf_corpus(gguf_bytes(some_metadata(), some_tensors()));
    CHECK(corpus.size() >= 30);
    for (const MalformedGguf& lie : corpus) {
        const std::string path = write(lie.bytes, "lie.gguf");
        try {
            (void)GgufFile::open(path);
            std::fprintf(stderr, "  %s: opened\n", lie.what.c_str());
            CHECK(false);
        } catch (const Error& e) {
            const std::string m = e.what();
            CHECK(m.find(path) != std::string::npos);
            for (const std::string& p : lie.message)
                if (m.find(p) == std::string::npos) {
                    std::fprintf(stderr, "  %s: message '%s' lacks '%s'\n", lie.what.c_str(), m.c_str(), p.c_str());
                    CHECK(false);
                }
        }
    }
}

CHECK_MAIN()
