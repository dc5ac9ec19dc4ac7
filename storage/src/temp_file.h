// Files that a library writes by name (libBigWig, libxlsxwriter) before their bytes go through an
// OutputFile's stream to the user's path: made in the system's temporary folder, removed when done.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include "carbon/support/common.h"

namespace carbon::storage {

// A path in the temporary folder, unique in this process, removed (with what is there) on destruction.
struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& stem, const std::string& extension = ".tmp") {
        static std::atomic<unsigned> serial{0};
        path = std::filesystem::temp_directory_path() /
               ("carbon-" + stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + extension);
    }
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    // Its bytes into out; Error naming `name` (the user's output) when they cannot be read or written.
    void copy_into(std::ostream& out, const std::string& name) const {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error(name + ": cannot read back the temporary file " + path.string());
        out << in.rdbuf();
        if (!out) throw Error("cannot write " + name + " (disk full?)");
    }
};

}  // namespace carbon::storage
