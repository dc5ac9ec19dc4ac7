// Host execution layer, core state: the CUDA built-in variables as thread-local state, one block's
// CUDA threads and their rendezvous (block barriers, warp collectives), and KernelFault. Test-only.
//
// Model: a launch runs its blocks one after another; a block's threads run as fibers (or, in the
// thread build, as OS threads). Every synchronising operation is a rendezvous: a thread records
// what it waits for and is suspended until the last participant arrives, which computes every
// participant's result and releases them. When no thread of the block can move (every live thread
// waits and no rendezvous can complete) the block has deadlocked or diverged, and the thread that
// noticed throws a KernelFault naming the kernel, the block and what each group of threads waits at.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

namespace carbon::host {

// Every error the layer detects (launch limits, divergent barriers, deadlocks, misuse of a warp
// operation) reaches the caller of launch() as a KernelFault whose message says what and where.
class KernelFault : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {

// What a waiting thread waits at. Block-wide operations first, then warp collectives.
enum class Op : std::uint8_t {
    None,
    SyncThreads,
    SyncThreadsCount,
    SyncThreadsAnd,
    SyncThreadsOr,
    SyncWarp,
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    Any,
    All,
    ReduceAddU,
    ReduceMinU,
    ReduceMaxU,
    ReduceAddI,
    ReduceMinI,
    ReduceMaxI,
    ReduceAndU,
    ReduceOrU,
    ReduceXorU,
};
const char* op_name(Op op);
inline bool is_block_op(Op op) {
    return op >= Op::SyncThreads && op <= Op::SyncThreadsOr;
}

using KernelId = void (*)();  // a kernel's address, for its name in messages

// One CUDA thread's identity and, while it waits, what it waits at and the operands it brought.
struct CudaThread {
    uint3 idx{};
    unsigned linear = 0;  // x + Dx * (y + Dy * z): warp = linear / 32, lane = linear % 32
    bool started = false;
    bool exited = false;
    bool waiting = false;
    bool runnable = true;  // fiber builds: the scheduler may resume it
    Op op = Op::None;
    unsigned mask = 0;
    int width = 32;
    int operand = 0;          // srcLane, delta or laneMask
    std::uint64_t value = 0;  // shuffle payload bits, predicate or reduction operand
    std::uint64_t result = 0;
    std::source_location where;
    unsigned atomics_since_sync = 0;  // memory_ops.h: a spin loop yields
    void* executor = nullptr;         // per-thread executor data (thread build: its condition variable)
};

// Type-erased "call the kernel with its bound arguments" that every CUDA thread of a launch runs.
struct Thunk {
    void (*invoke)(const void* bound) = nullptr;
    const void* bound = nullptr;
};

class LaunchState;

// Thrown inside a CUDA thread when its block is being abandoned after another thread's error; it
// unwinds the thread's stack and is swallowed by Block::run_thread.
struct BlockAborted {};

#if defined(CARBON_HOST_EXECUTOR_THREADS)
using BlockLock = std::unique_lock<std::mutex>;
#else
// The fibers of a block share one OS thread and switch only inside the layer: nothing to lock.
struct BlockLock {
    explicit BlockLock(std::mutex&) {}
};
#endif

// One block being run: its threads, the rendezvous state, and the first error.
class Block {
public:
    // Prepares the threads of block `block_idx` of the launch `launch`.
    void reset(LaunchState& launch, uint3 block_idx);

    LaunchState& launch() const { return *launch_; }
    unsigned size() const { return static_cast<unsigned>(threads_.size()); }
    CudaThread& thread(unsigned linear) { return threads_[linear]; }
    uint3 block_idx() const { return block_idx_; }

    // Runs one CUDA thread from its start to its exit; each executor calls this as a thread's body.
    void run_thread(CudaThread& t) noexcept;

    // __syncthreads and its _count/_and/_or forms: returns the count of non-zero predicates.
    std::uint64_t block_barrier(CudaThread& self, Op op, int predicate, std::source_location where);
    // A warp collective (__syncwarp, shuffles, votes, reductions) over the lanes named in `mask`.
    std::uint64_t warp_collective(CudaThread& self, Op op, unsigned mask, int width, int operand, std::uint64_t value,
                                  std::source_location where);

    // Throws a KernelFault: `what`, prefixed with the kernel, block and grid.
    [[noreturn]] void fail(const std::string& what) const;
    std::string context() const;

    bool aborted() const { return aborted_.load(std::memory_order_acquire); }
    std::exception_ptr error() const { return error_; }
    // Records the first error and releases every waiting thread so that it unwinds.
    void abort(std::exception_ptr e);

    // What each group of threads is doing ("threads 0-31 wait at __syncthreads (k.cuh:12); ...").
    std::string describe_threads() const;

private:
    void thread_exited(CudaThread& t);
    bool try_complete_warp(unsigned warp, Op op, unsigned mask, CudaThread* self);
    void release(CudaThread& t, CudaThread* self);
    void check_deadlock();
    std::string describe_wait(const CudaThread& t) const;
    [[noreturn]] void fail_divergent_barrier() const;

    LaunchState* launch_ = nullptr;
    uint3 block_idx_{};
    std::vector<CudaThread> threads_;
    unsigned waiting_ = 0;
    unsigned exited_ = 0;
    // Per warp: lanes waiting at a warp collective, and lanes that exited. A collective can only be
    // complete once these add up to the lanes its mask names, which spares most scans of the warp.
    std::vector<unsigned> warp_waiting_;
    std::vector<unsigned> warp_exited_;
    // The block barrier being gathered.
    unsigned bar_arrived_ = 0;
    unsigned bar_count_ = 0;
    std::atomic<bool> aborted_{false};
    std::exception_ptr error_;
    std::mutex mutex_;  // thread build: guards everything above; fiber builds: unused
};

// The CUDA thread running on this OS thread (switched with every fiber) and its block.
inline thread_local CudaThread* tl_thread = nullptr;
inline thread_local Block* tl_block = nullptr;

// Called when a device function runs outside a kernel launched through the layer.
[[noreturn]] void not_in_kernel(const char* what);
inline CudaThread& current_thread(const char* what) {
    if (!tl_thread) not_in_kernel(what);
    return *tl_thread;
}

}  // namespace detail
}  // namespace carbon::host

// CUDA's built-in variables. The fiber builds switch threadIdx with every fiber; blockIdx, blockDim
// and gridDim are set per block on the OS thread that runs it.
inline thread_local uint3 threadIdx{};
inline thread_local uint3 blockIdx{};
inline thread_local dim3 blockDim{};
inline thread_local dim3 gridDim{};
constexpr int warpSize = 32;
