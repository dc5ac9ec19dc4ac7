// Host layer tests, block synchronisation: __syncthreads ordering over phases, blocks and 3-D blocks;
// _count/_and/_or; the missing barrier the layer must expose (negative control); divergent barriers
// and deadlocks reported with the kernel, block and threads named (never a hang); schedules; errors
// thrown inside kernels; device functions outside kernels; launches from device code.
#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include "check.h"
#include "cuda_portable.cuh"

using carbon::host::KernelFault;
using carbon::kern::launch;

namespace {
unsigned linear_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
unsigned block_threads() {
    return blockDim.x * blockDim.y * blockDim.z;
}
}  // namespace

// Phase 1 writes, phase 2 reads the right neighbour, phase 3 overwrites: each barrier must hold.
__global__ void sync_rotate_kernel(int* out) {
    CARBON_SHARED(int[1024], buf);
    const unsigned n = block_threads(), t = linear_tid();
    buf[t] = static_cast<int>(t + 1000 * blockIdx.x);
    __syncthreads();
    const int right = buf[(t + 1) % n];
    __syncthreads();
    buf[t] = right * 2;
    __syncthreads();
    out[blockIdx.x * n + t] = buf[(t + n - 1) % n];
}

TEST(syncthreads_orders_phases_in_1d_and_3d_blocks) {
    for (const dim3 block : {dim3(256), dim3(8, 4, 2), dim3(33), dim3(1024)}) {
        const unsigned n = block.x * block.y * block.z, blocks = 3;
        std::vector<int> out(n * blocks, -7);
        launch(sync_rotate_kernel, dim3(blocks), block, 0, nullptr, out.data());
        for (unsigned b = 0; b < blocks; ++b)
            for (unsigned t = 0; t < n; ++t) CHECK_EQ(out[b * n + t], static_cast<int>(2 * (t + 1000 * b)));
    }
}

__global__ void sync_predicates_kernel(int* out) {
    const unsigned t = threadIdx.x;
    out[0 * blockDim.x + t] = __syncthreads_count(t % 3 == 0);
    out[1 * blockDim.x + t] = __syncthreads_and(t < 1000);
    out[2 * blockDim.x + t] = __syncthreads_and(t != 57);
    out[3 * blockDim.x + t] = __syncthreads_or(t == 99);
    out[4 * blockDim.x + t] = __syncthreads_or(0);
}

TEST(syncthreads_count_and_or) {
    const unsigned n = 100;
    std::vector<int> out(5 * n, -7);
    launch(sync_predicates_kernel, dim3(1), dim3(n), 0, nullptr, out.data());
    for (unsigned t = 0; t < n; ++t) {
        CHECK_EQ(out[t], 34);
        CHECK_EQ(out[n + t], 1);
        CHECK_EQ(out[2 * n + t], 0);
        CHECK_EQ(out[3 * n + t], 1);
        CHECK_EQ(out[4 * n + t], 0);
    }
}

// Reads the right neighbour's slot with or without a barrier after the writes.
template <bool kBarrier>
__global__ void sync_neighbour_kernel(int* out) {
    CARBON_SHARED(int[256], buf);
    buf[threadIdx.x] = static_cast<int>(threadIdx.x);
    if constexpr (kBarrier) __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

// Negative control: a missing __syncthreads must give wrong output, so tests of real kernels can
// trust a pass. Each fiber runs until it synchronises, so without the barrier a reader that runs
// before its writer sees junk (-1).
TEST(a_missing_syncthreads_gives_wrong_output) {
#if defined(CARBON_HOST_EXECUTOR_THREADS)
    SKIP(
        "the thread build leaves the race's outcome to the OS (TSan reports it: kernels.tsan_reports_missing_barrier)");
#endif
    const unsigned n = 64;
    for (const auto schedule : {carbon::host::Schedule::Forward, carbon::host::Schedule::Reverse}) {
        carbon::host::set_schedule(schedule);
        std::vector<int> good(n), bad(n);
        launch(sync_neighbour_kernel<true>, dim3(1), dim3(n), 0, nullptr, good.data());
        launch(sync_neighbour_kernel<false>, dim3(1), dim3(n), 0, nullptr, bad.data());
        int wrong = 0;
        for (unsigned t = 0; t < n; ++t) {
            CHECK_EQ(good[t], static_cast<int>((t + 1) % n));
            wrong += bad[t] != static_cast<int>((t + 1) % n);
            CHECK(bad[t] == static_cast<int>((t + 1) % n) || bad[t] == -1);  // junk, never a stale value
        }
        CHECK(wrong >= 1);
        if (schedule == carbon::host::Schedule::Forward) CHECK_EQ(wrong, static_cast<int>(n) - 1);
    }
    carbon::host::set_schedule(carbon::host::Schedule::Forward);
}

__global__ void sync_exit_before_barrier_kernel(int* out) {
    if (threadIdx.x >= 64) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

TEST(threads_exiting_before_a_barrier_are_reported) {
    std::vector<int> out(128, 0);
    CHECK_THROWS_WITH(launch(sync_exit_before_barrier_kernel, dim3(2), dim3(128), 0, nullptr, out.data()),
                      "divergent __syncthreads", "sync_exit_before_barrier_kernel", "block (0,0,0) of grid (2,1,1)",
                      "threads 0-63 wait at __syncthreads (test_host_sync.cpp:", "threads 64-127 exited");
}

__global__ void sync_two_barriers_kernel(int* out) {
    if (threadIdx.x < 32) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

TEST(threads_at_different_barriers_are_reported) {
    std::vector<int> out(64, 0);
    CHECK_THROWS_WITH(launch(sync_two_barriers_kernel, dim3(1), dim3(64), 0, nullptr, out.data()),
                      "divergent __syncthreads: the threads of the block wait at different barriers",
                      "threads 0-31 wait at __syncthreads (test_host_sync.cpp:",
                      "threads 32-63 wait at __syncthreads (test_host_sync.cpp:");
}

// Only block (2,1,0) diverges: the report must name that block and the 3-D coordinates.
__global__ void sync_one_block_diverges_kernel() {
    if (blockIdx.x == 2 && blockIdx.y == 1 && threadIdx.z == 1) return;
    __syncthreads();
}

TEST(the_diverging_block_and_3d_threads_are_named) {
    CHECK_THROWS_WITH(launch(sync_one_block_diverges_kernel, dim3(3, 2), dim3(4, 2, 2), 0, nullptr),
                      "block (2,1,0) of grid (3,2,1), block size (4,2,2)",
                      "threads 0-7 (0,0,0)-(3,1,0) wait at __syncthreads", "threads 8-15 (0,0,1)-(3,1,1) exited");
}

// Lane 0 waits for the block while the rest of its warp waits for lane 0 in __syncwarp.
__global__ void sync_deadlock_kernel() {
    if (threadIdx.x == 0)
        __syncthreads();
    else
        __syncwarp();
}

TEST(a_deadlock_is_reported_not_hung) {
    CHECK_THROWS_WITH(launch(sync_deadlock_kernel, dim3(1), dim3(32), 0, nullptr),
                      "deadlock: every live thread of the block waits and none can continue",
                      "thread 0 wait at __syncthreads", "threads 1-31 wait at __syncwarp(mask 0xffffffff)");
    // The layer is usable again after an error.
    std::vector<int> out(64);
    launch(sync_rotate_kernel, dim3(1), dim3(64), 0, nullptr, out.data());
    CHECK_EQ(out[5], 10);
}

__global__ void sync_throwing_kernel(int* out) {
    out[threadIdx.x] = 1;
    __syncthreads();
    if (threadIdx.x == 77) throw std::out_of_range("index 77 out of range");
    __syncthreads();
    out[threadIdx.x] = 2;
}

TEST(an_exception_in_a_kernel_reaches_the_caller) {
    std::vector<int> out(128, 0);
    bool caught = false;
    try {
        launch(sync_throwing_kernel, dim3(1), dim3(128), 0, nullptr, out.data());
    } catch (const std::out_of_range& e) {
        caught = std::string(e.what()) == "index 77 out of range";
    }
    CHECK(caught);
    CHECK_EQ(out[0], 1);  // nobody passed the second barrier
    CHECK_EQ(out[127], 1);
}

// Records the order in which threads first run.
__global__ void sync_order_kernel(unsigned* order, unsigned* next) {
    order[atomicAdd(next, 1u)] = threadIdx.x;
}

TEST(schedules_set_the_order_threads_run_in) {
#if defined(CARBON_HOST_EXECUTOR_THREADS)
    SKIP("the thread build leaves the order to the OS");
#endif
    const unsigned n = 64;
    auto run = [&](carbon::host::Schedule s, std::uint64_t seed) {
        carbon::host::set_schedule(s, seed);
        std::vector<unsigned> order(n, 999);
        unsigned next = 0;
        launch(sync_order_kernel, dim3(1), dim3(n), 0, nullptr, order.data(), &next);
        return order;
    };
    const auto forward = run(carbon::host::Schedule::Forward, 0);
    const auto reverse = run(carbon::host::Schedule::Reverse, 0);
    const auto shuffled = run(carbon::host::Schedule::Shuffled, 42);
    const auto again = run(carbon::host::Schedule::Shuffled, 42);
    carbon::host::set_schedule(carbon::host::Schedule::Forward);
    for (unsigned t = 0; t < n; ++t) {
        CHECK_EQ(forward[t], t);
        CHECK_EQ(reverse[t], n - 1 - t);
    }
    CHECK(shuffled == again);
    CHECK(shuffled != forward);
    auto sorted = shuffled;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == forward);
    // A correct kernel gives the same result in any order.
    carbon::host::set_schedule(carbon::host::Schedule::Shuffled, 7);
    std::vector<int> out(256 * 2);
    launch(sync_rotate_kernel, dim3(2), dim3(256), 0, nullptr, out.data());
    carbon::host::set_schedule(carbon::host::Schedule::Forward);
    for (unsigned t = 0; t < 256; ++t) CHECK_EQ(out[256 + t], static_cast<int>(2 * (t + 1000)));
}

TEST(device_functions_outside_a_kernel_are_refused) {
    CHECK_THROWS_WITH(__syncthreads(), "__syncthreads used outside a kernel launched through carbon::kern::launch");
    CHECK_THROWS_WITH(__shfl_sync(0xffffffffu, 1, 0), "__shfl_sync used outside a kernel");
}

__global__ void sync_inner_kernel() {}
__global__ void sync_outer_kernel() {
    launch(sync_inner_kernel, dim3(1), dim3(1), 0, nullptr);
}

TEST(launches_from_device_code_are_refused) {
    CHECK_THROWS_WITH(launch(sync_outer_kernel, dim3(1), dim3(4), 0, nullptr), "sync_inner_kernel",
                      "launched from inside kernel 'sync_outer_kernel()'", "dynamic parallelism");
}

// Launches from several OS threads at once are independent (fiber builds) or take turns (threads).
TEST(concurrent_launches_from_two_host_threads) {
    std::vector<int> a(4 * 128), b(4 * 128);
    std::thread other([&] { launch(sync_rotate_kernel, dim3(4), dim3(128), 0, nullptr, a.data()); });
    launch(sync_rotate_kernel, dim3(4), dim3(128), 0, nullptr, b.data());
    other.join();
    CHECK(a == b);
    CHECK_EQ(a[3 * 128 + 5], static_cast<int>(2 * (5 + 3000)));
}
