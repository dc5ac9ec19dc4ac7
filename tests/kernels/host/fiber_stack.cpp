// Host execution layer, fiber stacks: see fiber_stack.h.
#include "fiber_stack.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace carbon::host::detail {

FiberStack::FiberStack(std::size_t usable_bytes) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    size_ = (usable_bytes + page - 1) / page * page;
    mapping_bytes_ = size_ + page;
    mapping_ =
        mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping_ == MAP_FAILED) throw std::bad_alloc();
    if (mprotect(mapping_, page, PROT_NONE) != 0) {
        munmap(mapping_, mapping_bytes_);
        throw std::bad_alloc();
    }
    base_ = static_cast<char*>(mapping_) + page;
}

FiberStack::~FiberStack() {
    munmap(mapping_, mapping_bytes_);
}

}  // namespace carbon::host::detail
