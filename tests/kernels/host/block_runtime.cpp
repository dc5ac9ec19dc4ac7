// Host execution layer, block runtime: the rendezvous behind __syncthreads and the warp collectives,
// thread exit, and the diagnosis of deadlocks and divergent barriers (model: host_runtime.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "executor.h"
#include "launch_state.h"

namespace carbon::host::detail {

const char* op_name(Op op) {
    switch (op) {
        case Op::None:
            return "(nothing)";
        case Op::SyncThreads:
            return "__syncthreads";
        case Op::SyncThreadsCount:
            return "__syncthreads_count";
        case Op::SyncThreadsAnd:
            return "__syncthreads_and";
        case Op::SyncThreadsOr:
            return "__syncthreads_or";
        case Op::SyncWarp:
            return "__syncwarp";
        case Op::Shfl:
            return "__shfl_sync";
        case Op::ShflUp:
            return "__shfl_up_sync";
        case Op::ShflDown:
            return "__shfl_down_sync";
        case Op::ShflXor:
            return "__shfl_xor_sync";
        case Op::Ballot:
            return "__ballot_sync";
        case Op::Any:
            return "__any_sync";
        case Op::All:
            return "__all_sync";
        case Op::ReduceAddU:
        case Op::ReduceAddI:
            return "__reduce_add_sync";
        case Op::ReduceMinU:
        case Op::ReduceMinI:
            return "__reduce_min_sync";
        case Op::ReduceMaxU:
        case Op::ReduceMaxI:
            return "__reduce_max_sync";
        case Op::ReduceAndU:
            return "__reduce_and_sync";
        case Op::ReduceOrU:
            return "__reduce_or_sync";
        case Op::ReduceXorU:
            return "__reduce_xor_sync";
    }
    return "?";
}

void not_in_kernel(const char* what) {
    throw KernelFault(std::string(what) + " used outside a kernel launched through carbon::kern::launch");
}

namespace {

bool is_shuffle(Op op) {
    return op >= Op::Shfl && op <= Op::ShflXor;
}

bool same_site(const std::source_location& a, const std::source_location& b) {
    return a.line() == b.line() && a.column() == b.column() && std::strcmp(a.file_name(), b.file_name()) == 0;
}

std::string site(const std::source_location& where) {
    std::string_view file = where.file_name();
    if (const auto slash = file.find_last_of('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
    return std::string(file) + ":" + std::to_string(where.line());
}

std::string dims(unsigned x, unsigned y, unsigned z) {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

std::string hex_mask(unsigned mask) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", mask);
    return buf;
}

// The lane whose value a shuffle returns to `lane`, as PTX's shfl.sync computes it from the operand
// b (only its low 5 bits count) and c = ((32 - width) << 8) | clamp, where clamp is 0 for .up and
// 31 otherwise; an out-of-range source means the lane's own value.
unsigned source_lane(Op op, unsigned lane, int operand, int width) {
    const unsigned segmask = static_cast<unsigned>(32 - width);
    const unsigned clamp = op == Op::ShflUp ? 0u : 0x1fu;
    const unsigned b = static_cast<unsigned>(operand) & 0x1fu;
    const unsigned min_lane = lane & segmask;
    const unsigned max_lane = min_lane | (clamp & ~segmask);
    switch (op) {
        case Op::ShflUp: {
            const int j = static_cast<int>(lane) - static_cast<int>(b);
            return j >= static_cast<int>(max_lane) ? static_cast<unsigned>(j) : lane;
        }
        case Op::ShflDown:
            return lane + b <= max_lane ? lane + b : lane;
        case Op::ShflXor:
            return (lane ^ b) <= max_lane ? (lane ^ b) : lane;
        default:
            return min_lane | (b & ~segmask);  // .idx: always inside the segment
    }
}

}  // namespace

void Block::reset(LaunchState& launch, uint3 block_idx) {
    launch_ = &launch;
    block_idx_ = block_idx;
    const dim3 b = launch.block();
    threads_.assign(static_cast<std::size_t>(b.x) * b.y * b.z, CudaThread{});
    unsigned linear = 0;
    for (unsigned z = 0; z < b.z; ++z)
        for (unsigned y = 0; y < b.y; ++y)
            for (unsigned x = 0; x < b.x; ++x, ++linear) {
                threads_[linear].idx = uint3{x, y, z};
                threads_[linear].linear = linear;
            }
    waiting_ = exited_ = bar_arrived_ = bar_count_ = 0;
    warp_waiting_.assign((size() + 31) / 32, 0);
    warp_exited_.assign((size() + 31) / 32, 0);
    aborted_.store(false, std::memory_order_release);
    error_ = nullptr;
}

void Block::run_thread(CudaThread& t) noexcept {
    try {
        if (aborted()) return;
        t.started = true;
        launch_->thunk().invoke(launch_->thunk().bound);
        thread_exited(t);
    } catch (const BlockAborted&) {
    } catch (...) {
        abort(std::current_exception());
    }
}

void Block::abort(std::exception_ptr e) {
    BlockLock lock(mutex_);
    if (!error_) error_ = std::move(e);
    aborted_.store(true, std::memory_order_release);
    for (auto& t : threads_)
        if (t.waiting) executor_wake(*this, t);
}

void Block::release(CudaThread& t, CudaThread* self) {
    t.waiting = false;
    --waiting_;
    if (!is_block_op(t.op)) --warp_waiting_[t.linear / 32];
    if (&t != self) executor_wake(*this, t);
}

std::uint64_t Block::block_barrier(CudaThread& self, Op op, int predicate, std::source_location where) {
    BlockLock lock(mutex_);
    if (aborted()) throw BlockAborted{};
    self.atomics_since_sync = 0;
    self.op = op;
    self.where = where;
    self.waiting = true;
    ++waiting_;
    ++bar_arrived_;
    bar_count_ += predicate != 0 ? 1u : 0u;
    if (bar_arrived_ == size()) {
        for (const auto& t : threads_)
            if (t.op != threads_[0].op || !same_site(t.where, threads_[0].where)) fail_divergent_barrier();
        const std::uint64_t count = bar_count_;
        bar_arrived_ = bar_count_ = 0;
        for (auto& t : threads_) {
            t.result = count;
            release(t, &self);
        }
        return count;
    }
    check_deadlock();
    executor_wait(*this, self, lock);
    return self.result;
}

std::uint64_t Block::warp_collective(CudaThread& self, Op op, unsigned mask, int width, int operand,
                                     std::uint64_t value, std::source_location where) {
    BlockLock lock(mutex_);
    if (aborted()) throw BlockAborted{};
    const unsigned lane = self.linear % 32;
    if (!(mask >> lane & 1u))
        fail("thread " + std::to_string(self.linear) + " (lane " + std::to_string(lane) + ") calls " + op_name(op) +
             " at " + site(where) + " with mask " + hex_mask(mask) + ", which does not name its own lane");
    if (is_shuffle(op) && (width < 1 || width > 32 || (width & (width - 1)) != 0))
        fail("thread " + std::to_string(self.linear) + " calls " + op_name(op) + " at " + site(where) + " with width " +
             std::to_string(width) + ": the width must be a power of two from 1 to 32");
    self.atomics_since_sync = 0;
    self.op = op;
    self.mask = mask;
    self.width = width;
    self.operand = operand;
    self.value = value;
    self.where = where;
    self.waiting = true;
    ++waiting_;
    ++warp_waiting_[self.linear / 32];
    if (try_complete_warp(self.linear / 32, op, mask, &self)) return self.result;
    check_deadlock();
    executor_wait(*this, self, lock);
    return self.result;
}

// Completes the collective (op, mask) of warp `warp` when every live lane it names has arrived at it:
// computes each participant's result and releases them. Lanes that exited (or do not exist in a
// partial last warp) do not take part; a shuffle that reads one gets junk (all bits set).
bool Block::try_complete_warp(unsigned warp, Op op, unsigned mask, CudaThread* self) {
    const unsigned base = warp * 32;
    const unsigned lanes = std::min(32u, size() - base);
    const unsigned existing = lanes == 32 ? ~0u : (1u << lanes) - 1;
    if (warp_waiting_[warp] + warp_exited_[warp] < static_cast<unsigned>(__builtin_popcount(mask & existing)))
        return false;
    unsigned participants = 0;
    for (unsigned l = 0; l < lanes; ++l) {
        if (!(mask >> l & 1u)) continue;
        const CudaThread& u = threads_[base + l];
        if (u.exited) continue;
        if (!u.waiting || u.op != op || u.mask != mask) return false;
        participants |= 1u << l;
    }
    if (participants == 0) return false;
    auto each = [&](auto&& fn) {
        for (unsigned l = 0; l < lanes; ++l)
            if (participants >> l & 1u) fn(l, threads_[base + l]);
    };
    std::uint64_t all = 0;  // ballot bits, or the reduction
    switch (op) {
        case Op::Shfl:
        case Op::ShflUp:
        case Op::ShflDown:
        case Op::ShflXor: {
            const int width = threads_[base + static_cast<unsigned>(__builtin_ctz(participants))].width;
            each([&](unsigned l, CudaThread& u) {
                if (u.width != width)
                    fail(std::string("the lanes of warp ") + std::to_string(warp) + " call " + op_name(op) + " at " +
                         site(u.where) + " with different widths (" + std::to_string(width) + " and " +
                         std::to_string(u.width) + ")");
                const unsigned src = source_lane(op, l, u.operand, u.width);
                u.result = (participants >> src & 1u) ? threads_[base + src].value : ~std::uint64_t{0};
            });
            break;
        }
        case Op::Ballot:
        case Op::Any:
        case Op::All:
            each([&](unsigned l, CudaThread& u) { all |= (u.value != 0 ? 1ull : 0ull) << l; });
            each([&](unsigned, CudaThread& u) {
                u.result = op == Op::Ballot ? all : op == Op::Any ? (all != 0) : (all == participants);
            });
            break;
        case Op::ReduceAddU:
        case Op::ReduceAddI:
            each([&](unsigned, CudaThread& u) { all = static_cast<std::uint32_t>(all + u.value); });
            break;
        case Op::ReduceMinU:
            all = ~0u;
            each([&](unsigned, CudaThread& u) { all = std::min(all, u.value); });
            break;
        case Op::ReduceMaxU:
            each([&](unsigned, CudaThread& u) { all = std::max(all, u.value); });
            break;
        case Op::ReduceMinI:
        case Op::ReduceMaxI: {
            bool first = true;
            std::int32_t r = 0;
            each([&](unsigned, CudaThread& u) {
                const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(u.value));
                r = first ? v : op == Op::ReduceMinI ? std::min(r, v) : std::max(r, v);
                first = false;
            });
            all = static_cast<std::uint32_t>(r);
            break;
        }
        case Op::ReduceAndU:
            all = ~0u;
            each([&](unsigned, CudaThread& u) { all &= u.value; });
            break;
        case Op::ReduceOrU:
            each([&](unsigned, CudaThread& u) { all |= u.value; });
            break;
        case Op::ReduceXorU:
            each([&](unsigned, CudaThread& u) { all ^= u.value; });
            break;
        default:
            break;  // __syncwarp: nothing to compute
    }
    if (op >= Op::ReduceAddU) each([&](unsigned, CudaThread& u) { u.result = all; });
    each([&](unsigned, CudaThread& u) { release(u, self); });
    return true;
}

void Block::thread_exited(CudaThread& t) {
    BlockLock lock(mutex_);
    t.exited = true;
    ++exited_;
    ++warp_exited_[t.linear / 32];
    if (waiting_ == 0) return;
    // Warp collectives that named this lane may now have every live lane.
    const unsigned warp = t.linear / 32, lane = t.linear % 32;
    const unsigned base = warp * 32, lanes = std::min(32u, size() - base);
    for (unsigned l = 0; l < lanes; ++l) {
        const CudaThread& u = threads_[base + l];
        if (u.waiting && !is_block_op(u.op) && (u.mask >> lane & 1u)) try_complete_warp(warp, u.op, u.mask, nullptr);
    }
    check_deadlock();
}

// Every live thread waits and no rendezvous completed: nothing can ever move again.
void Block::check_deadlock() {
    if (waiting_ == 0 || waiting_ + exited_ != size()) return;
    bool at_barrier = false;
    for (const auto& t : threads_) at_barrier = at_barrier || (t.waiting && is_block_op(t.op));
    if (at_barrier && exited_ > 0)
        fail(
            "divergent __syncthreads: not every thread of the block reaches it (a thread that exited never "
            "arrives): " +
            describe_threads());
    fail("deadlock: every live thread of the block waits and none can continue: " + describe_threads());
}

void Block::fail_divergent_barrier() const {
    fail("divergent __syncthreads: the threads of the block wait at different barriers: " + describe_threads());
}

std::string Block::describe_wait(const CudaThread& t) const {
    if (t.exited) return "exited";
    if (!t.started) return "not started";
    if (!t.waiting) return "running";
    std::string s = std::string("wait at ") + op_name(t.op);
    if (!is_block_op(t.op)) s += "(mask " + hex_mask(t.mask) + ")";
    return s + " (" + site(t.where) + ")";
}

// "threads 0-31 wait at __syncthreads (k.cu:12); threads 32-63 exited": consecutive threads in the
// same state form one group; 2-D and 3-D blocks also show the groups' first and last coordinates.
std::string Block::describe_threads() const {
    const dim3 b = launch_->block();
    const bool multi_dim = b.y > 1 || b.z > 1;
    std::string out;
    int groups = 0;
    for (unsigned first = 0; first < size();) {
        const std::string what = describe_wait(threads_[first]);
        unsigned last = first;
        while (last + 1 < size() && describe_wait(threads_[last + 1]) == what) ++last;
        if (++groups > 16) {
            out += "; ...";
            break;
        }
        if (!out.empty()) out += "; ";
        out += first == last ? "thread " + std::to_string(first)
                             : "threads " + std::to_string(first) + "-" + std::to_string(last);
        if (multi_dim) {
            const uint3 a = threads_[first].idx, c = threads_[last].idx;
            out += " " + dims(a.x, a.y, a.z) + (first == last ? "" : "-" + dims(c.x, c.y, c.z));
        }
        out += " " + what;
        first = last + 1;
    }
    return out;
}

std::string Block::context() const {
    const dim3 g = launch_->grid(), b = launch_->block();
    return "kernel '" + kernel_name(launch_->kernel()) + "', block " + dims(block_idx_.x, block_idx_.y, block_idx_.z) +
           " of grid " + dims(g.x, g.y, g.z) + ", block size " + dims(b.x, b.y, b.z);
}

void Block::fail(const std::string& what) const {
    throw KernelFault(context() + ": " + what);
}

}  // namespace carbon::host::detail
