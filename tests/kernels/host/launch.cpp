// Host execution layer, launching: checks the configuration against the GPU's limits (with the
// message a test can read instead of a bare cudaErrorInvalidConfiguration), then runs the grid's
// blocks one after another on the calling thread, or hands the launch to a deferring stream; also
// the layer's settings and kernel names.
#include "launch.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "executor.h"
#include "launch_state.h"

namespace carbon::host {
namespace {

struct Settings {
    std::mutex mutex;
    DeviceLimits limits;
    Schedule schedule = Schedule::Forward;
    std::uint64_t seed = 0;
    std::map<detail::KernelId, std::size_t> dynamic_smem_optin;  // set_max_dynamic_smem
    std::map<cudaStream_t, std::function<void(DeferredLaunch&&)>> deferred_streams;
};
Settings& settings() {
    static Settings s;
    return s;
}

std::string dims(dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

void set_device_limits(const DeviceLimits& limits) {
    std::lock_guard lock(settings().mutex);
    settings().limits = limits;
}

DeviceLimits device_limits() {
    std::lock_guard lock(settings().mutex);
    return settings().limits;
}

void set_schedule(Schedule schedule, std::uint64_t seed) {
    std::lock_guard lock(settings().mutex);
    settings().schedule = schedule;
    settings().seed = seed;
}

const char* executor() {
    return detail::executor_name();
}

void register_deferred_stream(cudaStream_t stream, std::function<void(DeferredLaunch&&)> sink) {
    if (stream == nullptr || !sink) throw KernelFault("register_deferred_stream: a null stream or an empty sink");
    std::lock_guard lock(settings().mutex);
    settings().deferred_streams[stream] = std::move(sink);
}

void unregister_deferred_stream(cudaStream_t stream) {
    std::lock_guard lock(settings().mutex);
    settings().deferred_streams.erase(stream);
}

namespace detail {

ScheduleSetting schedule_setting() {
    std::lock_guard lock(settings().mutex);
    return {settings().schedule, settings().seed};
}

std::string kernel_name(KernelId kernel) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(kernel), &info) != 0 && info.dli_sname != nullptr) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status),
                                                         std::free);
        return status == 0 && demangled ? demangled.get() : info.dli_sname;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "kernel at %p", reinterpret_cast<void*>(kernel));
    return buf;
}

void set_max_dynamic_smem(KernelId kernel, std::size_t bytes) {
    std::lock_guard lock(settings().mutex);
    const std::size_t max = settings().limits.smem_optin_max;
    if (bytes > max)
        throw KernelFault("set_max_dynamic_smem: kernel '" + kernel_name(kernel) + "': " + std::to_string(bytes) +
                          " bytes of dynamic shared memory exceed the device's opt-in maximum of " +
                          std::to_string(max) + " bytes (cudaFuncSetAttribute fails with cudaErrorInvalidValue)");
    settings().dynamic_smem_optin[kernel] = bytes;
}

namespace {

[[noreturn]] void bad_launch(KernelId kernel, dim3 grid, dim3 block, const std::string& what) {
    throw KernelFault("launch of kernel '" + kernel_name(kernel) + "' with grid " + dims(grid) + ", block " +
                      dims(block) + ": " + what);
}

// What cudaLaunchKernel checks before it runs anything (all of sm_80 to sm_90 share these limits).
// Returns the limit on static + dynamic shared memory for this kernel.
std::size_t check_configuration(KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_bytes) {
    if (block.x == 0 || block.y == 0 || block.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
        bad_launch(kernel, grid, block,
                   "every grid and block dimension must be at least 1 (cudaErrorInvalidConfiguration)");
    if (block.x > 1024 || block.y > 1024 || block.z > 64)
        bad_launch(kernel, grid, block, "a block is at most (1024,1024,64) (cudaErrorInvalidConfiguration)");
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (threads > 1024)
        bad_launch(kernel, grid, block,
                   std::to_string(threads) + " threads per block; the limit is 1024 (cudaErrorInvalidConfiguration)");
    if (grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535)
        bad_launch(kernel, grid, block, "a grid is at most (2147483647,65535,65535) (cudaErrorInvalidConfiguration)");
    std::lock_guard lock(settings().mutex);
    const DeviceLimits& limits = settings().limits;
    const auto optin = settings().dynamic_smem_optin.find(kernel);
    const bool opted_in = optin != settings().dynamic_smem_optin.end();
    const std::size_t dynamic_limit = opted_in ? optin->second : limits.dynamic_smem_default;
    if (dynamic_bytes > dynamic_limit)
        bad_launch(kernel, grid, block,
                   std::to_string(dynamic_bytes) + " bytes of dynamic shared memory exceed this kernel's limit of " +
                       std::to_string(dynamic_limit) +
                       (opted_in ? " bytes (set by set_max_dynamic_smem)"
                                 : " bytes (the default without opt-in; carbon::kern::set_max_dynamic_smem raises it "
                                   "up to " +
                                       std::to_string(limits.smem_optin_max) + ")") +
                       " (cudaErrorInvalidValue)");
    return opted_in ? limits.smem_optin_max : limits.dynamic_smem_default;
}

void check_not_in_kernel(KernelId kernel, dim3 grid, dim3 block) {
    if (tl_block != nullptr)
        bad_launch(kernel, grid, block,
                   "launched from inside kernel '" + kernel_name(tl_block->launch().kernel()) +
                       "': launches from device code (dynamic parallelism) are not emulated");
}

}  // namespace

bool is_deferred_stream(cudaStream_t stream) {
    std::lock_guard lock(settings().mutex);
    return settings().deferred_streams.count(stream) != 0;
}

void defer_launch(cudaStream_t stream, KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
                  std::vector<DeferredLaunch::PointerArg> pointer_args, std::function<void()> run) {
    check_not_in_kernel(kernel, grid, block);
    (void)check_configuration(kernel, grid, block, dynamic_smem_bytes);
    std::function<void(DeferredLaunch &&)> sink;
    {
        std::lock_guard lock(settings().mutex);
        const auto it = settings().deferred_streams.find(stream);
        if (it == settings().deferred_streams.end())
            throw KernelFault("defer_launch: stream is not registered as deferring");
        sink = it->second;  // called outside the lock: the sink may call back into the layer
    }
    sink(DeferredLaunch{kernel_name(kernel), grid, block, dynamic_smem_bytes, std::move(pointer_args), std::move(run)});
}

void launch_grid(KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_smem_bytes, Thunk thunk) {
    check_not_in_kernel(kernel, grid, block);
    const std::size_t smem_total_limit = check_configuration(kernel, grid, block, dynamic_smem_bytes);
    LaunchState state(kernel, grid, block, dynamic_smem_bytes, smem_total_limit, thunk);
    // One Block per OS thread, reused from launch to launch (it keeps its allocations).
    static thread_local Block block_state;
    struct Restore {
        ~Restore() {
            tl_block = nullptr;
            tl_thread = nullptr;
            threadIdx = blockIdx = uint3{};
            blockDim = gridDim = dim3{};
        }
    } restore;
    tl_block = &block_state;
    blockDim = block;
    gridDim = grid;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                blockIdx = uint3{x, y, z};
                state.begin_block();
                block_state.reset(state, uint3{x, y, z});
                executor_run_block(block_state);
                if (block_state.error()) std::rethrow_exception(block_state.error());
            }
}

}  // namespace detail
}  // namespace carbon::host
