// The host device seam's memory: "device" and "pinned" allocations in host memory, and the lookup that
// turns a host pointer, a range past an allocation or a freed pointer into an error. Test infrastructure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace carbon::gpu::host_seam {

enum class MemoryKind { Device, Pinned };

// Every pointer the host seam is handed is looked up here. Fresh and freed memory is junk (0xFF bytes:
// NaN as float/bf16/half), so a read of unwritten data shows in the results.
class AllocationTable {
public:
    // `device_capacity`: what the emulated GPU has; allocations beyond it fail as cudaMalloc would.
    explicit AllocationTable(std::size_t device_capacity) : capacity_(device_capacity) {}
    ~AllocationTable();
    AllocationTable(const AllocationTable&) = delete;
    AllocationTable& operator=(const AllocationTable&) = delete;

    // 256-byte aligned, exactly `bytes` long (AddressSanitizer sees overruns), junk-filled; `bytes` > 0.
    // Throws gpu::Error (cudaErrorMemoryAllocation) past the device capacity.
    void* allocate(std::size_t bytes, MemoryKind kind, const char* call);
    // Throws gpu::Error (cudaErrorInvalidValue) unless `p` is the start of a live allocation of `kind`.
    // Freed memory is junk-filled and kept out of reuse for a while (quarantine), so a later use of
    // the pointer is recognised as a use after free.
    void release(void* p, MemoryKind kind, const char* call);

    // Throws gpu::Error(call, status, ...) unless [p, p + bytes) lies inside one live allocation of
    // `kind`. `role` names the argument in the message ("dst", "argument 2 of kernel 'k'"). With
    // bytes == 0, p may also be one past the end (an empty view at the end of a buffer).
    void require(const void* p, std::size_t bytes, MemoryKind kind, const char* call, const std::string& role,
                 const char* status = "cudaErrorInvalidValue") const;
    // The host side of a copy: must not be (freed) device memory; if it touches a pinned allocation it
    // must lie inside it; with `pinned` it must be pinned (copies captured into a graph).
    void require_host(const void* p, std::size_t bytes, bool pinned, const char* call, const std::string& role) const;
    bool is_pinned(const void* p, std::size_t bytes) const;

    std::size_t device_bytes_in_use() const { return device_in_use_; }
    std::size_t capacity() const { return capacity_; }

private:
    struct Allocation {
        std::uintptr_t base = 0;
        std::size_t bytes = 0;
        MemoryKind kind = MemoryKind::Device;
    };
    // The live allocation containing p (or ending at p when `allow_end`), else nullptr.
    const Allocation* live_at(std::uintptr_t p, bool allow_end) const;
    const Allocation* freed_at(std::uintptr_t p) const;
    std::string what_is(const void* p) const;  // "device memory freed by free()", "not memory of this device", ...

    std::size_t capacity_;
    std::size_t device_in_use_ = 0;
    std::map<std::uintptr_t, Allocation> live_;  // by base address
    std::deque<Allocation> quarantine_;          // freed, oldest first, memory still held
    std::size_t quarantine_bytes_ = 0;
};

}  // namespace carbon::gpu::host_seam
