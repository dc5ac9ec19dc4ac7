// The host implementation of the device seam (engine/src/gpu/device.h), for CI without a GPU. Test
// infrastructure only: it never ships in a product binary.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpu/device.h"
#include "host_allocations.h"
#include "host_streams.h"

namespace carbon::gpu::host_seam {

struct HostDeviceOptions {
    std::size_t memory_bytes = std::size_t{8} << 30;  // the emulated device's memory (nothing is reserved)
    std::string name = "host seam (CPU reference, not a GPU)";
};

// Memory is host memory behind checked "device" pointers (host_allocations.h); streams defer every
// copy, memset, GEMM and kernel launch until something synchronizes (host_streams.h); graph capture
// records a stream's work and replays it; GEMMs run the reference (reference_gemm.h). Kernels
// launched through carbon::kern::launch on one of its streams are queued on that stream (the host
// execution layer's deferring streams, kernels/README.md) and run through the layer when drained.
class HostDevice final : public Device {
public:
    explicit HostDevice(HostDeviceOptions options = {});
    // Unregisters its streams from the host layer and drops work that was never synchronized (it
    // may point at host buffers that are already gone).
    ~HostDevice() override;

    DeviceInfo info() const override;
    MemoryInfo memory_info() const override;

    void* allocate(std::size_t bytes) override;
    void free(void* device_ptr) override;
    void* allocate_pinned(std::size_t bytes) override;
    void free_pinned(void* host_ptr) override;

    void copy_to_device(void* dst, const void* host_src, std::size_t bytes, Stream stream) override;
    void copy_to_host(void* host_dst, const void* src, std::size_t bytes, Stream stream) override;
    void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream stream) override;
    void memset(void* dst, int byte_value, std::size_t bytes, Stream stream) override;
    void gemm(const Gemm& g, Stream stream) override;

    Stream create_stream() override;
    void destroy_stream(Stream stream) override;
    void stream_synchronize(Stream stream) override;
    void device_synchronize() override;

    Event create_event() override;
    void destroy_event(Event event) override;
    void event_record(Event event, Stream stream) override;
    void stream_wait_event(Stream stream, Event event) override;
    void event_synchronize(Event event) override;

    void begin_capture(Stream stream) override;
    Graph end_capture(Stream stream) override;
    void launch_graph(Graph graph, Stream stream) override;
    void destroy_graph(Graph graph) override;

    // Operations issued on `stream` that have not run yet (tests of the deferral itself).
    std::size_t pending(Stream stream) const { return streams_.pending(stream); }

private:
    // Checks the stream and the sticky error, then queues (or captures) `work`.
    void issue(Stream stream, std::string what, std::function<void()> run);
    // The host side of a copy: pinned memory is required while the stream captures a graph.
    void require_host_side(Stream stream, const void* p, std::size_t bytes, const char* call, const char* role);
    bool is_capturing(Stream stream) const;

    HostDeviceOptions options_;
    AllocationTable memory_;
    HostStreams streams_;
};

}  // namespace carbon::gpu::host_seam
