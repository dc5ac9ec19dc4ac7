// Host execution layer, memory intrinsics for kernel code: CUDA's atomics (std::atomic_ref, relaxed
// like the GPU's), __threadfence*, the cache-hinted loads and stores (__ldg, __ldcs, ...) and
// __nanosleep. The overloads are CUDA's own, so host-only misuse (say a float atomicMax, which CUDA
// does not have) fails to compile here as it would under nvcc.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "executor.h"

namespace carbon::host::detail {

// Spin loops must let other CUDA threads run: the fiber builds switch only inside the layer. A thread
// that does 64 atomics without synchronising in between yields (a failed atomicCAS yields at once),
// so a kernel's ordinary atomics do not change the schedule.
inline void atomic_progress() {
    CudaThread* t = tl_thread;
    if (t != nullptr && ++t->atomics_since_sync >= 64) {
        t->atomics_since_sync = 0;
        executor_yield();
    }
}

template <class T>
T atomic_rmw(T* address, auto&& update) {
    atomic_progress();
    std::atomic_ref<T> a(*address);
    T old = a.load(std::memory_order_relaxed);
    while (!a.compare_exchange_weak(old, update(old), std::memory_order_relaxed)) {
    }
    return old;
}

// 16- and 32-bit floating-point pairs and halves updated through their raw bits.
template <class H, class Bits, class Add>
H atomic_add_bits(H* address, Add add) {
    static_assert(sizeof(H) == sizeof(Bits));
    atomic_progress();
    std::atomic_ref<Bits> a(*reinterpret_cast<Bits*>(address));
    Bits old = a.load(std::memory_order_relaxed);
    for (;;) {
        H old_value;  // CUDA's half types are not trivially copyable on the host: copy their bytes
        std::memcpy(static_cast<void*>(&old_value), &old, sizeof(H));
        const H new_value = add(old_value);
        Bits desired;
        std::memcpy(&desired, static_cast<const void*>(&new_value), sizeof(H));
        if (a.compare_exchange_weak(old, desired, std::memory_order_relaxed)) return old_value;
    }
}

// __threadfence as a read-modify-write of one process-wide atomic: a full fence on x86, and an edge
// ThreadSanitizer understands (it ignores std::atomic_thread_fence), so that a correctly fenced
// publish-then-flag pattern is not reported as a race while an unfenced one still is.
inline std::atomic<unsigned> g_fence{0};
inline void fence() {
    g_fence.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace carbon::host::detail

#define CARBON_HOST_ATOMIC_FETCH(name, T, fetch)                                   \
    inline T name(T* address, T val) {                                             \
        carbon::host::detail::atomic_progress();                                   \
        return std::atomic_ref<T>(*address).fetch(val, std::memory_order_relaxed); \
    }
CARBON_HOST_ATOMIC_FETCH(atomicAdd, int, fetch_add)
CARBON_HOST_ATOMIC_FETCH(atomicAdd, unsigned int, fetch_add)
CARBON_HOST_ATOMIC_FETCH(atomicAdd, unsigned long long, fetch_add)
CARBON_HOST_ATOMIC_FETCH(atomicAdd, float, fetch_add)
CARBON_HOST_ATOMIC_FETCH(atomicAdd, double, fetch_add)
CARBON_HOST_ATOMIC_FETCH(atomicSub, int, fetch_sub)
CARBON_HOST_ATOMIC_FETCH(atomicSub, unsigned int, fetch_sub)
CARBON_HOST_ATOMIC_FETCH(atomicAnd, int, fetch_and)
CARBON_HOST_ATOMIC_FETCH(atomicAnd, unsigned int, fetch_and)
CARBON_HOST_ATOMIC_FETCH(atomicAnd, unsigned long long, fetch_and)
CARBON_HOST_ATOMIC_FETCH(atomicOr, int, fetch_or)
CARBON_HOST_ATOMIC_FETCH(atomicOr, unsigned int, fetch_or)
CARBON_HOST_ATOMIC_FETCH(atomicOr, unsigned long long, fetch_or)
CARBON_HOST_ATOMIC_FETCH(atomicXor, int, fetch_xor)
CARBON_HOST_ATOMIC_FETCH(atomicXor, unsigned int, fetch_xor)
CARBON_HOST_ATOMIC_FETCH(atomicXor, unsigned long long, fetch_xor)
#undef CARBON_HOST_ATOMIC_FETCH

#define CARBON_HOST_ATOMIC_EXCH(T)                                                    \
    inline T atomicExch(T* address, T val) {                                          \
        carbon::host::detail::atomic_progress();                                      \
        return std::atomic_ref<T>(*address).exchange(val, std::memory_order_relaxed); \
    }
CARBON_HOST_ATOMIC_EXCH(int)
CARBON_HOST_ATOMIC_EXCH(unsigned int)
CARBON_HOST_ATOMIC_EXCH(unsigned long long)
CARBON_HOST_ATOMIC_EXCH(float)
#undef CARBON_HOST_ATOMIC_EXCH

#define CARBON_HOST_ATOMIC_MINMAX(T)                                                                      \
    inline T atomicMin(T* address, T val) {                                                               \
        return carbon::host::detail::atomic_rmw(address, [val](T old) { return val < old ? val : old; }); \
    }                                                                                                     \
    inline T atomicMax(T* address, T val) {                                                               \
        return carbon::host::detail::atomic_rmw(address, [val](T old) { return val > old ? val : old; }); \
    }
CARBON_HOST_ATOMIC_MINMAX(int)
CARBON_HOST_ATOMIC_MINMAX(unsigned int)
CARBON_HOST_ATOMIC_MINMAX(long long)
CARBON_HOST_ATOMIC_MINMAX(unsigned long long)
#undef CARBON_HOST_ATOMIC_MINMAX

#define CARBON_HOST_ATOMIC_CAS(T)                                                                       \
    inline T atomicCAS(T* address, T compare, T val) {                                                  \
        carbon::host::detail::atomic_progress();                                                        \
        T old = compare;                                                                                \
        if (!std::atomic_ref<T>(*address).compare_exchange_strong(old, val, std::memory_order_relaxed)) \
            carbon::host::detail::executor_yield(); /* someone else holds it: let them run */           \
        return old;                                                                                     \
    }
CARBON_HOST_ATOMIC_CAS(int)
CARBON_HOST_ATOMIC_CAS(unsigned int)
CARBON_HOST_ATOMIC_CAS(unsigned long long)
CARBON_HOST_ATOMIC_CAS(unsigned short)
#undef CARBON_HOST_ATOMIC_CAS

inline __nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 val) {
    return carbon::host::detail::atomic_add_bits<__nv_bfloat16, std::uint16_t>(
        address, [val](__nv_bfloat16 old) { return __hadd(old, val); });
}
inline __nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 val) {
    return carbon::host::detail::atomic_add_bits<__nv_bfloat162, std::uint32_t>(
        address, [val](__nv_bfloat162 old) { return __hadd2(old, val); });
}
inline __half atomicAdd(__half* address, __half val) {
    return carbon::host::detail::atomic_add_bits<__half, std::uint16_t>(address,
                                                                        [val](__half old) { return __hadd(old, val); });
}
inline __half2 atomicAdd(__half2* address, __half2 val) {
    return carbon::host::detail::atomic_add_bits<__half2, std::uint32_t>(
        address, [val](__half2 old) { return __hadd2(old, val); });
}

inline void __threadfence_block() {
    carbon::host::detail::fence();
}
inline void __threadfence() {
    carbon::host::detail::fence();
}
inline void __threadfence_system() {
    carbon::host::detail::fence();
}

// Lets other threads run (a spin-wait's back-off on the GPU).
inline void __nanosleep(unsigned int /*ns*/) {
    carbon::host::detail::executor_yield();
}

// Cache-hinted loads and stores: plain accesses on the host.
template <class T>
T __ldg(const T* p) {
    return *p;
}
template <class T>
T __ldcg(const T* p) {
    return *p;
}
template <class T>
T __ldcs(const T* p) {
    return *p;
}
template <class T>
void __stcg(T* p, T value) {
    *p = value;
}
template <class T>
void __stcs(T* p, T value) {
    *p = value;
}
