// Host layer tests, deferred launches: a launch on a stream registered as deferring is handed to the
// stream's sink with its arguments copied and runs only when the sink's owner runs it; launches on
// the null stream and on unregistered streams still run at once; configuration errors still throw
// from launch(). The host device seam (tests/gpu) builds its streams on this.
#include <algorithm>
#include <string>
#include <vector>

#include "check.h"
#include "cuda_portable.cuh"

using carbon::kern::launch;

__global__ void deferred_fill_kernel(int* out, int value, int n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) out[i] = value + i;
}

namespace {

// A stand-in for a stream handle: nothing dereferences it.
cudaStream_t fake_stream(int& storage) {
    return reinterpret_cast<cudaStream_t>(&storage);
}

struct Registration {
    cudaStream_t stream;
    ~Registration() { carbon::host::unregister_deferred_stream(stream); }
};

}  // namespace

TEST(a_launch_on_a_deferring_stream_runs_when_its_owner_runs_it) {
    int handle = 0;
    const cudaStream_t stream = fake_stream(handle);
    std::vector<carbon::host::DeferredLaunch> queue;
    carbon::host::register_deferred_stream(
        stream, [&queue](carbon::host::DeferredLaunch&& l) { queue.push_back(std::move(l)); });
    Registration registration{stream};

    std::vector<int> out(40, -1);
    int value = 100;
    CHECK_EQ(launch(deferred_fill_kernel, dim3(2), dim3(32), 0, stream, out.data(), value, 40), cudaSuccess);
    value = 7;  // the launch copied its arguments: this does not reach the kernel
    CHECK_EQ(queue.size(), std::size_t{1});
    CHECK_EQ(out[0], -1);  // nothing ran yet
    if (queue.size() != 1) return;
    CHECK(queue[0].kernel_name.find("deferred_fill_kernel") != std::string::npos);
    CHECK_EQ(queue[0].grid.x, 2u);
    CHECK_EQ(queue[0].block.x, 32u);
    CHECK_EQ(queue[0].pointer_args.size(), std::size_t{1});
    if (queue[0].pointer_args.size() == 1) {
        CHECK_EQ(queue[0].pointer_args[0].index, 0u);
        CHECK(queue[0].pointer_args[0].value == out.data());
    }
    queue[0].run();
    for (int i = 0; i < 40; ++i) CHECK_EQ(out[i], 100 + i);
    std::fill(out.begin(), out.end(), -1);
    queue[0].run();  // a graph replays the same launch
    CHECK_EQ(out[39], 139);
}

TEST(launches_on_the_null_and_unregistered_streams_run_at_once) {
    std::vector<int> out(8, -1);
    launch(deferred_fill_kernel, dim3(1), dim3(8), 0, nullptr, out.data(), 1, 8);
    CHECK_EQ(out[7], 8);
    int handle = 0;
    launch(deferred_fill_kernel, dim3(1), dim3(8), 0, fake_stream(handle), out.data(), 2, 8);
    CHECK_EQ(out[7], 9);
    // Unregistered again: back to running at once.
    carbon::host::register_deferred_stream(fake_stream(handle), [](carbon::host::DeferredLaunch&&) {});
    carbon::host::unregister_deferred_stream(fake_stream(handle));
    launch(deferred_fill_kernel, dim3(1), dim3(8), 0, fake_stream(handle), out.data(), 3, 8);
    CHECK_EQ(out[7], 10);
}

TEST(a_bad_configuration_on_a_deferring_stream_throws_from_launch) {
    int handle = 0;
    const cudaStream_t stream = fake_stream(handle);
    int handed = 0;
    carbon::host::register_deferred_stream(stream, [&handed](carbon::host::DeferredLaunch&&) { ++handed; });
    Registration registration{stream};
    std::vector<int> out(4);
    CHECK_THROWS_WITH(launch(deferred_fill_kernel, dim3(1), dim3(2048), 0, stream, out.data(), 0, 4),
                      "deferred_fill_kernel", "1024");
    CHECK_EQ(handed, 0);
}
