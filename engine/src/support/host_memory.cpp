// available_host_memory: /proc/meminfo and RLIMIT_AS; resident memory; the heap given back (see host_memory.h).
#include "carbon/support/host_memory.h"

#include <sys/resource.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace carbon {

namespace {

// A "Key:   N kB" line of a /proc file, in bytes; 0 when absent.
size_t proc_kb(const char* file, const char* key) {
    std::ifstream f(file);
    std::string k;
    size_t kb = 0;
    while (f >> k) {
        if (k == key) {
            f >> kb;
            return kb * 1024;
        }
        f.ignore(1 << 20, '\n');
    }
    return 0;
}

}  // namespace

size_t available_host_memory() {
    size_t avail = SIZE_MAX;
    if (const size_t m = proc_kb("/proc/meminfo", "MemAvailable:")) avail = m;
    rlimit lim{};
    if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        const size_t used = proc_kb("/proc/self/status", "VmSize:");
        avail = std::min(avail, size_t(lim.rlim_cur) > used ? size_t(lim.rlim_cur) - used : size_t(0));
    }
    return avail;
}

size_t resident_host_memory() { return proc_kb("/proc/self/status", "VmRSS:"); }

void return_free_heap() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

std::string human_bytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.2f %s" : "%.0f %s", b, units[u]);
    return buf;
}

}  // namespace carbon
