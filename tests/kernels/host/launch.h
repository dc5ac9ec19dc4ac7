// Host execution layer, launching: carbon::kern::launch's host side (limits checked, then the grid's
// blocks run one after another, synchronously) and the settings tests may change: device limits and
// the order in which a block's threads are scheduled.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "host_runtime.h"

namespace carbon::host {

// Shared-memory limits of the emulated GPU. The defaults are sm_90's: 48 KiB of dynamic shared
// memory without opt-in, up to 227 KiB after set_max_dynamic_smem; static shared memory <= 48 KiB.
struct DeviceLimits {
    std::size_t dynamic_smem_default = 48 * 1024;
    std::size_t smem_optin_max = 227 * 1024;
    std::size_t static_smem_max = 48 * 1024;
};
void set_device_limits(const DeviceLimits& limits);
DeviceLimits device_limits();

// Order in which a block's threads first run and are resumed (fiber builds; the thread build leaves
// it to the OS). Each thread runs until it waits, so between two barriers the threads run one after
// another in this order: a read of another thread's unsynchronised write sees the write only when
// the writer comes first. Forward (the default) and Reverse expose a missing barrier from opposite
// sides; Shuffled draws a permutation per block from `seed`.
enum class Schedule { Forward, Reverse, Shuffled };
void set_schedule(Schedule schedule, std::uint64_t seed = 0);

// The executor this build runs threads with: "boost-context", "ucontext" or "threads".
const char* executor();

namespace detail {

// Runs `thunk` for every thread of the grid; throws KernelFault on a bad configuration or on any
// error a thread hits.
void launch_grid(KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_smem_bytes, Thunk thunk);

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) on the host.
void set_max_dynamic_smem(KernelId kernel, std::size_t bytes);

// A kernel and its arguments, converted once to the parameter types (like CUDA's parameter buffer);
// every thread calls the kernel with its own copies.
template <class... P>
struct BoundKernel {
    using Params = std::tuple<std::decay_t<P>...>;
    void (*kernel)(P...);
    Params params;

    static void invoke(const void* self) {
        const auto* b = static_cast<const BoundKernel*>(self);
        std::apply([b](const auto&... p) { b->kernel(p...); }, b->params);
    }
};

}  // namespace detail
}  // namespace carbon::host
