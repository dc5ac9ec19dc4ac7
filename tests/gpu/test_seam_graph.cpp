// Graph capture on the host seam: copy -> kernel -> GEMM -> copy captured once and replayed with new
// inputs (seam_checks), and the rules a capture enforces as CUDA does: nothing runs while capturing,
// a synchronize or allocation inside a capture invalidates it, captured copies need pinned memory, a
// graph replays on its own stream, and a replay over freed memory fails at the synchronize.
#include <vector>

#include "check.h"
#include "host_device.h"
#include "seam_checks.h"
#include "seam_objects.h"

using namespace carbon::gpu;
using test::DeviceArray;
using test::EventOwner;
using test::GraphOwner;
using test::PinnedArray;
using test::StreamOwner;

TEST(a_captured_sequence_replays_with_new_inputs) {
    host_seam::HostDevice device;
    checks::graph_replays_with_new_inputs(device);
}

TEST(a_replay_runs_the_captured_work_each_time_in_order) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    const Stream s = stream.get();
    PinnedArray<int> in(device, 4), out(device, 4);
    DeviceArray<int> d(device, 4);
    device.begin_capture(s);
    device.memset(d.get(), 0, d.bytes(), s);
    device.copy_to_device(d.get(), in.get(), 2 * sizeof(int), s);  // the first two after the memset
    device.copy_to_host(out.get(), d.get(), d.bytes(), s);
    GraphOwner graph(device, device.end_capture(s));
    CHECK_EQ(device.pending(s), std::size_t{0});
    for (int round = 1; round <= 2; ++round) {
        for (int i = 0; i < 4; ++i) in[i] = round * 10 + i, out[i] = -1;
        device.launch_graph(graph.get(), s);
        CHECK_EQ(out[0], -1);  // deferred like any other work
        device.stream_synchronize(s);
        CHECK_EQ(out[0], round * 10);
        CHECK_EQ(out[1], round * 10 + 1);
        CHECK_EQ(out[2], 0);
        CHECK_EQ(out[3], 0);
    }
}

TEST(a_synchronize_inside_a_capture_invalidates_it) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    device.begin_capture(stream.get());
    CHECK_THROWS_WITH(device.stream_synchronize(stream.get()), "cudaStreamSynchronize",
                      "cudaErrorStreamCaptureUnsupported");
    CHECK_THROWS_WITH(device.end_capture(stream.get()), "cudaStreamEndCapture", "cudaErrorStreamCaptureInvalidated",
                      "cudaStreamSynchronize");
    // The stream is usable again afterwards.
    device.begin_capture(stream.get());
    GraphOwner empty(device, device.end_capture(stream.get()));
    device.launch_graph(empty.get(), stream.get());
    device.stream_synchronize(stream.get());
}

TEST(allocation_and_events_inside_a_capture_are_refused) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    EventOwner event(device);
    device.begin_capture(stream.get());
    CHECK_THROWS_WITH(device.allocate(64), "cudaMalloc", "cudaErrorStreamCaptureUnsupported");
    CHECK_THROWS_WITH(device.event_record(event.get(), stream.get()), "cudaEventRecord",
                      "cudaErrorStreamCaptureUnsupported");
    CHECK_THROWS_WITH(device.device_synchronize(), "cudaDeviceSynchronize", "cudaErrorStreamCaptureUnsupported");
    CHECK_THROWS_WITH(device.end_capture(stream.get()), "cudaErrorStreamCaptureInvalidated", "cudaMalloc");
}

TEST(a_captured_copy_needs_pinned_host_memory) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    std::vector<float> pageable(8);
    DeviceArray<float> d(device, 8);
    device.begin_capture(stream.get());
    CHECK_THROWS_WITH(device.copy_to_device(d.get(), pageable.data(), d.bytes(), stream.get()),
                      "cudaMemcpyAsync (host to device)", "pageable", "allocate_pinned");
    CHECK_THROWS_WITH(device.copy_to_host(pageable.data(), d.get(), d.bytes(), stream.get()),
                      "cudaMemcpyAsync (device to host)", "pageable");
    GraphOwner graph(device, device.end_capture(stream.get()));
}

TEST(a_graph_replays_only_on_its_own_stream) {
    host_seam::HostDevice device;
    StreamOwner s1(device), s2(device);
    device.begin_capture(s1.get());
    GraphOwner graph(device, device.end_capture(s1.get()));
    CHECK_THROWS_WITH(device.launch_graph(graph.get(), s2.get()), "cudaGraphLaunch", "captured on");
}

TEST(a_replay_over_freed_memory_fails_at_the_synchronize_naming_the_operation) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    PinnedArray<float> host_buf(device, 16);
    void* d = device.allocate(16 * sizeof(float));
    device.begin_capture(stream.get());
    device.copy_to_device(d, host_buf.get(), 16 * sizeof(float), stream.get());
    GraphOwner graph(device, device.end_capture(stream.get()));
    device.free(d);
    device.launch_graph(graph.get(), stream.get());
    CHECK_THROWS_WITH(device.stream_synchronize(stream.get()), "cudaStreamSynchronize", "cudaErrorIllegalAddress",
                      "graph operation 1 of 1", "already freed");
}

CHECK_MAIN()
