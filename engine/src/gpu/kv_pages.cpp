// The paged KV cache's pool (see kv_pages.h).
#include "gpu/kv_pages.h"

#include <string>

namespace carbon::gpu {

namespace {
constexpr int kFirstPages = 64;
}

KvPages::KvPages(Device& device, int layers, int kv_heads, int head_dim, int page_tokens, DType type)
    : device_(device), pool_(), page_tokens_(page_tokens), type_(type) {
    pool_.bind(device);
    head_elements_ = 1LL * kv_heads * page_tokens * head_dim;
    page_elements_ = 2LL * layers * head_elements_;
}

int KvPages::take(Stream stream) {
    if (free_.empty()) {
        const int grown = capacity_ == 0 ? kFirstPages : capacity_ * 2;
        const std::size_t bytes = std::size_t(grown) * page_bytes();
        DeviceMemory bigger;
        bigger.bind(device_);
        try {
            bigger.reserve(bytes);
        } catch (const Error& e) {
            const MemoryInfo m = device_.memory_info();
            throw carbon::Error("the KV cache needs to grow to " + std::to_string(grown) + " pages of " +
                                std::to_string(page_tokens_) + " tokens (" + std::to_string(bytes >> 20) + " MiB), but " +
                                device_.info().name + " has " + std::to_string(m.free >> 20) + " MiB free of " +
                                std::to_string(m.total >> 20) + " MiB: use fewer or shorter sequences (" + e.what() + ")");
        }
        if (capacity_ > 0) {
            device_.copy_on_device(bigger.get(), pool_.get(), std::size_t(capacity_) * page_bytes(), stream);
            device_.stream_synchronize(stream);
        }
        pool_ = std::move(bigger);
        for (int p = grown - 1; p >= capacity_; --p) free_.push_back(p);
        capacity_ = grown;
    }
    const int page = free_.back();
    free_.pop_back();
    return page;
}

bool KvPages::release_if_unused() {
    if (capacity_ == 0 || int(free_.size()) != capacity_) return false;
    pool_.release();
    free_.clear();
    free_.shrink_to_fit();
    capacity_ = 0;
    return true;
}

void KvPages::copy(int dst, int src, Stream stream) {
    auto* base = static_cast<unsigned char*>(pool_.get());
    device_.copy_on_device(base + std::size_t(dst) * page_bytes(), base + std::size_t(src) * page_bytes(), page_bytes(), stream);
}

}  // namespace carbon::gpu
