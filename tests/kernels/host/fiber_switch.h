// Host execution layer, context switching for the fiber executor: one FiberSwitch per CUDA thread,
// built on Boost.Context (CARBON_HOST_EXECUTOR_BOOST: a few instructions per switch) or on glibc's
// ucontext (CARBON_HOST_EXECUTOR_UCONTEXT: a signal-mask system call per switch, but the one that
// AddressSanitizer follows through the __sanitizer_*_switch_fiber annotations below).
#pragma once

#include <stdexcept>

#include "fiber_stack.h"
#include "host_runtime.h"

#if defined(CARBON_HOST_EXECUTOR_BOOST)
#include <boost/context/fiber.hpp>
#elif defined(CARBON_HOST_EXECUTOR_UCONTEXT)
#include <ucontext.h>

#include <cstdint>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#else
#error "fiber_switch.h: define CARBON_HOST_EXECUTOR_BOOST or CARBON_HOST_EXECUTOR_UCONTEXT"
#endif

namespace carbon::host::detail {

#if defined(CARBON_HOST_EXECUTOR_BOOST)

// Hands Boost one of the pooled stacks; the pool keeps ownership.
struct PooledStack {
    FiberStack* stack;
    boost::context::stack_context allocate() {
        boost::context::stack_context sc;
        sc.size = stack->size();
        sc.sp = stack->top();
        return sc;
    }
    void deallocate(boost::context::stack_context&) noexcept {}
};

class FiberSwitch {
public:
    // Prepares a fiber that runs block.run_thread(t) on `stack` when first resumed.
    void prepare(Block& block, CudaThread& t, FiberStack& stack, void* /*scheduler*/) {
        if (self_) throw std::logic_error("FiberSwitch::prepare: the previous fiber did not finish");
        finished_ = false;
        self_ = boost::context::fiber(std::allocator_arg, PooledStack{&stack},
                                      [this, &block, &t](boost::context::fiber&& back) {
                                          back_ = std::move(back);
                                          block.run_thread(t);  // noexcept: nothing unwinds past here
                                          finished_ = true;
                                          return std::move(back_);
                                      });
    }
    // Scheduler side: runs the fiber until it suspends or finishes.
    void resume() { self_ = std::move(self_).resume(); }
    // Fiber side: back to the scheduler until the next resume().
    void suspend() { back_ = std::move(back_).resume(); }
    bool finished() const { return finished_; }

private:
    boost::context::fiber self_;
    boost::context::fiber back_;
    bool finished_ = true;
};

#else  // ucontext

class FiberSwitch {
public:
    // `scheduler`: the ucontext_t the scheduler's side of every switch saves into.
    void prepare(Block& block, CudaThread& t, FiberStack& stack, void* scheduler) {
        block_ = &block;
        thread_ = &t;
        stack_ = &stack;
        scheduler_ = static_cast<ucontext_t*>(scheduler);
        finished_ = false;
#if defined(__SANITIZE_ADDRESS__)
        // Frames left poisoned by a thread that unwound on this stack must not trip the next one.
        ASAN_UNPOISON_MEMORY_REGION(stack.base(), stack.size());
#endif
        getcontext(&self_);
        self_.uc_stack.ss_sp = stack.base();
        self_.uc_stack.ss_size = stack.size();
        self_.uc_link = nullptr;
        const auto p = reinterpret_cast<std::uintptr_t>(this);
        makecontext(&self_, reinterpret_cast<void (*)()>(&entry), 2, static_cast<unsigned>(p >> 32),
                    static_cast<unsigned>(p & 0xffffffffu));
    }
    void resume() {
        start_switch(&scheduler_fake_stack_, stack_->base(), stack_->size());
        swapcontext(scheduler_, &self_);
        finish_switch(scheduler_fake_stack_, nullptr, nullptr);
    }
    void suspend() {
        start_switch(&fake_stack_, scheduler_bottom_, scheduler_size_);
        swapcontext(&self_, scheduler_);
        finish_switch(fake_stack_, nullptr, nullptr);
    }
    bool finished() const {
        return finished_;
    }

private:
    static void entry(unsigned hi, unsigned lo) {
        auto* self = reinterpret_cast<FiberSwitch*>((static_cast<std::uintptr_t>(hi) << 32) | lo);
        self->finish_switch(nullptr, &self->scheduler_bottom_, &self->scheduler_size_);
        self->block_->run_thread(*self->thread_);
        self->finished_ = true;
        self->start_switch(nullptr, self->scheduler_bottom_, self->scheduler_size_);  // this fiber ends
        setcontext(self->scheduler_);
    }
    // AddressSanitizer must know which stack is live, or it reports false overflows after a switch.
    static void start_switch(void** fake_stack, const void* bottom, std::size_t size) {
#if defined(__SANITIZE_ADDRESS__)
        __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
        (void)fake_stack, (void)bottom, (void)size;
#endif
    }
    static void finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) {
#if defined(__SANITIZE_ADDRESS__)
        __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
        (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
    }

    ucontext_t self_{};
    ucontext_t* scheduler_ = nullptr;
    Block* block_ = nullptr;
    CudaThread* thread_ = nullptr;
    FiberStack* stack_ = nullptr;
    bool finished_ = true;
    void* fake_stack_ = nullptr;
    void* scheduler_fake_stack_ = nullptr;
    const void* scheduler_bottom_ = nullptr;
    std::size_t scheduler_size_ = 0;
};

#endif

}  // namespace carbon::host::detail
