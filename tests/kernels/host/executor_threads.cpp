// Host execution layer, thread executor (CARBON_HOST_EXECUTOR_THREADS): one OS thread per CUDA thread
// of a block, from a pool that outlives launches, with real blocking waits under the block's mutex.
// Slow, but ThreadSanitizer sees every access as it would on the GPU: the build used under TSan.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "executor.h"
#include "launch_state.h"

namespace carbon::host::detail {
namespace {

struct Worker {
    std::thread thread;
    std::mutex mutex;  // guards job and stop
    std::condition_variable has_job;
    Block* job = nullptr;
    bool stop = false;
    std::condition_variable released;  // executor_wait, used with the block's mutex
};

class Pool {
public:
    ~Pool() {
        for (auto& w : workers_) {
            {
                std::lock_guard lock(w->mutex);
                w->stop = true;
            }
            w->has_job.notify_one();
        }
        for (auto& w : workers_) w->thread.join();
    }

    void run(Block& block) {
        std::lock_guard serial(serial_);  // blocks from different launching threads take turns
        const unsigned n = block.size();
        while (workers_.size() < n) {
            auto w = std::make_unique<Worker>();
            Worker* raw = w.get();
            const auto index = static_cast<unsigned>(workers_.size());
            w->thread = std::thread([this, raw, index] { loop(*raw, index); });
            workers_.push_back(std::move(w));
        }
        {
            std::lock_guard lock(done_mutex_);
            remaining_ = n;
        }
        for (unsigned i = 0; i < n; ++i) {
            Worker& w = *workers_[i];
            block.thread(i).executor = &w.released;
            {
                std::lock_guard lock(w.mutex);
                w.job = &block;
            }
            w.has_job.notify_one();
        }
        std::unique_lock done(done_mutex_);
        all_done_.wait(done, [this] { return remaining_ == 0; });
    }

private:
    void loop(Worker& w, unsigned index) {
        for (;;) {
            Block* block = nullptr;
            {
                std::unique_lock lock(w.mutex);
                w.has_job.wait(lock, [&] { return w.job != nullptr || w.stop; });
                if (w.job == nullptr) return;
                block = std::exchange(w.job, nullptr);
            }
            CudaThread& t = block->thread(index);
            tl_block = block;
            tl_thread = &t;
            threadIdx = t.idx;
            blockIdx = block->block_idx();
            blockDim = block->launch().block();
            gridDim = block->launch().grid();
            block->run_thread(t);
            tl_block = nullptr;
            tl_thread = nullptr;
            std::lock_guard lock(done_mutex_);
            if (--remaining_ == 0) all_done_.notify_one();
        }
    }

    std::mutex serial_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::mutex done_mutex_;
    std::condition_variable all_done_;
    unsigned remaining_ = 0;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

const char* executor_name() {
    return "threads";
}

void executor_run_block(Block& block) {
    pool().run(block);
}

void executor_wait(Block& block, CudaThread& self, BlockLock& lock) {
    auto* released = static_cast<std::condition_variable*>(self.executor);
    released->wait(lock, [&] { return !self.waiting || block.aborted(); });
    if (block.aborted()) throw BlockAborted{};
}

void executor_wake(Block& /*block*/, CudaThread& t) {
    static_cast<std::condition_variable*>(t.executor)->notify_one();
}

void executor_yield() {
    if (tl_block != nullptr && tl_block->aborted()) throw BlockAborted{};
    std::this_thread::yield();
}

}  // namespace carbon::host::detail
