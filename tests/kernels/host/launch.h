// Host execution layer, launching: carbon::kern::launch's host side (limits checked, then the grid's
// blocks run one after another, synchronously, or later on a deferring stream) and the settings tests
// may change: device limits and the order in which a block's threads are scheduled.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

// A launch handed to a deferring stream instead of run at once.
struct DeferredLaunch {
    std::string kernel_name;  // demangled, for messages
    dim3 grid, block;
    std::size_t dynamic_smem_bytes = 0;
    struct PointerArg {
        unsigned index;  // the kernel parameter's position, from 0
        const void* value;
    };
    std::vector<PointerArg> pointer_args;  // the kernel's pointer arguments (for the owner's checks)
    std::function<void()> run;             // runs the grid with its own copy of the arguments
};

// Deferring streams (the host device seam, tests/gpu): a launch on a registered stream has its
// configuration checked (errors throw from launch() as before), then goes to `sink` with the
// arguments copied by value; the stream's owner calls `run` when it drains its work. Launches on any
// other stream, the null stream included, still run before launch() returns. A stream handle must be
// unregistered before its owner goes away.
void register_deferred_stream(cudaStream_t stream, std::function<void(DeferredLaunch&&)> sink);
void unregister_deferred_stream(cudaStream_t stream);

namespace detail {

// Runs `thunk` for every thread of the grid; throws KernelFault on a bad configuration or on any
// error a thread hits.
void launch_grid(KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_smem_bytes, Thunk thunk);

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) on the host.
void set_max_dynamic_smem(KernelId kernel, std::size_t bytes);

bool is_deferred_stream(cudaStream_t stream);
// Checks the configuration as launch_grid does, then hands the launch to the stream's sink.
void defer_launch(cudaStream_t stream, KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
                  std::vector<DeferredLaunch::PointerArg> pointer_args, std::function<void()> run);

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

    std::vector<DeferredLaunch::PointerArg> pointer_args() const {
        std::vector<DeferredLaunch::PointerArg> out;
        unsigned index = 0;
        const auto add = [&out, &index](const auto& p) {
            if constexpr (std::is_pointer_v<std::decay_t<decltype(p)>>)
                out.push_back({index, static_cast<const void*>(p)});
            ++index;
        };
        std::apply([&add](const auto&... p) { (add(p), ...); }, params);
        return out;
    }
};

// carbon::kern::launch on the host: runs the grid now, or defers it when `stream` is deferring.
template <class... P>
void launch_bound(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes, cudaStream_t stream,
                  typename BoundKernel<P...>::Params params) {
    using Bound = BoundKernel<P...>;
    const auto id = reinterpret_cast<KernelId>(kernel);
    if (stream != nullptr && is_deferred_stream(stream)) {
        Bound bound{kernel, std::move(params)};
        auto pointers = bound.pointer_args();
        defer_launch(stream, id, grid, block, dynamic_smem_bytes, std::move(pointers),
                     [bound, id, grid, block, dynamic_smem_bytes] {
                         launch_grid(id, grid, block, dynamic_smem_bytes, {&Bound::invoke, &bound});
                     });
        return;
    }
    const Bound bound{kernel, std::move(params)};
    launch_grid(id, grid, block, dynamic_smem_bytes, {&Bound::invoke, &bound});
}

}  // namespace detail
}  // namespace carbon::host
