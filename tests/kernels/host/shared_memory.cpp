// Host execution layer, shared memory: one launch's dynamic buffer and CARBON_SHARED slots, junk-
// filled per block, with the static and total shared-memory limits checked as slots are allocated.
#include "shared_memory.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

#include "launch_state.h"

namespace carbon::host::detail {
namespace {

std::atomic<unsigned> g_next_site{0};
constexpr std::size_t kDynamicAlign = 128;

}  // namespace

SharedSite::SharedSite(std::size_t bytes, std::size_t align, const char* name, std::source_location where)
    : id_(g_next_site.fetch_add(1, std::memory_order_relaxed)),
      bytes_(bytes),
      align_(align),
      name_(name),
      where_(where) {}

void* SharedSite::storage() const {
    if (tl_block == nullptr) not_in_kernel("CARBON_SHARED");
    return tl_block->launch().static_slot(*this);
}

void* dynamic_smem() {
    if (tl_block == nullptr) not_in_kernel("CARBON_DYNAMIC_SMEM");
    return tl_block->launch().dynamic_smem();
}

LaunchState::LaunchState(KernelId kernel_id, dim3 grid_dims, dim3 block_dims, std::size_t dynamic_bytes,
                         std::size_t smem_total_limit, Thunk body)
    : kernel_(kernel_id),
      grid_(grid_dims),
      block_(block_dims),
      dynamic_bytes_(dynamic_bytes),
      smem_total_limit_(smem_total_limit),
      thunk_(body) {
    // Exactly the requested size, so that AddressSanitizer reports a read past its end.
    dynamic_ = ::operator new (dynamic_bytes_, std::align_val_t{kDynamicAlign});
}

LaunchState::~LaunchState() {
    ::operator delete (dynamic_, std::align_val_t{kDynamicAlign});
    for (auto& s : slots_)
        if (s.p != nullptr) ::operator delete (s.p, std::align_val_t{s.align});
}

void LaunchState::begin_block() {
    ++epoch_;
    if (dynamic_bytes_ > 0) std::memset(dynamic_, kJunkByte, dynamic_bytes_);
}

void* LaunchState::static_slot(const SharedSite& site) {
    BlockLock lock(mutex_);
    if (site.id() >= slots_.size()) slots_.resize(site.id() + 1);
    Slot& slot = slots_[site.id()];
    if (slot.p == nullptr) {
        static_bytes_ += site.bytes();
        const DeviceLimits limits = device_limits();
        const std::string where = std::string("CARBON_SHARED '") + site.name() + "' (" + site.where().file_name() +
                                  ":" + std::to_string(site.where().line()) + ")";
        if (static_bytes_ > limits.static_smem_max)
            tl_block->fail(where + " brings static shared memory to " + std::to_string(static_bytes_) +
                           " bytes; the limit is " + std::to_string(limits.static_smem_max));
        if (static_bytes_ + dynamic_bytes_ > smem_total_limit_)
            tl_block->fail(where + " brings shared memory to " + std::to_string(static_bytes_) + " static + " +
                           std::to_string(dynamic_bytes_) + " dynamic bytes; this kernel may use " +
                           std::to_string(smem_total_limit_) + " in all");
        slot.align = std::max<std::size_t>(site.align(), alignof(std::max_align_t));
        slot.bytes = site.bytes();
        slot.p = ::operator new (slot.bytes, std::align_val_t{slot.align});
    }
    if (slot.epoch != epoch_) {
        std::memset(slot.p, kJunkByte, slot.bytes);
        slot.epoch = epoch_;
    }
    return slot.p;
}

}  // namespace carbon::host::detail
