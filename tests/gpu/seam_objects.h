// Owners for the device seam's objects in tests (device and pinned arrays, streams, events, graphs):
// released in destructors, which swallow errors (a test that failed may leave a device unusable).
#pragma once

#include <cstddef>
#include <span>

#include "gpu/device.h"

namespace carbon::gpu::test {

template <class T>
class DeviceArray {
public:
    DeviceArray(Device& device, std::size_t n)
        : device_(device), n_(n), p_(static_cast<T*>(device.allocate(n * sizeof(T)))) {}
    ~DeviceArray() {
        try {
            device_.free(p_);
        } catch (...) {
        }
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* get() const { return p_; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

private:
    Device& device_;
    std::size_t n_;
    T* p_;
};

// Page-locked host memory, readable and writable from the test like an array.
template <class T>
class PinnedArray {
public:
    PinnedArray(Device& device, std::size_t n)
        : device_(device), n_(n), p_(static_cast<T*>(device.allocate_pinned(n * sizeof(T)))) {}
    ~PinnedArray() {
        try {
            device_.free_pinned(p_);
        } catch (...) {
        }
    }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    T* get() const { return p_; }
    T& operator[](std::size_t i) const { return p_[i]; }
    std::span<T> span() const { return {p_, n_}; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

private:
    Device& device_;
    std::size_t n_;
    T* p_;
};

class StreamOwner {
public:
    explicit StreamOwner(Device& device) : device_(device), s_(device.create_stream()) {}
    ~StreamOwner() {
        try {
            device_.destroy_stream(s_);
        } catch (...) {
        }
    }
    StreamOwner(const StreamOwner&) = delete;
    StreamOwner& operator=(const StreamOwner&) = delete;
    Stream get() const { return s_; }

private:
    Device& device_;
    Stream s_;
};

class EventOwner {
public:
    explicit EventOwner(Device& device) : device_(device), e_(device.create_event()) {}
    ~EventOwner() {
        try {
            device_.destroy_event(e_);
        } catch (...) {
        }
    }
    EventOwner(const EventOwner&) = delete;
    EventOwner& operator=(const EventOwner&) = delete;
    Event get() const { return e_; }

private:
    Device& device_;
    Event e_;
};

class GraphOwner {
public:
    GraphOwner(Device& device, Graph g) : device_(device), g_(g) {}
    ~GraphOwner() {
        try {
            device_.destroy_graph(g_);
        } catch (...) {
        }
    }
    GraphOwner(const GraphOwner&) = delete;
    GraphOwner& operator=(const GraphOwner&) = delete;
    Graph get() const { return g_; }

private:
    Device& device_;
    Graph g_;
};

}  // namespace carbon::gpu::test
