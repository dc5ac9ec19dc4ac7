// A bounded random-mutation fuzz driver for machines and CI runs without libFuzzer, shared by
// every fuzz target: seeds from the target (carbon_fuzz_seeds) and corpus folders (--corpus,
// repeatable; --suffix keeps only files whose names end so), mutates (flip, insert, delete,
// splice, special bytes of the formats fuzzed here, numbers set to boundary values), runs for
// --seconds and prints the seeds and the number of inputs run. Exit 0 when the time is up; a
// crash or sanitizer report ends the process with its own status. A crash by signal (a trap of
// the target's checks, an abort, a fault) first writes the input that caused it to
// NAME-crash-SEED.bin in $CARBON_FUZZ_CRASH_DIR (default: the working folder) and says so, so
// that a failure in CI can be replayed (the target's LLVMFuzzerTestOneInput on that file); the
// signal then goes on to the handler that was there before (a sanitizer's report, or the default).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

// The next number from `at` on becomes a boundary value (positions, lengths, sizes, ids).
void replace_number(std::string& s, size_t at, std::mt19937_64& rng) {
    static const uint64_t kNumbers[] = {0, 1, 2, 3, 7, 8, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 99, 100, 101, 255, 256,
                                        1000, 4096, 65535, 65536, 2147483647ull, 4294967296ull, 999999999999999ull};
    const size_t d = s.find_first_of("0123456789", at);
    if (d == std::string::npos) return;
    const size_t e = std::min(s.find_first_not_of("0123456789", d), s.size());
    const uint64_t v = rng() % 4 ? kNumbers[rng() % (sizeof kNumbers / sizeof kNumbers[0])] : rng() % 1000;
    s.replace(d, e - d, std::to_string(v));
}

// The input being run, for the crash handler (set before each call; read only in the handler).
const char* g_input = nullptr;
size_t g_input_size = 0;
char g_crash_path[4096];
struct sigaction g_previous[32];  // what handled each signal before (a sanitizer's handler, or the default)

void on_crash(int sig) {
    // Only async-signal-safe calls: open, write, close.
    const int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t done = 0;
        while (done < g_input_size) {
            const ssize_t n = ::write(fd, g_input + done, g_input_size - done);
            if (n <= 0) break;
            done += size_t(n);
        }
        ::close(fd);
        const char msg[] = "\nfuzz driver: the input that crashed is in ";
        (void)!::write(2, msg, sizeof msg - 1);
        (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
        (void)!::write(2, "\n", 1);
    }
    // Handing the signal back: a fault or trap happens again at the same instruction and reaches
    // the handler that was there before (a sanitizer's report, or the default); abort() raises again.
    ::sigaction(sig, &g_previous[sig], nullptr);
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 30;
    std::vector<std::string> corpora;
    std::string suffix, replay;
    uint64_t seed = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--seconds") seconds = std::atof(argv[i + 1]);
        else if (a == "--corpus") corpora.push_back(argv[i + 1]);
        else if (a == "--suffix") suffix = argv[i + 1];
        else if (a == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--replay") replay = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: %s [--seconds S] [--corpus DIR]... [--suffix .EXT] [--seed N] | --replay FILE\n",
                         argv[0]);
            return 2;
        }
    }
    const std::string name = std::filesystem::path(argv[0]).filename().string();
    if (!replay.empty()) {  // one saved input (a crash file) through the target, nothing else
        std::ifstream f(replay, std::ios::binary);
        if (!f) {
            std::fprintf(stderr, "%s: cannot read %s\n", name.c_str(), replay.c_str());
            return 2;
        }
        const std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
        std::printf("%s: %s (%zu bytes) ran, no crash\n", name.c_str(), replay.c_str(), s.size());
        return 0;
    }
    std::vector<std::string> pool = carbon_fuzz_seeds();
    pool.push_back("");
    size_t corpus_bytes = 0;
    for (const std::string& corpus : corpora) {
        if (!std::filesystem::is_directory(corpus)) {
            std::fprintf(stderr, "%s: --corpus %s is not a folder\n", name.c_str(), corpus.c_str());
            return 2;
        }
        for (const auto& e : std::filesystem::directory_iterator(corpus)) {
            const std::string file = e.path().filename().string();
            if (!suffix.empty() && !file.ends_with(suffix)) continue;
            std::ifstream f(e.path(), std::ios::binary);
            std::stringstream ss;
            ss << f.rdbuf();
            if (ss.str().size() < (1 << 18)) {
                pool.push_back(ss.str());
                corpus_bytes += ss.str().size();
            }
        }
    }
    const char* crash_dir = std::getenv("CARBON_FUZZ_CRASH_DIR");
    const std::string crash_path = (std::filesystem::path(crash_dir && *crash_dir ? crash_dir : ".") /
                                    (name + "-crash-" + std::to_string(seed) + ".bin")).string();
    std::snprintf(g_crash_path, sizeof g_crash_path, "%s", crash_path.c_str());
    for (int sig : {SIGILL, SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) {
        struct sigaction sa {};
        sa.sa_handler = on_crash;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, &g_previous[sig]);
    }
    std::printf("%s: seed %llu, %zu seeds (%zu bytes from the corpus), %.0f s\n", name.c_str(), static_cast<unsigned long long>(seed),
                pool.size(), corpus_bytes, seconds);
    std::fflush(stdout);
    std::mt19937_64 rng(seed);
    // Bytes that matter to one parser or another: FASTA/VCF syntax, JSON syntax, digits and signs
    // of numbers, NUL, 0xff, the gzip magic.
    static const char kSpecial[] = ">\n\r\t ACGTNacgtn-*;0\x00\xff\x1f\x8b#,.9{}[]\":e+";
    const auto t0 = std::chrono::steady_clock::now();
    size_t runs = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
        std::string s = pool[rng() % pool.size()];
        const int edits = 1 + int(rng() % 8);
        for (int k = 0; k < edits; ++k) {
            const size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
            switch (rng() % 6) {
                case 0: if (!s.empty() && at < s.size()) s[at] = char(rng()); break;
                case 1: s.insert(at, 1, kSpecial[rng() % (sizeof kSpecial - 1)]); break;
                case 2: if (at < s.size()) s.erase(at, 1 + rng() % 8); break;
                case 3: { const std::string& o = pool[rng() % pool.size()]; if (!o.empty()) s.insert(at, o.substr(rng() % o.size(), 1 + rng() % 64)); break; }
                case 4: s.insert(at, std::string(1 + rng() % 300, kSpecial[rng() % (sizeof kSpecial - 1)])); break;
                default: replace_number(s, at, rng); break;
            }
        }
        g_input = s.data();
        g_input_size = s.size();
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
        if (s.size() < (1 << 18) && rng() % 16 == 0) pool.push_back(s);
        ++runs;
    }
    std::printf("%s: %zu inputs, no crash\n", name.c_str(), runs);
    return 0;
}
