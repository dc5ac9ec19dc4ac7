// Owned device and pinned allocations over the seam (gpu/device.h): freed with the object, grown by
// reallocation. Growing or freeing does not wait for queued work: the owner synchronizes first
// (the CUDA backend grows its buffers only between steps, after the stream has drained).
#pragma once

#include <cstddef>
#include <utility>

#include "gpu/device.h"

namespace carbon::gpu {

enum class MemoryKind { Device, Pinned };

template <MemoryKind kKind>
class OwnedMemory {
public:
    OwnedMemory() = default;
    OwnedMemory(Device& device, std::size_t bytes) : device_(&device) { reserve(bytes); }
    ~OwnedMemory() { release(); }
    OwnedMemory(OwnedMemory&& o) noexcept
        : device_(o.device_), p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    OwnedMemory& operator=(OwnedMemory&& o) noexcept {
        if (this != &o) {
            release();
            device_ = o.device_;
            p_ = std::exchange(o.p_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    OwnedMemory(const OwnedMemory&) = delete;
    OwnedMemory& operator=(const OwnedMemory&) = delete;

    void bind(Device& device) { device_ = &device; }
    // At least `bytes` (contents lost when it grows); returns whether it reallocated.
    bool reserve(std::size_t bytes) {
        if (bytes <= bytes_) return false;
        release();
        p_ = kKind == MemoryKind::Device ? device_->allocate(bytes) : device_->allocate_pinned(bytes);
        bytes_ = bytes;
        return true;
    }
    void release() {
        if (p_ && device_) {
            if constexpr (kKind == MemoryKind::Device) device_->free(p_);
            else device_->free_pinned(p_);
        }
        p_ = nullptr;
        bytes_ = 0;
    }
    void* get() const { return p_; }
    template <class T>
    T* as() const { return static_cast<T*>(p_); }
    std::size_t bytes() const { return bytes_; }

private:
    Device* device_ = nullptr;
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

using DeviceMemory = OwnedMemory<MemoryKind::Device>;
using PinnedMemory = OwnedMemory<MemoryKind::Pinned>;

}  // namespace carbon::gpu
