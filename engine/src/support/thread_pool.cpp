// ThreadPool: chunked parallel_for with spin-then-sleep workers (see thread_pool.h).
#include "carbon/support/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <string>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CARBON_CPU_RELAX() _mm_pause()
#else
#define CARBON_CPU_RELAX() ((void)0)
#endif

namespace carbon {

namespace {
// Spin budgets, in pause instructions (tens of cycles each): long enough to bridge the gap
// between two parallel loops of one forward pass, short enough not to burn a core when idle.
constexpr int kWorkerSpins = 4000;
constexpr int kMainSpins = 2000;
}  // namespace

int usable_cpus() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool::ThreadPool(int n_threads) {
    if (n_threads <= 0) n_threads = usable_cpus();
    // Workers that cannot start (a per-process memory or thread limit: each thread reserves a
    // stack) are not an error: the pool runs with those that did, and says so (shortfall()).
    workers_.reserve(size_t(n_threads - 1));
    for (int i = 1; i < n_threads; ++i) {
        try {
            workers_.emplace_back([this, i] { worker_loop(i); });
        } catch (const std::system_error& e) {
            shortfall_ = "only " + std::to_string(i) + " of the " + std::to_string(n_threads) +
                         " requested threads could start (" + e.what() + ")";
            break;
        }
    }
    n_threads_ = int(workers_.size()) + 1;
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
        generation_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::run_chunks(int thread_index) {
    const auto& fn = *job_;
    for (;;) {
        size_t begin = next_.fetch_add(job_chunk_);
        if (begin >= job_n_) break;
        fn(begin, std::min(job_n_, begin + job_chunk_), thread_index);
    }
}

void ThreadPool::worker_loop(int index) {
    uint64_t seen = 0;
    for (;;) {
        // Spin for a short while: the next parallel loop usually follows within microseconds.
        int spins = 0;
        while (generation_.load(std::memory_order_acquire) == seen && spins < kWorkerSpins) {
            CARBON_CPU_RELAX();
            ++spins;
        }
        if (generation_.load(std::memory_order_acquire) == seen) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load() != seen; });
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load()) return;
        run_chunks(index);
        busy_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

void ThreadPool::parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t, int)>& fn) {
    if (n == 0) return;
    grain = std::max<size_t>(grain, 1);
    if (n_threads_ == 1 || n <= grain) {
        fn(0, n, 0);
        return;
    }
    // About four chunks per thread balances uneven chunks without much contention.
    size_t chunk = std::max(grain, (n + size_t(n_threads_) * 4 - 1) / (size_t(n_threads_) * 4));
    job_ = &fn;
    job_n_ = n;
    job_chunk_ = chunk;
    next_.store(0);
    busy_.store(n_threads_ - 1);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_chunks(0);
    // Wait for the workers; yield after a short spin, because on a loaded machine (or with more
    // threads than free cores) a descheduled worker would otherwise cost a whole time slice.
    for (int spins = 0; busy_.load(std::memory_order_acquire) != 0; ++spins) {
        if (spins < kMainSpins) CARBON_CPU_RELAX();
        else std::this_thread::yield();
    }
    job_ = nullptr;
}

}  // namespace carbon
