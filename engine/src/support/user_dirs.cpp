#include "carbon/support/user_dirs.h"

#include <cstdlib>

namespace carbon {

std::filesystem::path user_cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return x;
    if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache";
    return {};
}

}  // namespace carbon
