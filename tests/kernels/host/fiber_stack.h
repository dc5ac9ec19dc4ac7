// Host execution layer, fiber stacks: mmap'd stacks with a PROT_NONE guard page below them, so that a
// fiber that overflows its stack faults instead of overwriting its neighbour's. Reused across blocks.
#pragma once

#include <cstddef>

namespace carbon::host::detail {

class FiberStack {
public:
    explicit FiberStack(std::size_t usable_bytes);
    ~FiberStack();
    FiberStack(const FiberStack&) = delete;
    FiberStack& operator=(const FiberStack&) = delete;

    void* base() const { return base_; }  // lowest usable address
    std::size_t size() const { return size_; }
    void* top() const { return static_cast<char*>(base_) + size_; }

private:
    void* mapping_ = nullptr;
    std::size_t mapping_bytes_ = 0;
    void* base_ = nullptr;
    std::size_t size_ = 0;
};

// Bytes of stack per CUDA thread: ample for kernel code (which keeps its data in registers-to-be and
// shared memory); AddressSanitizer's redzones need more.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kFiberStackBytes = 512 * 1024;
#else
constexpr std::size_t kFiberStackBytes = 128 * 1024;
#endif

}  // namespace carbon::host::detail
