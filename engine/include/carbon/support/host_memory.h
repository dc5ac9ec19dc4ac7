// How much memory this process can still use, for memory plans made before work starts (a
// request that cannot fit is refused with both numbers instead of ending in std::bad_alloc or
// the kernel's OOM killer).
#pragma once

#include <cstddef>
#include <string>

namespace carbon {

// The smaller of the machine's available memory (MemAvailable in /proc/meminfo) and what the
// process's address-space limit (ulimit -v) leaves; SIZE_MAX when neither can be read.
size_t available_host_memory();

// This process's resident memory (VmRSS in /proc/self/status), bytes; 0 when it cannot be read.
size_t resident_host_memory();

// Hands the heap's free pages back to the system (glibc's malloc_trim), after a large request's
// buffers were freed: without it the process keeps them resident for reuse.
void return_free_heap();

// "12.30 GiB", "512.00 MiB", "900 B": sizes in messages and reports.
std::string human_bytes(double bytes);

}  // namespace carbon
