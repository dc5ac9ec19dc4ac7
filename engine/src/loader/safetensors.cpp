// safetensors reading (mmap, every header field checked against the file before use) and writing
// (the reference layout: u64 LE header length, space-padded JSON header, payloads in order).
#include "carbon/loader/safetensors.h"

#include "carbon/support/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace carbon {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Beyond this a header is certainly corrupt (the reference implementation caps it at 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

std::string shape_str(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

const char* st_dtype_name(DType t) {
    switch (t) {
        case DType::F32:
            return "F32";
        case DType::F16:
            return "F16";
        case DType::BF16:
            return "BF16";
        case DType::Q8_0:
        case DType::I8:
        case DType::I32:
            break;  // not a safetensors type (here)
    }
    return "?";
}

bool parse_st_dtype(const std::string& s, DType& out) {
    if (s == "F32")
        out = DType::F32;
    else if (s == "F16")
        out = DType::F16;
    else if (s == "BF16")
        out = DType::BF16;
    else
        return false;
    return true;
}

std::string errno_text(int err) {
    return std::strerror(err);
}

}  // namespace


// Parses and checks one file's header, then adds its tensors. With `expected` (tensor -> shard
// file name, from the index) every tensor the index assigns to this file must be present.
namespace {

void add_file(TensorArchive& archive, const fs::path& file, const std::map<std::string, std::string>* expected) {
    const std::string f = file.string();
    auto map = std::make_shared<const MappedFile>(MappedFile::open(file));
    const uint8_t* base = map->data();
    const size_t size = map->size();
    if (size < 8)
        throw Error(f + ": file is " + std::to_string(size) + " bytes, too short for a safetensors header (8 bytes)");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | base[i];  // little-endian regardless of host
    if (n > kMaxHeaderBytes || n > size - 8)
        throw Error(f + ": header length " + std::to_string(n) + " does not fit the file size " + std::to_string(size) +
                    (n > kMaxHeaderBytes ? " (and exceeds the 100 MiB limit)" : "") +
                    "; not a safetensors file or truncated");
    const uint64_t payload = size - 8 - n;
    const char* text = reinterpret_cast<const char*>(base + 8);

    // nlohmann keeps the last of duplicate keys silently; a duplicate tensor name is corruption.
    std::string duplicate;
    std::set<std::string> seen;
    json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth == 1 && event == json::parse_event_t::key && !seen.insert(parsed.get<std::string>()).second &&
            duplicate.empty())
            duplicate = parsed.get<std::string>();
        return true;
    };
    json header;
    try {
        header = json::parse(text, text + n, cb);
    } catch (const json::exception& e) {
        throw Error(f + ": malformed safetensors header JSON: " + e.what());
    }
    if (!header.is_object()) throw Error(f + ": safetensors header is not a JSON object");
    if (!duplicate.empty()) throw Error(f + ": tensor '" + duplicate + "' is listed twice in the header");

    struct Range {
        uint64_t begin, end;
        std::string name;
    };
    std::vector<Range> ranges;
    std::vector<TensorView> views;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        if (name == "__metadata__") continue;
        const json& e = it.value();
        const std::string where = "tensor '" + name + "' in " + f;
        if (!e.is_object()) throw Error(where + ": header entry is not an object");
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!e.contains(key)) throw Error(where + ": header entry lacks '" + key + "'");
        if (!e["dtype"].is_string()) throw Error(where + ": 'dtype' is not a string");
        TensorView v;
        v.name = name;
        v.file = file;
        const std::string dt = e["dtype"].get<std::string>();
        if (!parse_st_dtype(dt, v.dtype))
            throw Error("tensor " + name + " has unsupported dtype " + dt + " in " + f +
                        " (supported: F32, F16, BF16)");
        if (!e["shape"].is_array()) throw Error(where + ": 'shape' is not a list");
        // numel is bounded by the payload, so a product above it is an error before it can overflow.
        uint64_t numel = 1;
        bool too_big = false;
        for (const json& d : e["shape"]) {
            if (!d.is_number_unsigned())  // nlohmann parses non-negative integers as unsigned
                throw Error(where + ": shape " + e["shape"].dump() +
                            " has an entry that is not a non-negative integer");
            const uint64_t x = d.get<uint64_t>();
            if (x > uint64_t(INT64_MAX)) throw Error(where + ": shape " + e["shape"].dump() + " is absurdly large");
            v.shape.push_back(int64_t(x));
            if (x == 0)
                numel = 0;
            else if (!too_big && numel > payload / x)
                too_big = true;
            else if (!too_big)
                numel *= x;
        }
        if (numel == 0) too_big = false;
        const json& off = e["data_offsets"];
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
            throw Error(where + ": 'data_offsets' must be two non-negative integers, got " + off.dump());
        const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
        if (b > en || en > payload)
            throw Error(where + ": data_offsets [" + std::to_string(b) + ", " + std::to_string(en) +
                        "] fall outside the payload of " + std::to_string(payload) + " bytes");
        const uint64_t want = too_big ? UINT64_MAX : numel * dtype_size(v.dtype);
        if (en - b != want)
            throw Error(where + ": shape " + shape_str(v.shape) + " of " + dt + " needs " +
                        (too_big ? "more than the " + std::to_string(payload) + "-byte payload"
                                 : std::to_string(want) + " bytes") +
                        " but data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + "] hold " +
                        std::to_string(en - b));
        v.data = base + 8 + n + b;
        v.nbytes = size_t(en - b);
        if (en > b) ranges.push_back({b, en, name});
        views.push_back(std::move(v));
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& c) { return a.begin < c.begin; });
    for (size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].begin < ranges[i - 1].end)
            throw Error(f + ": tensors '" + ranges[i - 1].name + "' [" + std::to_string(ranges[i - 1].begin) + ", " +
                        std::to_string(ranges[i - 1].end) + ") and '" + ranges[i].name + "' [" +
                        std::to_string(ranges[i].begin) + ", " + std::to_string(ranges[i].end) + ") overlap");

    if (expected) {
        std::set<std::string> here;
        for (const TensorView& v : views) here.insert(v.name);
        const std::string shard = file.filename().string();
        for (const auto& [tensor, owner] : *expected)
            if (owner == shard && !here.count(tensor))
                throw Error(f + ": the index lists tensor '" + tensor + "' in this shard, but the shard lacks it");
    }
    for (TensorView& v : views) {
        if (archive.contains(v.name))
            throw Error("tensor '" + v.name + "' appears in both " + archive.get(v.name).file.string() + " and " + f);
        archive.add(std::move(v));
    }
    archive.add_mapping(std::move(map));
}

}  // namespace

TensorArchive open_safetensors_file(const fs::path& file) {
    TensorArchive a;
    a.set_source(file);
    add_file(a, file, nullptr);
    return a;
}

TensorArchive open_safetensors_dir(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir.string() + ": not a directory (or missing)");
    const fs::path index = dir / "model.safetensors.index.json";
    TensorArchive a;
    a.set_source(dir);
    if (fs::exists(index, ec)) {
        const std::string text = read_regular_file(index, "the safetensors index", 256u << 20);
        json j;
        try {
            j = json::parse(text);
        } catch (const json::exception& e) {
            throw Error(index.string() + ": malformed JSON: " + e.what());
        }
        if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
            throw Error(index.string() + ": missing the 'weight_map' object");
        std::map<std::string, std::string> expected;
        std::vector<std::string> shards;  // first-seen order, each opened once
        for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
            if (!it.value().is_string())
                throw Error(index.string() + ": weight_map entry for '" + it.key() + "' is not a file name");
            const std::string shard = it.value().get<std::string>();
            // The index must not point outside the checkpoint directory.
            if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
                shard == "." || shard == ".." || shard.find("..") != std::string::npos)
                throw Error(index.string() + ": weight_map entry for '" + it.key() + "' names shard '" + shard +
                            "', which is not a plain file name inside the directory");
            expected[it.key()] = shard;
            if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
        }
        if (shards.empty()) throw Error(index.string() + ": weight_map is empty");
        for (const std::string& shard : shards) {
            const fs::path p = dir / shard;
            if (!fs::exists(p, ec))
                throw Error(index.string() + ": shard " + shard + " is missing (expected at " + p.string() + ")");
            add_file(a, p, &expected);
        }
        return a;
    }
    const fs::path single = dir / "model.safetensors";
    if (fs::exists(single, ec)) {
        add_file(a, single, nullptr);
        return a;
    }
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string listing;
    for (size_t i = 0; i < names.size() && i < 20; ++i) listing += (i ? ", " : "") + names[i];
    if (names.size() > 20) listing += ", ... (" + std::to_string(names.size()) + " entries)";
    throw Error(dir.string() +
                ": neither model.safetensors nor model.safetensors.index.json found; the directory holds: " +
                (names.empty() ? std::string("nothing") : listing));
}

// ---- Writing --------------------------------------------------------------------------------

namespace {

// Writes to a temporary name beside the target and renames it, so a reader never sees half a file.
void write_atomically(const fs::path& file, const std::vector<std::pair<const void*, size_t>>& chunks) {
    const fs::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
    FILE* out = std::fopen(tmp.c_str(), "wb");
    if (!out) throw Error(tmp.string() + ": cannot create: " + errno_text(errno));
    for (const auto& [p, n] : chunks) {
        if (n && std::fwrite(p, 1, n, out) != n) {
            const int err = errno;
            std::fclose(out);
            std::remove(tmp.c_str());
            throw Error(file.string() + ": write failed: " + errno_text(err));
        }
    }
    if (std::fclose(out) != 0) {
        const int err = errno;
        std::remove(tmp.c_str());
        throw Error(file.string() + ": write failed: " + errno_text(err));
    }
    if (std::rename(tmp.c_str(), file.c_str()) != 0) {
        const int err = errno;
        std::remove(tmp.c_str());
        throw Error(file.string() + ": cannot rename the temporary file into place: " + errno_text(err));
    }
}

// One file from tensors held elsewhere (pointers, so sharding does not copy the payloads).
void write_file(const fs::path& file, const std::vector<const TensorToWrite*>& tensors) {
    nlohmann::ordered_json header;
    header["__metadata__"] = {{"format", "pt"}};
    uint64_t offset = 0;
    std::set<std::string> names;
    for (const TensorToWrite* tp : tensors) {
        const TensorToWrite& t = *tp;
        if (t.name == "__metadata__" || !names.insert(t.name).second)
            throw Error(file.string() + ": cannot write tensor '" + t.name + "' (duplicate or reserved name)");
        uint64_t numel = 1;
        for (int64_t d : t.shape) {
            if (d < 0) throw Error(file.string() + ": tensor '" + t.name + "' has a negative dimension");
            numel *= uint64_t(d);
        }
        if (t.bytes.size() != numel * dtype_size(t.dtype))
            throw Error(file.string() + ": tensor '" + t.name + "' of shape " + shape_str(t.shape) + " and dtype " +
                        st_dtype_name(t.dtype) + " needs " + std::to_string(numel * dtype_size(t.dtype)) +
                        " bytes, got " + std::to_string(t.bytes.size()));
        header[t.name] = {
            {"dtype", st_dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // payload starts 8-aligned, as the reference pads
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
    std::vector<std::pair<const void*, size_t>> chunks{{len, 8}, {text.data(), text.size()}};
    for (const TensorToWrite* t : tensors) chunks.emplace_back(t->bytes.data(), t->bytes.size());
    write_atomically(file, chunks);
}

}  // namespace

void write_safetensors(const fs::path& file, const std::vector<TensorToWrite>& tensors) {
    std::vector<const TensorToWrite*> all;
    for (const TensorToWrite& t : tensors) all.push_back(&t);
    write_file(file, all);
}

void write_sharded_safetensors(const fs::path& dir, const std::vector<TensorToWrite>& tensors, size_t max_shard_bytes) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create directory: " + ec.message());
    // Greedy split in the given order; a tensor bigger than the limit gets a shard of its own.
    std::vector<std::vector<const TensorToWrite*>> shards(1);
    size_t used = 0;
    for (const TensorToWrite& t : tensors) {
        if (!shards.back().empty() && used + t.bytes.size() > max_shard_bytes) {
            shards.emplace_back();
            used = 0;
        }
        shards.back().push_back(&t);
        used += t.bytes.size();
    }
    const fs::path index = dir / "model.safetensors.index.json";
    if (shards.size() == 1) {
        write_safetensors(dir / "model.safetensors", tensors);
        fs::remove(index, ec);  // a stale index would shadow the new file in open_dir
        return;
    }
    nlohmann::ordered_json weight_map = nlohmann::ordered_json::object();
    uint64_t total = 0;
    for (size_t i = 0; i < shards.size(); ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, shards.size());
        for (const TensorToWrite* t : shards[i]) {
            weight_map[t->name] = name;
            total += t->bytes.size();
        }
        write_file(dir / name, shards[i]);
    }
    nlohmann::ordered_json j;
    j["metadata"] = {{"total_size", total}};
    j["weight_map"] = weight_map;
    const std::string text = j.dump(2) + "\n";
    write_atomically(index, {{text.data(), text.size()}});
}

}  // namespace carbon
