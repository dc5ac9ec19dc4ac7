// GGUF reading (gguf.h): the header, metadata and tensor infos parsed through one bounds-checked
// cursor, then every tensor checked against the data section.
#include "carbon/loader/gguf.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

namespace carbon {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr size_t kMaxDims = 4;           // GGML_MAX_DIMS
constexpr size_t kMaxNesting = 4;        // arrays of arrays, at most this deep
constexpr uint64_t kMaxName = 1 << 16;   // a key or tensor name longer than this is certainly corrupt
// Array elements in one file at most (a 256k-token vocabulary and its merges fit many times): each
// is held as a GgufValue, so a file of many one-byte elements must not become gigabytes.
constexpr uint64_t kMaxArrayItems = uint64_t(1) << 23;

// The GGUF block sizes (ggml.c's type traits) of the types a Carbon file may hold and of the
// common quantisations, so that a file using them is measured correctly and refused by name.
constexpr GgmlTypeInfo kTypes[] = {
    {0, "F32", 1, 4},      {1, "F16", 1, 2},       {2, "Q4_0", 32, 18},   {3, "Q4_1", 32, 20},  {6, "Q5_0", 32, 22},
    {7, "Q5_1", 32, 24},   {8, "Q8_0", 32, 34},    {9, "Q8_1", 32, 36},   {10, "Q2_K", 256, 84}, {11, "Q3_K", 256, 110},
    {12, "Q4_K", 256, 144}, {13, "Q5_K", 256, 176}, {14, "Q6_K", 256, 210}, {15, "Q8_K", 256, 292}, {24, "I8", 1, 1},
    {25, "I16", 1, 2},     {26, "I32", 1, 4},      {27, "I64", 1, 8},     {28, "F64", 1, 8},    {30, "BF16", 1, 2},
};

size_t scalar_size(GgufType t) {
    switch (t) {
        case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
        case GgufType::U16: case GgufType::I16: return 2;
        case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
        case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
        case GgufType::String: return 8;  // at least its length
        case GgufType::Array: return 12;  // at least its element type and count
    }
    return 0;
}

class Cursor {
public:
    Cursor(const uint8_t* data, size_t size, std::string file) : p_(data), size_(size), file_(std::move(file)) {}
    size_t at() const { return at_; }
    size_t left() const { return size_ - at_; }
    [[noreturn]] void fail(const std::string& what, size_t where) const {
        throw Error(file_ + ": byte " + std::to_string(where) + ": " + what);
    }
    [[noreturn]] void fail(const std::string& what) const { fail(what, at_); }
    const uint8_t* take(size_t n, const char* what) {
        if (n > left())
            fail(std::string(what) + " needs " + std::to_string(n) + " bytes where the file has " + std::to_string(left()) + " left");
        const uint8_t* q = p_ + at_;
        at_ += n;
        return q;
    }
    template <typename T>
    T read(const char* what) {
        T v;
        std::memcpy(&v, take(sizeof v, what), sizeof v);
        return v;
    }
    std::string string(const char* what, uint64_t max_len) {
        const size_t start = at_;
        const uint64_t n = read<uint64_t>(what);
        if (n > max_len) fail(std::string(what) + " says it is " + std::to_string(n) + " bytes long (at most " + std::to_string(max_len) + ")", start);
        if (n > left()) fail(std::string(what) + " says it is " + std::to_string(n) + " bytes long where the file has " + std::to_string(left()) + " left", start);
        const uint8_t* q = take(size_t(n), what);
        return std::string(reinterpret_cast<const char*>(q), size_t(n));
    }

private:
    const uint8_t* p_;
    size_t size_, at_ = 0;
    std::string file_;
};

bool valid_type(uint32_t t) { return t <= uint32_t(GgufType::F64); }

GgufValue read_value(Cursor& c, GgufType type, const std::string& key, size_t depth, uint64_t& items_left) {
    GgufValue v;
    v.type = type;
    switch (type) {
        case GgufType::U8: v.u = c.read<uint8_t>("a value"); break;
        case GgufType::I8: v.i = c.read<int8_t>("a value"); break;
        case GgufType::U16: v.u = c.read<uint16_t>("a value"); break;
        case GgufType::I16: v.i = c.read<int16_t>("a value"); break;
        case GgufType::U32: v.u = c.read<uint32_t>("a value"); break;
        case GgufType::I32: v.i = c.read<int32_t>("a value"); break;
        case GgufType::U64: v.u = c.read<uint64_t>("a value"); break;
        case GgufType::I64: v.i = c.read<int64_t>("a value"); break;
        case GgufType::F32: v.f = c.read<float>("a value"); break;
        case GgufType::F64: v.f = c.read<double>("a value"); break;
        case GgufType::Bool: {
            const size_t at = c.at();
            const uint8_t b = c.read<uint8_t>("a value");
            if (b > 1) c.fail("'" + key + "': a bool holds " + std::to_string(b) + " (0 or 1)", at);
            v.u = b;
            break;
        }
        case GgufType::String: v.s = c.string("a string", c.left()); break;
        case GgufType::Array: {
            if (depth >= kMaxNesting) c.fail("'" + key + "': arrays nested deeper than " + std::to_string(kMaxNesting));
            const size_t at = c.at();
            const uint32_t et = c.read<uint32_t>("an array's element type");
            if (!valid_type(et)) c.fail("'" + key + "': an array of unknown type " + std::to_string(et), at);
            v.element = GgufType(et);
            const uint64_t n = c.read<uint64_t>("an array's count");
            // Every element takes at least scalar_size bytes: a count the rest of the file cannot
            // hold is refused before anything is allocated (the overflow class of CVE-2024-25664..6).
            if (n > c.left() / scalar_size(v.element))
                c.fail("'" + key + "': an array of " + std::to_string(n) + " " + gguf_type_name(v.element) + " values where the file has " +
                           std::to_string(c.left()) + " bytes left",
                       at);
            if (n > items_left)
                c.fail("'" + key + "': an array of " + std::to_string(n) + " values, past the " + std::to_string(kMaxArrayItems) +
                           " array values this reader takes in one file",
                       at);
            items_left -= n;
            v.items.reserve(size_t(n));
            for (uint64_t k = 0; k < n; ++k) v.items.push_back(read_value(c, v.element, key, depth + 1, items_left));
            break;
        }
    }
    return v;
}

std::string dims_text(const std::vector<uint64_t>& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

}  // namespace

const char* gguf_type_name(GgufType t) {
    switch (t) {
        case GgufType::U8: return "uint8";
        case GgufType::I8: return "int8";
        case GgufType::U16: return "uint16";
        case GgufType::I16: return "int16";
        case GgufType::U32: return "uint32";
        case GgufType::I32: return "int32";
        case GgufType::F32: return "float32";
        case GgufType::Bool: return "bool";
        case GgufType::String: return "string";
        case GgufType::Array: return "array";
        case GgufType::U64: return "uint64";
        case GgufType::I64: return "int64";
        case GgufType::F64: return "float64";
    }
    return "?";
}

bool GgufValue::is_integer() const {
    switch (type) {
        case GgufType::U8: case GgufType::I8: case GgufType::U16: case GgufType::I16: case GgufType::U32:
        case GgufType::I32: case GgufType::U64: case GgufType::I64: return true;
        default: return false;
    }
}

int64_t GgufValue::as_int(const std::string& key) const {
    if (!is_integer()) throw Error("GGUF key '" + key + "' is a " + gguf_type_name(type) + ", not an integer");
    const bool is_unsigned = type == GgufType::U8 || type == GgufType::U16 || type == GgufType::U32 || type == GgufType::U64;
    if (is_unsigned && u > uint64_t(std::numeric_limits<int64_t>::max()))
        throw Error("GGUF key '" + key + "' holds " + std::to_string(u) + ", too large");
    return is_unsigned ? int64_t(u) : i;
}

double GgufValue::as_float(const std::string& key) const {
    if (type == GgufType::F32 || type == GgufType::F64) return f;
    return double(as_int(key));
}

const std::string& GgufValue::as_string(const std::string& key) const {
    if (type != GgufType::String) throw Error("GGUF key '" + key + "' is a " + gguf_type_name(type) + ", not a string");
    return s;
}

const GgmlTypeInfo* ggml_type_info(uint32_t id) {
    for (const GgmlTypeInfo& t : kTypes)
        if (t.id == id) return &t;
    return nullptr;
}

uint64_t GgufTensor::numel() const {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;  // bounded when the file was read
    return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
    const auto it = metadata_.find(key);
    return it == metadata_.end() ? nullptr : &it->second;
}

const GgufTensor* GgufFile::tensor(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

GgufFile GgufFile::open(const std::filesystem::path& path) {
    GgufFile g;
    g.map_ = std::make_shared<const MappedFile>(MappedFile::open(path, "a GGUF file"));
    const std::string file = path.string();
    Cursor c(g.map_->data(), g.map_->size(), file);
    if (c.read<uint32_t>("the magic number") != kMagic) c.fail("it does not start with GGUF (not a GGUF file)", 0);
    g.version_ = c.read<uint32_t>("the version");
    if (g.version_ != 2 && g.version_ != 3)
        c.fail("GGUF version " + std::to_string(g.version_) + " (this reader takes versions 2 and 3)", 4);
    const size_t counts_at = c.at();
    const uint64_t n_tensors = c.read<uint64_t>("the tensor count");
    const uint64_t n_kv = c.read<uint64_t>("the metadata count");
    // A key-value pair takes at least 13 bytes, a tensor's info at least 28.
    if (n_kv > c.left() / 13) c.fail(std::to_string(n_kv) + " metadata entries where the file has " + std::to_string(c.left()) + " bytes left", counts_at + 8);
    if (n_tensors > c.left() / 28) c.fail(std::to_string(n_tensors) + " tensors where the file has " + std::to_string(c.left()) + " bytes left", counts_at);

    uint64_t items_left = kMaxArrayItems;
    for (uint64_t k = 0; k < n_kv; ++k) {
        const size_t at = c.at();
        std::string key = c.string("a metadata key", kMaxName);
        const size_t type_at = c.at();
        const uint32_t type = c.read<uint32_t>("a metadata type");
        if (!valid_type(type)) c.fail("'" + key + "' has unknown value type " + std::to_string(type), type_at);
        GgufValue v = read_value(c, GgufType(type), key, 0, items_left);
        if (!g.metadata_.emplace(key, std::move(v)).second) c.fail("metadata key '" + key + "' appears twice", at);
    }
    if (const GgufValue* a = g.find("general.alignment")) {
        if (a->type != GgufType::U32) c.fail("general.alignment is a " + std::string(gguf_type_name(a->type)) + " (a uint32)");
        if (a->u == 0 || (a->u & (a->u - 1)) != 0) c.fail("general.alignment is " + std::to_string(a->u) + " (a power of two)");
        g.alignment_ = uint32_t(a->u);
    }

    g.tensors_.reserve(size_t(n_tensors));
    for (uint64_t k = 0; k < n_tensors; ++k) {
        const size_t at = c.at();
        GgufTensor t;
        t.name = c.string("a tensor name", kMaxName);
        const uint32_t n_dims = c.read<uint32_t>("a tensor's dimension count");
        if (n_dims == 0 || n_dims > kMaxDims)
            c.fail("tensor '" + t.name + "' has " + std::to_string(n_dims) + " dimensions (1 to " + std::to_string(kMaxDims) + ")", at);
        uint64_t numel = 1;
        for (uint32_t d = 0; d < n_dims; ++d) {
            const uint64_t n = c.read<uint64_t>("a tensor dimension");
            if (n == 0 || n > uint64_t(std::numeric_limits<int64_t>::max()) / numel)
                c.fail("tensor '" + t.name + "': dimension " + std::to_string(d) + " is " + std::to_string(n) +
                           (n ? " (the element count overflows)" : " (at least 1)"),
                       at);
            numel *= n;
            t.dims.push_back(n);
        }
        t.type = c.read<uint32_t>("a tensor type");
        const GgmlTypeInfo* info = ggml_type_info(t.type);
        if (!info) c.fail("tensor '" + t.name + "' has ggml type " + std::to_string(t.type) + ", which this reader does not know", at);
        if (t.dims[0] % info->block)
            c.fail("tensor '" + t.name + "' " + dims_text(t.dims) + " is " + info->name + ", whose rows are whole blocks of " +
                       std::to_string(info->block) + " values",
                   at);
        // A row's bytes, then all rows': neither product may wrap (an F32 row of 2^62 values would).
        const uint64_t row_blocks = t.dims[0] / info->block;
        if (row_blocks > std::numeric_limits<uint64_t>::max() / info->bytes) c.fail("tensor '" + t.name + "' is too large", at);
        const uint64_t row_bytes = row_blocks * info->bytes;
        const uint64_t rows = numel / t.dims[0];
        if (row_bytes && rows > std::numeric_limits<uint64_t>::max() / row_bytes) c.fail("tensor '" + t.name + "' is too large", at);
        t.nbytes = rows * row_bytes;
        t.offset = c.read<uint64_t>("a tensor offset");
        if (t.offset % g.alignment_)
            c.fail("tensor '" + t.name + "' starts at data offset " + std::to_string(t.offset) + ", not a multiple of the alignment " +
                       std::to_string(g.alignment_),
                   at);
        if (!g.by_name_.emplace(t.name, g.tensors_.size()).second) c.fail("tensor '" + t.name + "' appears twice", at);
        g.tensors_.push_back(std::move(t));
    }

    // The data section begins at the next multiple of the alignment.
    const uint64_t header_end = c.at();
    const uint64_t data = (header_end + g.alignment_ - 1) / g.alignment_ * g.alignment_;
    const uint64_t size = g.map_->size();
    if (!g.tensors_.empty() && data > size)
        c.fail("the data section would begin at byte " + std::to_string(data) + ", past the end of the file (" + std::to_string(size) + " bytes)");
    g.data_offset_ = data;
    const uint64_t available = data <= size ? size - data : 0;
    std::vector<const GgufTensor*> by_offset;
    for (GgufTensor& t : g.tensors_) {
        if (t.offset > available || t.nbytes > available - t.offset)
            throw Error(file + ": tensor '" + t.name + "' " + dims_text(t.dims) + " (" + ggml_type_info(t.type)->name + ", " +
                        std::to_string(t.nbytes) + " bytes at data offset " + std::to_string(t.offset) + ") runs past the end of the file (" +
                        std::to_string(available) + " bytes of data)");
        t.data = g.map_->data() + data + t.offset;
        by_offset.push_back(&t);
    }
    std::stable_sort(by_offset.begin(), by_offset.end(), [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->nbytes)
            throw Error(file + ": tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name + "' overlap in the data section");
    return g;
}

}  // namespace carbon
