// Host execution layer, shared memory for kernel code: the storage behind CARBON_SHARED (one heap
// allocation per variable and launch, so AddressSanitizer sees an overflow at the exact line, junk-
// filled at its first use in every block, so a read before any write shows) and CARBON_DYNAMIC_SMEM.
#pragma once

#include <cstddef>
#include <source_location>
#include <type_traits>

#include "host_runtime.h"

namespace carbon::host::detail {

// One `CARBON_SHARED(T, name)` declaration in kernel source (a function-local static, so one per
// declaration and template instantiation). It owns no memory: the running launch keeps one slot
// per site, which the block's threads share and which is refilled with junk for every block.
class SharedSite {
public:
    SharedSite(std::size_t bytes, std::size_t align, const char* name,
               std::source_location where = std::source_location::current());

    unsigned id() const { return id_; }
    std::size_t bytes() const { return bytes_; }
    std::size_t align() const { return align_; }
    const char* name() const { return name_; }
    std::source_location where() const { return where_; }

    // The running block's storage for this variable.
    void* storage() const;

    template <class T>
    T& get() const {
        static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                      "a __shared__ variable cannot have a constructor or destructor (as in CUDA)");
        return *static_cast<T*>(storage());
    }

private:
    unsigned id_;
    std::size_t bytes_;
    std::size_t align_;
    const char* name_;
    std::source_location where_;
};

// The running block's dynamic shared memory (the launch's dynamic_smem_bytes, 128-byte aligned).
void* dynamic_smem();

}  // namespace carbon::host::detail

// Expansions of kernels/cuda_portable.cuh's CARBON_SHARED / CARBON_DYNAMIC_SMEM on the host.
#define CARBON_HOST_SHARED(T, name)                                                                          \
    static const ::carbon::host::detail::SharedSite carbon_shared_site_##name{sizeof(T), alignof(T), #name}; \
    auto& name = carbon_shared_site_##name.get<T>()
#define CARBON_HOST_DYNAMIC_SMEM(T, name) T* const name = static_cast<T*>(::carbon::host::detail::dynamic_smem())
