// The host seam's deferred streams: work runs only when something waits for it, so a missing
// synchronize, a missing event wait or a kernel result read too early shows as stale data here (on a
// GPU it would be a race that usually passes); events order two streams; memsets and copies keep
// their issue order; kernel launches on a seam stream are queued, on the null stream they run at once.
#include <cstring>
#include <vector>

#include "carbon/kernels/row_sum_squares.h"
#include "check.h"
#include "host_device.h"
#include "seam_checks.h"
#include "seam_objects.h"

using namespace carbon::gpu;
using test::DeviceArray;
using test::EventOwner;
using test::PinnedArray;
using test::StreamOwner;

TEST(reading_a_copy_before_synchronizing_sees_the_old_data) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    std::vector<int> in(16), out(16, -1);
    for (int i = 0; i < 16; ++i) in[i] = i * i;
    DeviceArray<int> d(device, 16);
    device.copy_to_device(d.get(), in.data(), d.bytes(), stream.get());
    device.copy_to_host(out.data(), d.get(), d.bytes(), stream.get());
    CHECK_EQ(device.pending(stream.get()), std::size_t{2});
    CHECK_EQ(out[5], -1);  // the copy has not run: this is the bug a missing synchronize hides
    device.stream_synchronize(stream.get());
    CHECK_EQ(device.pending(stream.get()), std::size_t{0});
    CHECK_EQ(out[5], 25);
}

TEST(the_source_of_an_upload_is_read_when_the_copy_runs) {
    // With pinned memory a GPU reads the source during the copy, not at the call: changing it before
    // synchronizing changes what arrives. The host seam makes that visible every time.
    host_seam::HostDevice device;
    StreamOwner stream(device);
    PinnedArray<float> staging(device, 4);
    for (int i = 0; i < 4; ++i) staging[i] = 1.0f;
    DeviceArray<float> d(device, 4);
    device.copy_to_device(d.get(), staging.get(), d.bytes(), stream.get());
    staging[0] = 2.0f;  // too early: the copy above has not run
    std::vector<float> out(4);
    device.copy_to_host(out.data(), d.get(), d.bytes(), stream.get());
    device.stream_synchronize(stream.get());
    CHECK_EQ(out[0], 2.0f);
}

TEST(a_kernel_on_a_seam_stream_runs_at_the_synchronize) {
    host_seam::HostDevice device;
    StreamOwner stream(device);
    std::vector<float> x = {3.0f, 4.0f, 1.0f, 2.0f}, out(2, -1.0f);
    DeviceArray<float> dx(device, 4), dout(device, 2);
    device.copy_to_device(dx.get(), x.data(), dx.bytes(), stream.get());
    device.memset(dout.get(), 0, dout.bytes(), stream.get());
    CHECK_EQ(carbon::kern::row_sum_squares(dx.get(), dout.get(), 2, 2, stream.get()), cudaSuccess);
    CHECK_EQ(device.pending(stream.get()), std::size_t{3});
    // The kernel has not run: the output still holds the allocation's junk (NaN), not even the memset.
    float before;
    std::memcpy(&before, dout.get(), sizeof before);  // host seam: device memory is host memory
    CHECK(before != before);
    device.copy_to_host(out.data(), dout.get(), dout.bytes(), stream.get());
    device.stream_synchronize(stream.get());
    CHECK_EQ(out[0], 25.0f);
    CHECK_EQ(out[1], 5.0f);
}

TEST(a_kernel_on_the_null_stream_still_runs_at_once) {
    // The existing kernel tests launch on the null stream against plain host buffers.
    std::vector<float> x = {1.0f, 2.0f, 2.0f}, out(1, 0.0f);
    CHECK_EQ(carbon::kern::row_sum_squares(x.data(), out.data(), 1, 3, nullptr), cudaSuccess);
    CHECK_EQ(out[0], 9.0f);
}

TEST(a_missing_event_wait_between_two_streams_shows) {
    host_seam::HostDevice device;
    StreamOwner s1(device), s2(device);
    std::vector<int> in(8, 42), out(8, 0);
    DeviceArray<int> d1(device, 8), d2(device, 8);
    device.copy_to_device(d1.get(), in.data(), d1.bytes(), s1.get());
    // No event: stream 2 may run before stream 1's upload, and here it does.
    device.copy_on_device(d2.get(), d1.get(), d1.bytes(), s2.get());
    device.copy_to_host(out.data(), d2.get(), d2.bytes(), s2.get());
    device.stream_synchronize(s2.get());
    CHECK_EQ(out[0], -1);  // d1's junk (0xFF bytes), not 42
    device.stream_synchronize(s1.get());

    // With the event, the same sequence is ordered.
    EventOwner e(device);
    device.memset(d1.get(), 0, d1.bytes(), s1.get());
    device.copy_to_device(d1.get(), in.data(), d1.bytes(), s1.get());
    device.event_record(e.get(), s1.get());
    device.stream_wait_event(s2.get(), e.get());
    device.copy_on_device(d2.get(), d1.get(), d1.bytes(), s2.get());
    device.copy_to_host(out.data(), d2.get(), d2.bytes(), s2.get());
    device.stream_synchronize(s2.get());
    CHECK_EQ(out[0], 42);
    CHECK_EQ(device.pending(s1.get()), std::size_t{0});  // stream 1 ran exactly up to the record
}

TEST(a_wait_covers_only_the_work_before_the_record) {
    host_seam::HostDevice device;
    StreamOwner s1(device), s2(device);
    EventOwner e(device);
    std::vector<int> a(4, 1), b(4, 2), out(4, 0);
    DeviceArray<int> d(device, 4);
    device.copy_to_device(d.get(), a.data(), d.bytes(), s1.get());
    device.event_record(e.get(), s1.get());
    device.copy_to_device(d.get(), b.data(), d.bytes(), s1.get());  // after the record: not waited for
    device.stream_wait_event(s2.get(), e.get());
    device.copy_to_host(out.data(), d.get(), d.bytes(), s2.get());
    device.stream_synchronize(s2.get());
    CHECK_EQ(out[0], 1);
    CHECK_EQ(device.pending(s1.get()), std::size_t{1});
    // A later record replaces the earlier one for later waits; an event never recorded is no wait.
    device.event_record(e.get(), s1.get());
    device.event_synchronize(e.get());
    CHECK_EQ(device.pending(s1.get()), std::size_t{0});
    EventOwner never(device);
    device.stream_wait_event(s2.get(), never.get());
    device.event_synchronize(never.get());
    CHECK_EQ(device.pending(s2.get()), std::size_t{0});
}

TEST(device_synchronize_runs_every_stream_and_destroy_waits_for_its_stream) {
    host_seam::HostDevice device;
    std::vector<int> v(4, 9), out1(4, 0), out2(4, 7);
    DeviceArray<int> d1(device, 4), d2(device, 4);
    {
        StreamOwner s1(device), s2(device);
        device.copy_to_device(d1.get(), v.data(), d1.bytes(), s1.get());
        device.copy_to_host(out1.data(), d1.get(), d1.bytes(), s1.get());
        device.memset(d2.get(), 0, d2.bytes(), s2.get());
        device.device_synchronize();
        CHECK_EQ(out1[0], 9);
        CHECK_EQ(device.pending(s1.get()) + device.pending(s2.get()), std::size_t{0});
        device.copy_to_host(out2.data(), d2.get(), d2.bytes(), s2.get());
        CHECK_EQ(out2[0], 7);
    }  // destroying stream 2 runs its copy
    CHECK_EQ(out2[0], 0);
}

TEST(memsets_and_copies_keep_their_issue_order) {
    host_seam::HostDevice device;
    checks::copies_and_memsets_in_order(device);
}

TEST(an_event_orders_two_streams) {
    host_seam::HostDevice device;
    checks::event_orders_two_streams(device);
}

TEST(memory_info_counts_allocations) {
    host_seam::HostDevice device(host_seam::HostDeviceOptions{.memory_bytes = 1 << 20});
    CHECK_EQ(device.memory_info().total, std::size_t{1} << 20);
    {
        DeviceArray<char> d(device, 1000);
        CHECK_EQ(device.memory_info().free, (std::size_t{1} << 20) - 1000);
    }
    CHECK_EQ(device.memory_info().free, std::size_t{1} << 20);
    CHECK_THROWS_WITH(device.allocate((1 << 20) + 1), "cudaMalloc", "cudaErrorMemoryAllocation");
    const DeviceInfo info = device.info();
    CHECK(info.name.find("host seam") != std::string::npos);
    CHECK_EQ(info.compute_major, 9);
}

CHECK_MAIN()
