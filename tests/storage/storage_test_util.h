// Helpers shared by the storage tests: a fresh temporary project path, a file's bytes (to prove
// nothing was written), and deterministic designs with tracks whose content follows from their
// number (so a reader can verify them).
#pragma once

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "carbon/storage/project.h"

namespace storage_test {

inline std::string temp_path(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("carbon-storage-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto p = dir / name;
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + ext);
    return p.string();
}

// An empty folder of that name under the test's temporary folder (emptied when it was there).
inline std::filesystem::path fresh_dir(const std::string& name) {
    const std::filesystem::path d = temp_path(name);
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

// The whole content of a file ("" when missing): compared before and after to prove that
// nothing was written.
inline std::string file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

inline std::string design_bases(int64_t n, size_t len) {
    std::string s(len, 'A');
    uint64_t x = uint64_t(n) * 0x9E3779B97F4A7C15ull + 1;
    for (char& c : s) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = "ACGT"[x & 3];
    }
    return s;
}

inline std::vector<carbon::storage::Track> design_tracks(int64_t n, size_t len) {
    carbon::storage::Track logp, dist;
    logp.kind = "logp";
    dist.kind = "dist_acgt";
    dist.width = 4;
    dist.dtype = carbon::storage::TrackDType::F16;
    for (size_t i = 0; i < len; ++i) {
        logp.values.push_back(-float((n + int64_t(i)) % 97) / 16.0f);
        for (int k = 0; k < 4; ++k) dist.values.push_back(float((n + int64_t(i) + k) % 4 + 1) / 10.0f);
    }
    return {logp, dist};
}

// Empty when design `d` (the n-th written) and its tracks are exactly as written.
inline std::string verify_design(carbon::storage::Project& p, const carbon::storage::DesignRecord& d, int64_t n, size_t len) {
    if (d.bases != design_bases(n, len)) return "bases differ";
    auto tracks = p.tracks_of_design(d.id);
    const auto want = design_tracks(n, len);
    if (tracks.size() != want.size()) return "has " + std::to_string(tracks.size()) + " tracks";
    for (size_t t = 0; t < want.size(); ++t) {
        if (tracks[t].kind != want[t].kind || tracks[t].values.size() != want[t].values.size()) return "track shape differs";
        for (size_t i = 0; i < want[t].values.size(); ++i)
            if (std::fabs(tracks[t].values[i] - want[t].values[i]) > 1e-3f) return "track values differ";
    }
    if (p.regions_of_design(d.id).size() != 1) return "regions missing";
    return "";
}

}  // namespace storage_test
