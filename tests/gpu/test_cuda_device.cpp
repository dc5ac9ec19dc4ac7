// The real device seam (cudart + cuBLASLt, engine/src/gpu/cuda_device.h) on a GPU: the same GEMM,
// copy, event and graph checks the host seam passes in CI, against the same references, with the
// kernel built by nvcc. Without a GPU or driver it prints "SKIP <the driver's reason>" (CTest: skipped).
#include <cstdio>
#include <memory>
#include <string>

#include "check.h"
#include "gpu/cuda_device.h"
#include "seam_checks.h"
#include "seam_objects.h"

using namespace carbon::gpu;

namespace {
Device& device() {
    static std::unique_ptr<Device> d = make_cuda_device(0);
    return *d;
}
}  // namespace

TEST(device_reports_itself) {
    const DeviceInfo info = device().info();
    std::printf("  %s (%s), compute %d.%d, driver %d, runtime %d, %zu MiB\n", info.name.c_str(), info.uuid.c_str(),
                info.compute_major, info.compute_minor, info.driver_version, info.runtime_version,
                info.total_memory >> 20);
    CHECK(!info.name.empty());
    CHECK(info.compute_major >= 8);
    CHECK(info.driver_version > 0);
    const MemoryInfo m = device().memory_info();
    CHECK(m.total > 0 && m.free <= m.total);
}

TEST(row_major_gemms_match_the_reference) {
    const checks::GemmReport r = checks::row_major_gemms(device());
    std::printf("  %d GEMMs checked\n", r.cases);
    CHECK_EQ(r.mismatches + r.refused, 0);
    if (!r.first.empty()) std::printf("  first mismatch: %s\n", r.first.c_str());
}

TEST(int8_gemms_give_exact_integer_sums) {
    const checks::GemmReport r = checks::int8_gemms(device());
    std::printf("  %d int8 GEMMs checked\n", r.cases);
    CHECK_EQ(r.mismatches + r.refused, 0);
    if (!r.first.empty()) std::printf("  first failure: %s\n", r.first.c_str());
}

TEST(memsets_and_copies_keep_their_issue_order) {
    checks::copies_and_memsets_in_order(device());
}

TEST(an_event_orders_two_streams) {
    checks::event_orders_two_streams(device());
}

TEST(a_captured_sequence_replays_with_new_inputs) {
    checks::graph_replays_with_new_inputs(device());
}

TEST(errors_name_the_call_and_status) {
    test::StreamOwner stream(device());
    CHECK_THROWS_WITH(device().memset(nullptr, 0, 16, nullptr), "cudaMemsetAsync", "null stream");
    Gemm g;
    g.m = g.n = g.k = 4, g.lda = 3, g.ldb = g.ldc = 4;
    CHECK_THROWS_WITH(device().gemm(g, stream.get()), "gemm", "CUBLAS_STATUS_INVALID_VALUE", "lda 3");
    CHECK_THROWS_WITH(device().allocate(std::size_t{1} << 62), "cudaMalloc", "cudaErrorMemoryAllocation");
}

int main() {
    if (const std::string why = cuda_unavailable_reason(0); !why.empty()) {
        std::printf("SKIP %s\n", why.c_str());
        return 0;
    }
    return check::run_all();
}
