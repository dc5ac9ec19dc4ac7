// The index cache's folders (index_cache.h).
#include "index_cache.h"

#include <unistd.h>

#include <cstdio>

#include "carbon/support/user_dirs.h"

namespace carbon::storage {

namespace fs = std::filesystem;

namespace {

uint64_t fnv1a(const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

}  // namespace

bool index_is_current(const fs::path& index, const fs::path& data) {
    std::error_code ec;
    if (!fs::is_regular_file(index, ec)) return false;
    const auto ti = fs::last_write_time(index, ec);
    if (ec) return false;
    return ti >= fs::last_write_time(data, ec) && !ec;
}

std::string default_index_cache(const char* kind) {
    fs::path base = user_cache_dir();
    if (base.empty()) base = fs::temp_directory_path();
    return (base / "carbon-studio" / kind).string();
}

fs::path index_folder(const std::string& index_dir, const std::string& data) {
    std::error_code ec;
    const auto canonical = fs::weakly_canonical(data, ec).string();
    const auto size = fs::file_size(data, ec);
    const auto time = fs::last_write_time(data, ec).time_since_epoch().count();
    char key[17];
    std::snprintf(key, sizeof key, "%016llx",
                  static_cast<unsigned long long>(fnv1a(canonical + "|" + std::to_string(ec ? 0 : size) + "|" + std::to_string(time))));
    return fs::path(index_dir) / key;
}

std::string partial_name(const fs::path& index) { return index.string() + ".partial." + std::to_string(::getpid()); }

}  // namespace carbon::storage
