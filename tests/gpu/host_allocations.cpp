// The host device seam's allocation table (host_allocations.h): allocations by address, pointer
// checks with messages that say what the pointer really is, and a quarantine for freed memory.
#include "host_allocations.h"

#include <cstdio>
#include <cstring>
#include <new>

#include "gpu/device.h"

namespace carbon::gpu::host_seam {
namespace {

constexpr std::align_val_t kAlign{256};
constexpr unsigned char kJunk = 0xFF;
// Freed memory stays unreusable until this many bytes have been freed after it.
constexpr std::size_t kQuarantineBytes = std::size_t{256} << 20;

std::string address(const void* p) {
    char s[32];
    std::snprintf(s, sizeof s, "%p", p);
    return s;
}

std::string address(std::uintptr_t p) {
    return address(reinterpret_cast<const void*>(p));
}

const char* kind_name(MemoryKind kind) {
    return kind == MemoryKind::Device ? "device" : "pinned host";
}

}  // namespace

AllocationTable::~AllocationTable() {
    for (const auto& [base, a] : live_) ::operator delete(reinterpret_cast<void*>(base), kAlign);
    for (const auto& a : quarantine_) ::operator delete(reinterpret_cast<void*>(a.base), kAlign);
}

void* AllocationTable::allocate(std::size_t bytes, MemoryKind kind, const char* call) {
    if (kind == MemoryKind::Device && bytes > capacity_ - device_in_use_)
        throw Error(call, "cudaErrorMemoryAllocation",
                    std::to_string(bytes) + " bytes asked, " + std::to_string(capacity_ - device_in_use_) + " of " +
                        std::to_string(capacity_) + " free on the host seam's emulated device",
                    __FILE__, __LINE__);
    void* p = ::operator new(bytes, kAlign);
    std::memset(p, kJunk, bytes);
    const auto base = reinterpret_cast<std::uintptr_t>(p);
    live_[base] = Allocation{base, bytes, kind};
    if (kind == MemoryKind::Device) device_in_use_ += bytes;
    return p;
}

void AllocationTable::release(void* p, MemoryKind kind, const char* call) {
    const auto base = reinterpret_cast<std::uintptr_t>(p);
    const auto it = live_.find(base);
    if (it == live_.end() || it->second.kind != kind)
        throw Error(call, "cudaErrorInvalidValue",
                    address(p) + " is not the start of a live " + kind_name(kind) + " allocation: it is " + what_is(p),
                    __FILE__, __LINE__);
    const Allocation a = it->second;
    live_.erase(it);
    if (kind == MemoryKind::Device) device_in_use_ -= a.bytes;
    std::memset(p, kJunk, a.bytes);
    quarantine_.push_back(a);
    quarantine_bytes_ += a.bytes;
    while (quarantine_bytes_ > kQuarantineBytes && quarantine_.size() > 1) {
        ::operator delete(reinterpret_cast<void*>(quarantine_.front().base), kAlign);
        quarantine_bytes_ -= quarantine_.front().bytes;
        quarantine_.pop_front();
    }
}

const AllocationTable::Allocation* AllocationTable::live_at(std::uintptr_t p, bool allow_end) const {
    auto it = live_.upper_bound(p);
    if (it == live_.begin()) return nullptr;
    --it;
    const Allocation& a = it->second;
    if (p < a.base + a.bytes || (allow_end && p == a.base + a.bytes)) return &a;
    return nullptr;
}

const AllocationTable::Allocation* AllocationTable::freed_at(std::uintptr_t p) const {
    for (auto it = quarantine_.rbegin(); it != quarantine_.rend(); ++it)
        if (p >= it->base && p < it->base + it->bytes) return &*it;
    return nullptr;
}

std::string AllocationTable::what_is(const void* ptr) const {
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    if (ptr == nullptr) return "a null pointer";
    if (const Allocation* a = live_at(p, false))
        return "inside a live " + std::string(kind_name(a->kind)) + " allocation of " + std::to_string(a->bytes) +
               " bytes at " + address(a->base) + " (offset " + std::to_string(p - a->base) + ")";
    if (const Allocation* a = freed_at(p))
        return "inside " + std::string(kind_name(a->kind)) + " memory of " + std::to_string(a->bytes) + " bytes at " +
               address(a->base) + " that was already freed";
    return "not memory of this device (a plain host pointer?)";
}

void AllocationTable::require(const void* ptr, std::size_t bytes, MemoryKind kind, const char* call,
                              const std::string& role, const char* status) const {
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    const Allocation* a = ptr == nullptr ? nullptr : live_at(p, bytes == 0);
    if (a == nullptr || a->kind != kind)
        throw Error(call, status,
                    role + " " + address(ptr) + " must be " + kind_name(kind) + " memory but is " + what_is(ptr),
                    __FILE__, __LINE__);
    if (bytes > a->base + a->bytes - p)
        throw Error(call, status,
                    role + " " + address(ptr) + " + " + std::to_string(bytes) + " bytes runs " +
                        std::to_string(bytes - (a->base + a->bytes - p)) + " bytes past the end of its " +
                        kind_name(kind) + " allocation of " + std::to_string(a->bytes) + " bytes at " +
                        address(a->base),
                    __FILE__, __LINE__);
}

void AllocationTable::require_host(const void* ptr, std::size_t bytes, bool pinned, const char* call,
                                   const std::string& role) const {
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    const Allocation* a = ptr == nullptr ? nullptr : live_at(p, false);
    if (ptr == nullptr || (a != nullptr && a->kind == MemoryKind::Device) || (a == nullptr && freed_at(p) != nullptr))
        throw Error(call, "cudaErrorInvalidValue",
                    role + " " + address(ptr) + " must be host memory but is " + what_is(ptr), __FILE__, __LINE__);
    if (a != nullptr) {
        require(ptr, bytes, MemoryKind::Pinned, call, role);
        return;
    }
    if (pinned)
        throw Error(call, "cudaErrorStreamCaptureUnsupported",
                    role + " " + address(ptr) +
                        " is pageable host memory: a copy captured into a graph needs pinned "
                        "memory from allocate_pinned (it is read or written at every replay)",
                    __FILE__, __LINE__);
}

bool AllocationTable::is_pinned(const void* ptr, std::size_t bytes) const {
    const auto p = reinterpret_cast<std::uintptr_t>(ptr);
    const Allocation* a = ptr == nullptr ? nullptr : live_at(p, false);
    return a != nullptr && a->kind == MemoryKind::Pinned && bytes <= a->base + a->bytes - p;
}

}  // namespace carbon::gpu::host_seam
