// Test fixture: a tiny random checkpoint written once per test process into a unique temporary
// directory (removed at exit).
#pragma once

#include <filesystem>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>
#include <unistd.h>

#include "carbon/model.h"
#include "carbon/test_support/test_model.h"
#include "carbon/tokenizer/tokenizer.h"

namespace testing_support {

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& tag) {
        path = std::filesystem::temp_directory_path() /
               ("carbon-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// A tiny model with the given options (preset tiny unless set), created on first use.
inline const std::filesystem::path& tiny_model(carbon::TestModelOptions options = {}, const std::string& tag = "tiny") {
    static TempDir dir("model");
    static std::map<std::string, std::filesystem::path> made;
    auto it = made.find(tag);
    if (it != made.end()) return it->second;
    std::filesystem::path p = dir.path / tag;
    carbon::make_test_model(p, options);
    return made.emplace(tag, p).first->second;
}

// The default tiny model loaded once on the CPU backend with 2 threads (the generation tests').
inline carbon::Model& tiny_cpu_model() {
    static std::unique_ptr<carbon::Model> m = [] {
        carbon::ModelOptions mo;
        mo.backend = carbon::BackendKind::Cpu;
        mo.threads = 2;
        return carbon::Model::load(tiny_model(), mo);
    }();
    return *m;
}

// Values stored as a weight tensor of dtype t would hold them (bf16/f16 rounded to nearest even).
inline std::vector<uint8_t> encode(const std::vector<float>& v, carbon::DType t) {
    std::vector<uint8_t> b(v.size() * carbon::dtype_size(t));
    for (size_t i = 0; i < v.size(); ++i) {
        if (t == carbon::DType::F32) {
            std::memcpy(b.data() + 4 * i, &v[i], 4);
        } else {
            const uint16_t h = t == carbon::DType::BF16 ? carbon::f32_to_bf16(v[i]) : carbon::f32_to_f16(v[i]);
            std::memcpy(b.data() + 2 * i, &h, 2);
        }
    }
    return b;
}

// <dna> followed by n random 6-mers (the same for the same seed).
inline std::vector<int32_t> random_dna_prompt(const carbon::Tokenizer& tok, size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> ids{tok.dna_open_id()};
    for (size_t i = 0; i < n; ++i) ids.push_back(tok.kmer_id(int(rng() % 4096)));
    return ids;
}

}  // namespace testing_support
