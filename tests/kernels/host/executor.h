// Host execution layer, the executor seam: how one block's CUDA threads are run and suspended.
// Exactly one of executor_fibers.cpp (Boost.Context or ucontext switching) or executor_threads.cpp
// is linked into each build of the layer; CMake picks it (CARBON_HOST_EXECUTOR_*).
#pragma once

#include "host_runtime.h"

namespace carbon::host::detail {

// "boost-context", "ucontext" or "threads".
const char* executor_name();

// Runs every thread of `block` (Block::run_thread) until all have finished. When a thread records
// an error the executor lets every other thread unwind (they see block.aborted()) and returns; the
// caller rethrows block.error().
void executor_run_block(Block& block);

// Suspends the calling CUDA thread until another thread released it (self.waiting is false).
// Thread build: `lock` holds block.mutex() on entry and on return. Throws BlockAborted when the
// block is being abandoned.
void executor_wait(Block& block, CudaThread& self, BlockLock& lock);

// Makes a released thread runnable again (called with the block lock held).
void executor_wake(Block& block, CudaThread& t);

// Lets other CUDA threads of the block run: spin loops (a failed atomicCAS, __nanosleep) call it so
// that a lock held by another fiber can be released. Throws BlockAborted when the block is abandoned.
void executor_yield();

}  // namespace carbon::host::detail
