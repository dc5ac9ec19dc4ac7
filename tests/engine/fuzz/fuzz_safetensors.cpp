// Fuzz target for safetensors files and their index. The first byte picks the case: even, the
// rest is one model.safetensors (header and payload); odd, the rest is a
// model.safetensors.index.json beside two valid shards. Opening must succeed or raise
// carbon::Error; every tensor of an archive that opens must lie inside its mapping (read here
// byte by byte, so AddressSanitizer sees any view that points outside).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "carbon/loader/safetensors.h"
#include "carbon/support/common.h"
#include "fuzz_files.h"
#include "fuzz_target.h"

namespace {

namespace fs = std::filesystem;

const fs::path& scratch() { return carbon::fuzz::scratch_dir("safetensors"); }
using carbon::fuzz::slurp;

std::vector<carbon::TensorToWrite> tensors() {
    auto t = [](std::string name, carbon::DType dt, std::vector<int64_t> shape) {
        size_t n = carbon::dtype_size(dt);
        for (int64_t d : shape) n *= size_t(d);
        std::vector<uint8_t> bytes(n);
        for (size_t i = 0; i < n; ++i) bytes[i] = uint8_t(i * 31 + 7);
        return carbon::TensorToWrite{std::move(name), dt, std::move(shape), std::move(bytes)};
    };
    return {t("model.embed_tokens.weight", carbon::DType::BF16, {5, 4}), t("model.norm.weight", carbon::DType::F32, {4}),
            t("model.layers.0.mlp.up_proj.weight", carbon::DType::F16, {3, 4})};
}

// The shards every index case points into (written once).
const fs::path& shard_dir() {
    static const fs::path dir = [] {
        fs::path d = scratch() / "shards";
        fs::create_directories(d);
        carbon::write_sharded_safetensors(d, tensors(), 64);
        return d;
    }();
    return dir;
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    const fs::path one = scratch() / "seed.safetensors";
    carbon::write_safetensors(one, tensors());
    const std::string file = slurp(one);
    fs::remove(one);
    return {std::string(1, '\0') + file, std::string(1, '\1') + slurp(shard_dir() / "model.safetensors.index.json")};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const bool index = data[0] & 1;
    const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    const fs::path d = index ? shard_dir() : scratch() / "single";
    fs::create_directories(d);
    const fs::path file = d / (index ? "model.safetensors.index.json" : "model.safetensors");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << body;
    try {
        const carbon::TensorArchive a = index ? carbon::open_safetensors_dir(d) : carbon::open_safetensors_file(file);
        unsigned sum = 0;
        for (const auto& [name, view] : a.tensors())
            for (size_t i = 0; i < view.nbytes; ++i) sum += static_cast<const uint8_t*>(view.data)[i];
        if (sum == 0xdeadbeef) std::puts("");  // keeps the reads
    } catch (const carbon::Error&) {
    }
    return 0;
}
