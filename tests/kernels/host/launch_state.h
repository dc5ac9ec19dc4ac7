// Host execution layer, one launch's state: the kernel and its configuration, the dynamic shared
// memory buffer and the static shared memory (CARBON_SHARED) slots, junk-filled for every block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "host_runtime.h"
#include "launch.h"

namespace carbon::host::detail {

class SharedSite;

// Every byte of shared memory reads as this until the block writes it: 0xFF bytes are a NaN as a
// float, bf16 or half, and -1 as a signed integer, so an unwritten read shows in the output.
constexpr unsigned char kJunkByte = 0xFF;

class LaunchState {
public:
    // `smem_total_limit`: what static plus dynamic shared memory may add up to for this kernel.
    LaunchState(KernelId kernel, dim3 grid, dim3 block, std::size_t dynamic_bytes, std::size_t smem_total_limit,
                Thunk thunk);
    ~LaunchState();
    LaunchState(const LaunchState&) = delete;
    LaunchState& operator=(const LaunchState&) = delete;

    KernelId kernel() const { return kernel_; }
    dim3 grid() const { return grid_; }
    dim3 block() const { return block_; }
    const Thunk& thunk() const { return thunk_; }
    void* dynamic_smem() const { return dynamic_; }

    // Before each block: junk-fills the dynamic shared memory and marks every static slot stale.
    void begin_block();
    // The storage of a CARBON_SHARED variable for the running block (allocated at its first use in
    // the launch, junk-filled at its first use in each block). Fails when the limits are exceeded.
    void* static_slot(const SharedSite& site);

private:
    struct Slot {
        void* p = nullptr;
        std::size_t bytes = 0;
        std::size_t align = 0;
        std::uint64_t epoch = 0;
    };

    KernelId kernel_;
    dim3 grid_;
    dim3 block_;
    std::size_t dynamic_bytes_;
    std::size_t smem_total_limit_;
    Thunk thunk_;
    void* dynamic_ = nullptr;
    std::vector<Slot> slots_;  // indexed by SharedSite::id()
    std::uint64_t epoch_ = 0;
    std::size_t static_bytes_ = 0;
    std::mutex mutex_;  // thread build: threads of a block allocate slots concurrently
};

// The thread order set by carbon::host::set_schedule (the fiber executors read it for every block).
struct ScheduleSetting {
    Schedule schedule;
    std::uint64_t seed;
};
ScheduleSetting schedule_setting();

// A kernel's name for messages: its demangled symbol when the executable exports it (the layer's
// targets link with -rdynamic), else its address.
std::string kernel_name(KernelId kernel);

}  // namespace carbon::host::detail
