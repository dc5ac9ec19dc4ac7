// For fuzz targets whose parser reads files rather than memory: a scratch folder of this process
// (one per target name, made on first use) and a whole file read back as bytes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace carbon::fuzz {

inline const std::filesystem::path& scratch_dir(const char* target) {
    static const std::filesystem::path dir = [target] {
        auto d = std::filesystem::temp_directory_path() /
                 ("carbon-fuzz-" + std::string(target) + "-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace carbon::fuzz
