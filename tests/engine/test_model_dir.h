// Test fixture: a tiny random checkpoint written once per test process into a unique temporary
// directory (removed at exit).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>

#include "carbon/test_model.h"

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

}  // namespace testing_support
