// Host execution layer, CUDA's synchronisation and warp intrinsics for kernel code: __syncthreads (and
// _count/_and/_or), __syncwarp, __shfl*_sync with width, __ballot/__any/__all_sync and sm_80's
// __reduce_*_sync, each a rendezvous over the block or over the live lanes its mask names. Each takes
// a trailing defaulted std::source_location so that reports name the line of the call.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "host_runtime.h"

namespace carbon::host::detail {

inline std::uint64_t block_op(Op op, int predicate, std::source_location where) {
    CudaThread& t = current_thread(op_name(op));
    return tl_block->block_barrier(t, op, predicate, where);
}

inline std::uint64_t warp_op(Op op, unsigned mask, int width, int operand, std::uint64_t value,
                             std::source_location where) {
    CudaThread& t = current_thread(op_name(op));
    return tl_block->warp_collective(t, op, mask, width, operand, value, where);
}

// The types CUDA's shuffles take (nvcc has an overload for each).
template <class T>
constexpr bool is_shuffle_type =
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8)) ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> || std::is_same_v<T, __half2> ||
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __nv_bfloat162>;

template <class T>
T shuffle(Op op, unsigned mask, T var, int operand, int width, std::source_location where) {
    static_assert(is_shuffle_type<T>,
                  "CUDA shuffles take 32- and 64-bit integers, float, double, __half(2) and "
                  "__nv_bfloat16(2)");
    std::uint64_t bits = 0;
    std::memcpy(&bits, static_cast<const void*>(&var), sizeof(T));
    bits = warp_op(op, mask, width, operand, bits, where);
    T out;
    std::memcpy(static_cast<void*>(&out), &bits, sizeof(T));  // a lane that read an inactive lane gets all bits set
    return out;
}

}  // namespace carbon::host::detail

inline void __syncthreads(std::source_location where = std::source_location::current()) {
    carbon::host::detail::block_op(carbon::host::detail::Op::SyncThreads, 0, where);
}
inline int __syncthreads_count(int predicate, std::source_location where = std::source_location::current()) {
    return static_cast<int>(
        carbon::host::detail::block_op(carbon::host::detail::Op::SyncThreadsCount, predicate, where));
}
inline int __syncthreads_and(int predicate, std::source_location where = std::source_location::current()) {
    return carbon::host::detail::block_op(carbon::host::detail::Op::SyncThreadsAnd, predicate, where) ==
           std::uint64_t{blockDim.x} * blockDim.y * blockDim.z;
}
inline int __syncthreads_or(int predicate, std::source_location where = std::source_location::current()) {
    return carbon::host::detail::block_op(carbon::host::detail::Op::SyncThreadsOr, predicate, where) != 0;
}

inline void __syncwarp(unsigned mask = 0xffffffffu, std::source_location where = std::source_location::current()) {
    carbon::host::detail::warp_op(carbon::host::detail::Op::SyncWarp, mask, 32, 0, 0, where);
}

template <class T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize,
              std::source_location where = std::source_location::current()) {
    return carbon::host::detail::shuffle(carbon::host::detail::Op::Shfl, mask, var, srcLane, width, where);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,
                 std::source_location where = std::source_location::current()) {
    return carbon::host::detail::shuffle(carbon::host::detail::Op::ShflUp, mask, var, static_cast<int>(delta), width,
                                         where);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,
                   std::source_location where = std::source_location::current()) {
    return carbon::host::detail::shuffle(carbon::host::detail::Op::ShflDown, mask, var, static_cast<int>(delta), width,
                                         where);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,
                  std::source_location where = std::source_location::current()) {
    return carbon::host::detail::shuffle(carbon::host::detail::Op::ShflXor, mask, var, laneMask, width, where);
}

inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
    return static_cast<unsigned>(
        carbon::host::detail::warp_op(carbon::host::detail::Op::Ballot, mask, 32, 0, predicate != 0, where));
}
inline int __any_sync(unsigned mask, int predicate, std::source_location where = std::source_location::current()) {
    return static_cast<int>(
        carbon::host::detail::warp_op(carbon::host::detail::Op::Any, mask, 32, 0, predicate != 0, where));
}
inline int __all_sync(unsigned mask, int predicate, std::source_location where = std::source_location::current()) {
    return static_cast<int>(
        carbon::host::detail::warp_op(carbon::host::detail::Op::All, mask, 32, 0, predicate != 0, where));
}

// sm_80's warp reductions: add/min/max on unsigned and int, and/or/xor on unsigned.
#define CARBON_HOST_WARP_REDUCE(name, T, op)                                                              \
    inline T name(unsigned mask, T value, std::source_location where = std::source_location::current()) { \
        return static_cast<T>(static_cast<std::uint32_t>(carbon::host::detail::warp_op(                   \
            carbon::host::detail::Op::op, mask, 32, 0, static_cast<std::uint32_t>(value), where)));       \
    }
CARBON_HOST_WARP_REDUCE(__reduce_add_sync, unsigned, ReduceAddU)
CARBON_HOST_WARP_REDUCE(__reduce_min_sync, unsigned, ReduceMinU)
CARBON_HOST_WARP_REDUCE(__reduce_max_sync, unsigned, ReduceMaxU)
CARBON_HOST_WARP_REDUCE(__reduce_add_sync, int, ReduceAddI)
CARBON_HOST_WARP_REDUCE(__reduce_min_sync, int, ReduceMinI)
CARBON_HOST_WARP_REDUCE(__reduce_max_sync, int, ReduceMaxI)
CARBON_HOST_WARP_REDUCE(__reduce_and_sync, unsigned, ReduceAndU)
CARBON_HOST_WARP_REDUCE(__reduce_or_sync, unsigned, ReduceOrU)
CARBON_HOST_WARP_REDUCE(__reduce_xor_sync, unsigned, ReduceXorU)
#undef CARBON_HOST_WARP_REDUCE
