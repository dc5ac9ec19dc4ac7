// Host execution layer, fiber executor: a block's CUDA threads as fibers on the launching OS thread,
// resumed round-robin (in the order set_schedule chose) until every one has finished. A thread runs
// until it waits at a rendezvous or yields; the thread that completes a rendezvous goes on running.
#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "executor.h"
#include "fiber_switch.h"
#include "launch_state.h"

namespace carbon::host::detail {
namespace {

struct Scheduler {
    std::vector<std::unique_ptr<FiberSwitch>> fibers;  // by linear thread index; addresses stay put
    std::vector<std::unique_ptr<FiberStack>> stacks;
#if defined(CARBON_HOST_EXECUTOR_UCONTEXT)
    ucontext_t context{};
#endif
    std::vector<unsigned> order;
    FiberSwitch* current = nullptr;
};
thread_local Scheduler tl_scheduler;

void schedule_order(std::vector<unsigned>& order, unsigned n, uint3 block_idx) {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
    const ScheduleSetting s = schedule_setting();
    if (s.schedule == Schedule::Reverse) std::reverse(order.begin(), order.end());
    if (s.schedule == Schedule::Shuffled) {
        std::mt19937_64 rng(s.seed ^ (0x9E3779B97F4A7C15ull * (1ull + block_idx.x + 65536ull * block_idx.y +
                                                               65536ull * 65536ull * block_idx.z)));
        std::shuffle(order.begin(), order.end(), rng);
    }
}

}  // namespace

const char* executor_name() {
#if defined(CARBON_HOST_EXECUTOR_BOOST)
    return "boost-context";
#else
    return "ucontext";
#endif
}

void executor_run_block(Block& block) {
    Scheduler& s = tl_scheduler;
    const unsigned n = block.size();
    while (s.fibers.size() < n) {
        s.fibers.push_back(std::make_unique<FiberSwitch>());
        s.stacks.push_back(std::make_unique<FiberStack>(kFiberStackBytes));
    }
    void* scheduler_context = nullptr;
#if defined(CARBON_HOST_EXECUTOR_UCONTEXT)
    scheduler_context = &s.context;
#endif
    for (unsigned i = 0; i < n; ++i) s.fibers[i]->prepare(block, block.thread(i), *s.stacks[i], scheduler_context);
    schedule_order(s.order, n, block.block_idx());

    unsigned finished = 0;
    bool abandoning = false;  // after an error: resume each unfinished thread once more so that it unwinds
    while (finished < n) {
        bool progressed = false;
        for (const unsigned i : s.order) {
            FiberSwitch& f = *s.fibers[i];
            CudaThread& t = block.thread(i);
            if (f.finished() || !(t.runnable || abandoning)) continue;
            tl_thread = &t;
            threadIdx = t.idx;
            s.current = &f;
            f.resume();
            progressed = true;
            if (f.finished()) ++finished;
            if (block.aborted()) abandoning = true;
        }
        if (!progressed) {
            // Block::check_deadlock reports every stall first; reaching this is a bug in the layer.
            block.abort(std::make_exception_ptr(KernelFault(
                block.context() +
                ": internal error: no thread can run but no deadlock was reported: " + block.describe_threads())));
            abandoning = true;
        }
    }
    tl_thread = nullptr;
    s.current = nullptr;
}

void executor_wait(Block& block, CudaThread& self, BlockLock& /*lock*/) {
    self.runnable = false;
    while (self.waiting && !block.aborted()) tl_scheduler.current->suspend();
    if (block.aborted()) throw BlockAborted{};
}

void executor_wake(Block& /*block*/, CudaThread& t) {
    t.runnable = true;
}

void executor_yield() {
    Scheduler& s = tl_scheduler;
    if (s.current == nullptr || tl_block == nullptr) return;
    if (tl_block->aborted()) throw BlockAborted{};
    s.current->suspend();
    if (tl_block->aborted()) throw BlockAborted{};
}

}  // namespace carbon::host::detail
