// safetensors reader/writer: round trips (single file and shards) and every kind of lying header,
// each of which must be an Error naming the file and the tensor; plus bf16/f16 bit-exact conversions.
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>
#include <nlohmann/json.hpp>

#include "carbon/loader/safetensors.h"
#include "check.h"

namespace fs = std::filesystem;
using carbon::DType;
using carbon::TensorArchive;
using carbon::open_safetensors_dir;
using carbon::open_safetensors_file;
using carbon::TensorToWrite;
using nlohmann::json;

namespace {

// A fresh directory per call; removed at the end of the test by the guard.
struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("carbon-test-st-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string str(const char* name) const { return (path / name).string(); }
};

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string le64(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[size_t(i)] = char((n >> (8 * i)) & 0xff);
    return s;
}

// A safetensors file with a hand-written header, for the malformed cases.
void write_raw(const fs::path& p, const std::string& header, size_t payload_bytes) {
    write_bytes(p, le64(header.size()) + header + std::string(payload_bytes, '\x01'));
}

std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

std::vector<uint8_t> u16_bytes(const std::vector<uint16_t>& v) {
    std::vector<uint8_t> b(v.size() * 2);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TensorToWrite f32_tensor(const std::string& name, std::vector<int64_t> shape, float start) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + float(i);
    return {name, DType::F32, std::move(shape), f32_bytes(v)};
}

// One valid tensor entry in a hand-written header.
json entry(const char* dtype, json shape, uint64_t begin, uint64_t end) {
    return json{{"dtype", dtype}, {"shape", std::move(shape)}, {"data_offsets", {begin, end}}};
}

}  // namespace

// ---- Round trips ----------------------------------------------------------------------------

TEST(write_then_read_single_file) {
    TempDir d;
    const fs::path file = d.path / "a.safetensors";
    std::vector<TensorToWrite> ts;
    ts.push_back(f32_tensor("w", {2, 3}, 1.f));
    ts.push_back({"h", DType::F16, {3}, u16_bytes({0x3c00, 0x4000, 0xc000})});  // 1, 2, -2
    ts.push_back({"b", DType::BF16, {2}, u16_bytes({0x3f80, 0x4040})});         // 1, 3
    ts.push_back({"scalar", DType::F32, {}, f32_bytes({7.5f})});
    ts.push_back({"empty", DType::BF16, {0, 4}, {}});
    carbon::write_safetensors(file, ts);

    // The header is padded with spaces so the payload starts 8-aligned, as the reference does.
    std::ifstream in(file, std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(raw[size_t(i)]);
    CHECK_EQ(n % 8, uint64_t(0));
    const json header = json::parse(raw.substr(8, n));
    CHECK_EQ(header["__metadata__"]["format"].get<std::string>(), std::string("pt"));
    CHECK_EQ(raw.size(), size_t(8 + n + 24 + 6 + 4 + 4));

    const TensorArchive a = open_safetensors_file(file);
    CHECK_EQ(a.tensors().size(), size_t(5));
    CHECK_EQ(a.files().size(), size_t(1));
    CHECK_EQ(a.total_bytes(), size_t(38));
    const auto& w = a.get("w");
    CHECK(w.dtype == DType::F32);
    CHECK_EQ(w.numel(), int64_t(6));
    CHECK_EQ(w.nbytes, size_t(24));
    CHECK_EQ(w.file, file);
    CHECK_EQ(carbon::load_as_f32(w.data, w.dtype, 5), 6.f);
    const auto& h = a.get("h");
    CHECK_EQ(carbon::load_as_f32(h.data, h.dtype, 2), -2.f);
    const auto& b = a.get("b");
    CHECK_EQ(carbon::load_as_f32(b.data, b.dtype, 1), 3.f);
    CHECK_EQ(a.get("scalar").numel(), int64_t(1));
    CHECK_EQ(carbon::load_as_f32(a.get("scalar").data, DType::F32, 0), 7.5f);
    CHECK_EQ(a.get("empty").numel(), int64_t(0));
    CHECK_EQ(a.get("empty").shape.size(), size_t(2));
    CHECK(a.contains("w"));
    CHECK(!a.contains("__metadata__"));
    const std::string where = file.string();
    CHECK_THROWS_WITH(a.get("nope"), where.c_str(), "tensor 'nope' is missing");
}

TEST(writer_rejects_bad_payloads) {
    TempDir d;
    const std::string f = d.str("x.safetensors");
    CHECK_THROWS_WITH(carbon::write_safetensors(f, {{"t", DType::F32, {3}, std::vector<uint8_t>(8)}}), f.c_str(), "'t'",
                      "12 bytes, got 8");
    CHECK_THROWS_WITH(carbon::write_safetensors(f, {f32_tensor("t", {1}, 0), f32_tensor("t", {1}, 0)}), f.c_str(),
                      "'t'", "duplicate");
    CHECK(!fs::exists(f));
}

TEST(sharded_round_trip) {
    TempDir d;
    std::vector<TensorToWrite> ts;
    for (int i = 0; i < 5; ++i)
        ts.push_back(f32_tensor(std::string("t").append(std::to_string(i)), {4}, float(10 * i)));
    carbon::write_sharded_safetensors(d.path, ts, 40);  // 16 bytes each: two per shard -> 3 shards
    CHECK(fs::exists(d.path / "model-00001-of-00003.safetensors"));
    CHECK(fs::exists(d.path / "model-00003-of-00003.safetensors"));
    CHECK(!fs::exists(d.path / "model.safetensors"));
    std::ifstream in(d.path / "model.safetensors.index.json");
    const json index = json::parse(in);
    CHECK_EQ(index["metadata"]["total_size"].get<int>(), 80);
    CHECK_EQ(index["weight_map"]["t4"].get<std::string>(), std::string("model-00003-of-00003.safetensors"));
    CHECK_EQ(index["weight_map"]["t1"].get<std::string>(), std::string("model-00001-of-00003.safetensors"));

    const TensorArchive a = open_safetensors_dir(d.path);
    CHECK_EQ(a.files().size(), size_t(3));  // each shard opened once
    CHECK_EQ(a.tensors().size(), size_t(5));
    CHECK_EQ(a.total_bytes(), size_t(80));
    CHECK_EQ(a.get("t3").file, d.path / "model-00002-of-00003.safetensors");
    CHECK_EQ(carbon::load_as_f32(a.get("t3").data, DType::F32, 2), 32.f);
    const std::string want = d.path.string() + ": tensor 't9' is missing";
    CHECK_THROWS_WITH(a.get("t9"), want.c_str());

    // One shard: a plain model.safetensors, and the stale index must not shadow it.
    carbon::write_sharded_safetensors(d.path, {f32_tensor("only", {2}, 0)}, 1 << 20);
    CHECK(fs::exists(d.path / "model.safetensors"));
    CHECK(!fs::exists(d.path / "model.safetensors.index.json"));
    const TensorArchive b = open_safetensors_dir(d.path);
    CHECK_EQ(b.tensors().size(), size_t(1));
    CHECK(b.contains("only"));
}

TEST(open_dir_prefers_the_index) {
    TempDir d;
    carbon::write_safetensors(d.path / "model.safetensors", {f32_tensor("single", {1}, 0)});
    carbon::write_safetensors(d.path / "part.safetensors", {f32_tensor("sharded", {1}, 0)});
    write_bytes(d.path / "model.safetensors.index.json",
                R"({"metadata": {"total_size": 4}, "weight_map": {"sharded": "part.safetensors"}})");
    const TensorArchive a = open_safetensors_dir(d.path);
    CHECK(a.contains("sharded"));
    CHECK(!a.contains("single"));
}

TEST(open_dir_without_weights_lists_the_directory) {
    TempDir d;
    write_bytes(d.path / "pytorch_model.bin", "x");
    write_bytes(d.path / "config.json", "{}");
    const std::string dir = d.path.string();
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), dir.c_str(), "model.safetensors", "pytorch_model.bin",
                      "config.json");
    const std::string gone = (d.path / "gone").string();
    CHECK_THROWS_WITH(open_safetensors_dir(d.path / "gone"), gone.c_str());
}

TEST(metadata_and_python_style_header) {
    // As the Rust/Python writer lays it out: metadata with extra keys, tensors sorted by name.
    TempDir d;
    const fs::path f = d.path / "m.safetensors";
    json h;
    h["__metadata__"] = {{"format", "pt"}, {"note", "hi"}};
    h["a"] = entry("BF16", {2}, 0, 4);
    h["b"] = entry("F32", json::array(), 4, 8);
    std::string text = h.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    write_raw(f, text, 8);
    const TensorArchive a = open_safetensors_file(f);
    CHECK_EQ(a.tensors().size(), size_t(2));
}

// ---- Broken files ---------------------------------------------------------------------------

TEST(missing_empty_and_short_files) {
    TempDir d;
    const std::string missing = d.str("missing.safetensors");
    CHECK_THROWS_WITH(open_safetensors_file(missing), missing.c_str(), "No such file");
    const std::string empty = d.str("empty.safetensors");
    write_bytes(empty, "");
    CHECK_THROWS_WITH(open_safetensors_file(empty), empty.c_str(), "empty");
    const std::string shortf = d.str("short.safetensors");
    write_bytes(shortf, "abc");
    CHECK_THROWS_WITH(open_safetensors_file(shortf), shortf.c_str(), "3 bytes", "too short");
    const std::string dir = d.path.string();
    CHECK_THROWS_WITH(carbon::MappedFile::open(d.path), dir.c_str(), "not a regular file");
}

TEST(mapped_file_moves) {
    TempDir d;
    write_bytes(d.path / "f", "hello");
    carbon::MappedFile a = carbon::MappedFile::open(d.path / "f");
    CHECK_EQ(a.size(), size_t(5));
    carbon::MappedFile b = std::move(a);
    CHECK(a.data() == nullptr);
    CHECK_EQ(std::memcmp(b.data(), "hello", 5), 0);
    carbon::MappedFile c;
    c = std::move(b);
    CHECK_EQ(c.size(), size_t(5));
    CHECK_EQ(c.path(), d.path / "f");
}

// TensorArchive::own: with a cache folder on a disk the buffer goes into an unnamed file there,
// mapped, so release_pages can free it and a page read again comes back from the file; with no
// cache folder it stays on the heap. Either way the bytes are the ones given.
TEST(owned_buffers_spill_to_a_mapped_file_and_survive_release) {
    TempDir d;
    const char* old = std::getenv("XDG_CACHE_HOME");
    const std::string saved = old ? old : "";
    std::vector<uint8_t> bytes(3 * 4096 + 17);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 131 + 7);
    setenv("XDG_CACHE_HOME", d.path.c_str(), 1);
    {
        TensorArchive a;
        const uint8_t* p = a.own(bytes);
        const uint8_t* q = a.own(std::vector<uint8_t>(100, 5));  // a second region of the same file
        CHECK_EQ(std::memcmp(p, bytes.data(), bytes.size()), 0);
        CHECK(q[0] == 5 && q[99] == 5);
        // On a disk the two buffers are in the file; on tmpfs (where its pages would be memory all
        // the same) they stay on the heap.
        struct statfs st {};
        const bool tmpfs = ::statfs(d.path.c_str(), &st) == 0 && (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC);
        CHECK_EQ(a.owned_on_heap(), tmpfs ? bytes.size() + 100 : size_t(0));
        carbon::TensorView v;
        v.data = p;
        v.nbytes = bytes.size();
        a.release_pages(v);
        CHECK_EQ(std::memcmp(p, bytes.data(), bytes.size()), 0);  // read back from the file
        // Unnamed: nothing is left in the cache folder.
        size_t files = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(d.path)) files += e.is_regular_file();
        CHECK_EQ(files, size_t(0));
    }
    setenv("XDG_CACHE_HOME", "", 1);
    const char* home = std::getenv("HOME");
    const std::string saved_home = home ? home : "";
    unsetenv("HOME");
    {
        TensorArchive a;
        const uint8_t* p = a.own(bytes);
        CHECK_EQ(std::memcmp(p, bytes.data(), bytes.size()), 0);
        CHECK_EQ(a.owned_on_heap(), bytes.size());
    }
    if (!saved_home.empty()) setenv("HOME", saved_home.c_str(), 1);
    if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
}

TEST(header_length_beyond_the_file) {
    TempDir d;
    const std::string f = d.str("long.safetensors");
    write_bytes(f, le64(1000) + "{}");
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "header length 1000", "file size 10");
    write_bytes(f, le64(uint64_t(1) << 40) + std::string(64, ' '));
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "header length 1099511627776", "file size 72",
                      "100 MiB");
    write_bytes(f, le64(~uint64_t(0)) + "{}");  // must not wrap around when added to 8
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "header length 18446744073709551615");
}

TEST(bad_header_json) {
    TempDir d;
    const std::string f = d.str("bad.safetensors");
    write_raw(f, R"({"w": {"dtype": "F32", )", 0);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "malformed safetensors header JSON");
    write_raw(f, "[1, 2]  ", 0);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "not a JSON object");
    write_raw(f, R"({"w": 5})", 0);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "not an object");
    // Duplicate keys: nlohmann would keep the last silently.
    write_raw(f,
              R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},)"
              R"( "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
              8);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "twice");
}

TEST(entries_need_every_field) {
    TempDir d;
    const std::string f = d.str("fields.safetensors");
    for (const char* key : {"dtype", "shape", "data_offsets"}) {
        json e = entry("F32", {1}, 0, 4);
        e.erase(key);
        write_raw(f, json{{"w", e}}.dump(), 4);
        CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", key);
    }
    write_raw(
        f, json{{"w", entry("F32", {1}, 0, 4)}, {"v", {{"dtype", 3}, {"shape", {1}}, {"data_offsets", {0, 4}}}}}.dump(),
        4);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'v'", "dtype");
    write_raw(f, json{{"w", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {0}}}}}.dump(), 4);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "data_offsets");
    write_raw(f, json{{"w", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {-4, 0}}}}}.dump(), 4);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "data_offsets");
}

TEST(unsupported_dtypes) {
    TempDir d;
    const std::string f = d.str("dtype.safetensors");
    for (const char* dt : {"I64", "F64", "BOOL", "U8", "I8", "F8_E4M3", "F8_E5M2", "float32"}) {
        write_raw(f, json{{"weird.weight", entry(dt, {1}, 0, 8)}}.dump(), 8);
        const std::string want = std::string("tensor weird.weight has unsupported dtype ") + dt + " in " + f;
        CHECK_THROWS_WITH(open_safetensors_file(f), want.c_str());
    }
}

TEST(bad_shapes) {
    TempDir d;
    const std::string f = d.str("shape.safetensors");
    write_raw(f, json{{"w", entry("F32", {2, -3}, 0, 24)}}.dump(), 24);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "[2,-3]", "non-negative integer");
    write_raw(f, json{{"w", entry("F32", {2.5}, 0, 8)}}.dump(), 8);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "non-negative integer");
    write_raw(f, json{{"w", {{"dtype", "F32"}, {"shape", 4}, {"data_offsets", {0, 16}}}}}.dump(), 16);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "shape");
    // A product that would overflow 64 bits must be caught, not wrapped into a small number.
    const uint64_t big = uint64_t(1) << 33;
    write_raw(f, json{{"w", entry("F32", {big, big, 0x40}, 0, 0)}}.dump(), 0);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "more than the 0-byte payload");
}

TEST(offsets_out_of_bounds) {
    TempDir d;
    const std::string f = d.str("oob.safetensors");
    write_raw(f, json{{"w", entry("F32", {4}, 8, 24)}}.dump(), 16);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "[8, 24]", "16 bytes");
    write_raw(f, json{{"w", entry("F32", {0}, 12, 8)}}.dump(), 16);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "[12, 8]");
}

TEST(size_must_match_shape_and_dtype) {
    TempDir d;
    const std::string f = d.str("size.safetensors");
    write_raw(f, json{{"w", entry("BF16", {3, 4}, 0, 48)}}.dump(), 48);  // F32-sized payload for BF16
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'w'", "[3, 4]", "BF16", "24 bytes", "hold 48");
}

TEST(overlapping_tensors) {
    TempDir d;
    const std::string f = d.str("overlap.safetensors");
    write_raw(f, json{{"first", entry("F32", {4}, 0, 16)}, {"second", entry("F32", {2}, 8, 16)}}.dump(), 16);
    CHECK_THROWS_WITH(open_safetensors_file(f), f.c_str(), "'first'", "'second'", "overlap");
    // Empty tensors occupy no bytes and may sit anywhere.
    write_raw(f, json{{"first", entry("F32", {4}, 0, 16)}, {"none", entry("F32", {0}, 8, 8)}}.dump(), 16);
    CHECK_EQ(open_safetensors_file(f).tensors().size(), size_t(2));
}

// ---- Broken shard sets ----------------------------------------------------------------------

namespace {
void write_index(const fs::path& dir, const json& weight_map) {
    write_bytes(dir / "model.safetensors.index.json",
                json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump());
}
}  // namespace

TEST(missing_shard) {
    TempDir d;
    carbon::write_safetensors(d.path / "s1.safetensors", {f32_tensor("a", {1}, 0)});
    write_index(d.path, {{"a", "s1.safetensors"}, {"b", "s2.safetensors"}});
    const std::string index = (d.path / "model.safetensors.index.json").string();
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), index.c_str(), "shard s2.safetensors is missing");
}

TEST(index_names_a_tensor_its_shard_lacks) {
    TempDir d;
    carbon::write_safetensors(d.path / "s1.safetensors", {f32_tensor("a", {1}, 0)});
    write_index(d.path, {{"a", "s1.safetensors"}, {"ghost", "s1.safetensors"}});
    const std::string shard = (d.path / "s1.safetensors").string();
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), shard.c_str(), "'ghost'", "lacks");
}

TEST(duplicate_tensor_across_shards) {
    TempDir d;
    carbon::write_safetensors(d.path / "s1.safetensors", {f32_tensor("a", {1}, 0), f32_tensor("dup", {1}, 0)});
    carbon::write_safetensors(d.path / "s2.safetensors", {f32_tensor("dup", {1}, 0)});
    write_index(d.path, {{"a", "s1.safetensors"}, {"dup", "s2.safetensors"}});
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), "'dup'", "s1.safetensors", "s2.safetensors");
}

TEST(shard_names_stay_inside_the_directory) {
    TempDir d;
    for (const char* bad : {"../model.safetensors", "sub/x.safetensors", "..", "/etc/passwd", "a\\b"}) {
        write_index(d.path, {{"a", bad}});
        CHECK_THROWS_WITH(open_safetensors_dir(d.path), "model.safetensors.index.json", "'a'", bad,
                          "not a plain file name");
    }
}

TEST(malformed_index) {
    TempDir d;
    const std::string index = (d.path / "model.safetensors.index.json").string();
    write_bytes(index, "{\"weight_map\": ");
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), index.c_str(), "malformed JSON");
    write_bytes(index, "{\"metadata\": {}}");
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), index.c_str(), "weight_map");
    write_index(d.path, json::object());
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), index.c_str(), "empty");
    write_index(d.path, {{"a", 3}});
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), index.c_str(), "'a'");
}

TEST(a_broken_shard_is_named) {
    TempDir d;
    carbon::write_safetensors(d.path / "s1.safetensors", {f32_tensor("a", {1}, 0)});
    write_bytes(d.path / "s2.safetensors", "junk");
    write_index(d.path, {{"a", "s1.safetensors"}, {"b", "s2.safetensors"}});
    const std::string shard = (d.path / "s2.safetensors").string();
    CHECK_THROWS_WITH(open_safetensors_dir(d.path), shard.c_str(), "too short");
}

// ---- Element conversions (common.h), against bit patterns PyTorch produces -------------------

namespace {
float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
uint32_t to_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
}  // namespace

TEST(bf16_conversion_bits) {
    struct Case {
        uint32_t f32;
        uint16_t bf16;
    };
    const Case cases[] = {
        {0x3F800000, 0x3F80},                        // 1.0
        {0x3F808000, 0x3F80},                        // tie: to even (down)
        {0x3F818000, 0x3F82},                        // tie: to even (up)
        {0x3F808001, 0x3F81},                        // above the tie
        {0x7F800000, 0x7F80},                        // +inf
        {0xFF800000, 0xFF80},                        // -inf
        {0x7F7FFFFF, 0x7F80},                        // FLT_MAX rounds to inf, as torch does
        {0x7F7F7FFF, 0x7F7F}, {0x00010000, 0x0001},  // subnormal
        {0x00008000, 0x0000},                        // subnormal tie: to even (zero)
        {0x00018000, 0x0002},                        // subnormal tie: to even (up)
        {0x80000000, 0x8000},                        // -0
    };
    for (const Case& c : cases) {
        CHECK_EQ(carbon::f32_to_bf16(from_bits(c.f32)), c.bf16);
    }
    for (uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFFC00000u}) {
        const uint16_t h = carbon::f32_to_bf16(from_bits(nan));
        CHECK((h & 0x7F80) == 0x7F80 && (h & 0x7F) != 0);  // still a NaN (not inf)
        CHECK(std::isnan(carbon::bf16_to_f32(h)));
    }
    CHECK_EQ(to_bits(carbon::bf16_to_f32(0x0001)), uint32_t(0x00010000));
    CHECK_EQ(carbon::bf16_to_f32(0xC040), -3.f);
    // Every non-NaN bf16 survives bf16 -> f32 -> bf16 unchanged.
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        const float f = carbon::bf16_to_f32(uint16_t(h));
        if (std::isnan(f)) continue;
        if (carbon::f32_to_bf16(f) != h) {
            CHECK_EQ(carbon::f32_to_bf16(f), uint16_t(h));
            break;
        }
    }
}

TEST(f16_conversion_bits) {
    struct Case {
        float f;
        uint16_t h;
    };
    const Case cases[] = {
        {1.0f, 0x3C00},
        {65504.f, 0x7BFF},  // largest finite
        {65519.f, 0x7BFF},
        {65520.f, 0x7C00},               // tie above the largest: to inf
        {std::ldexp(1.f, -24), 0x0001},  // smallest subnormal
        {std::ldexp(1.f, -25), 0x0000},  // tie: to even (zero)
        {std::ldexp(1.5f, -25), 0x0001},
        {std::ldexp(3.f, -25), 0x0002},      // tie between 1 and 2 ulps: even
        {std::ldexp(1.f, -14), 0x0400},      // smallest normal
        {std::ldexp(1023.5f, -24), 0x0400},  // largest subnormal + half ulp: to even (normal)
        {std::ldexp(1.f, -26), 0x0000},
        {-std::ldexp(1.f, -24), 0x8001},
        {1.f + std::ldexp(1.f, -11), 0x3C00},  // tie: to even
        {1.f + std::ldexp(3.f, -11), 0x3C02},  // tie: to even (up)
        {std::numeric_limits<float>::infinity(), 0x7C00},
        {-std::numeric_limits<float>::infinity(), 0xFC00},
        {-0.f, 0x8000},
        {1e-8f, 0x0000},
    };
    for (const Case& c : cases) CHECK_EQ(carbon::f32_to_f16(c.f), c.h);
    CHECK_EQ(carbon::f32_to_f16(std::numeric_limits<float>::quiet_NaN()), uint16_t(0x7E00));
    CHECK(std::isnan(carbon::f16_to_f32(0x7C01)));
    CHECK_EQ(carbon::f16_to_f32(0x0001), std::ldexp(1.f, -24));
    CHECK_EQ(carbon::f16_to_f32(0x03FF), std::ldexp(1023.f, -24));
    CHECK_EQ(carbon::f16_to_f32(0x8400), -std::ldexp(1.f, -14));
    CHECK_EQ(carbon::f16_to_f32(0xFC00), -std::numeric_limits<float>::infinity());
    CHECK_EQ(carbon::f16_to_f32(0xC000), -2.f);
    for (uint32_t h = 0; h <= 0xFFFF; ++h) {
        const float f = carbon::f16_to_f32(uint16_t(h));
        if (std::isnan(f)) continue;
        if (carbon::f32_to_f16(f) != h) {
            CHECK_EQ(carbon::f32_to_f16(f), uint16_t(h));
            break;
        }
    }
}

CHECK_MAIN()
