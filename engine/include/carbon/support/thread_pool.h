// A fixed pool of worker threads for the CPU backend's data-parallel loops. Workers spin briefly
// before sleeping, because a decode step issues a few hundred short parallel loops per token and
// a condition-variable wake-up for each would cost more than the loop itself.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace carbon {

// Hardware threads this process may run on: its CPU affinity (which containers and taskset
// narrow), else what the system reports.
int usable_cpus();

class ThreadPool {
public:
    // n_threads <= 0: all hardware threads. The calling thread takes part, so a pool of n runs
    // n - 1 workers.
    explicit ThreadPool(int n_threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return n_threads_; }
    // Empty, or why fewer threads run than were requested (the system refused to start more).
    const std::string& shortfall() const { return shortfall_; }

    // Calls fn(begin, end, thread_index) over [0, n) split into chunks of at least `grain`
    // items; returns when all are done. Not reentrant: fn must not call parallel_for.
    void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t, int)>& fn);

private:
    void worker_loop(int index);
    void run_chunks(int thread_index);

    int n_threads_ = 1;
    std::string shortfall_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> busy_{0};
    std::atomic<size_t> next_{0};
    std::atomic<bool> stop_{false};
    const std::function<void(size_t, size_t, int)>* job_ = nullptr;
    size_t job_n_ = 0, job_chunk_ = 1;
};

}  // namespace carbon
