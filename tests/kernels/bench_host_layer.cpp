// Per-launch cost of the host execution layer (kernels/README.md records the figures per executor):
// an RMSNorm of 16 rows x 4,096 (4,096 threads: warp shuffles, shared memory, two barriers) and a
// warp-per-row GEMV of 2,000 x 1,024 (64,000 threads: five shuffles each). Not a test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_portable.cuh"

constexpr int kNormThreads = 256;

__global__ void bench_rmsnorm_kernel(const float* x, const float* weight, float* y, int hidden, float eps) {
    CARBON_SHARED(float[kNormThreads / 32], partial);
    CARBON_SHARED(float, scale);
    const float* row = x + static_cast<long long>(blockIdx.x) * hidden;
    float s = 0.0f;
    for (int c = static_cast<int>(threadIdx.x); c < hidden; c += kNormThreads) s = fmaf(row[c], row[c], s);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < kNormThreads / 32 ? partial[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
        if (threadIdx.x == 0) scale = rsqrtf(t / static_cast<float>(hidden) + eps);
    }
    __syncthreads();
    float* out = y + static_cast<long long>(blockIdx.x) * hidden;
    for (int c = static_cast<int>(threadIdx.x); c < hidden; c += kNormThreads) out[c] = row[c] * scale * weight[c];
}

// One warp per output row.
__global__ void bench_gemv_kernel(const float* w, const float* x, float* y, int rows, int k) {
    const int row = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (row >= rows) return;
    const float* wr = w + static_cast<long long>(row) * k;
    float s = 0.0f;
    for (int c = lane; c < k; c += 32) s = fmaf(wr[c], x[c], s);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s;
}

namespace {

template <class F>
void time_launches(const char* what, F launch_once, double budget_s) {
    launch_once();  // warm-up: stacks, worker threads
    std::vector<double> ms;
    const auto start = std::chrono::steady_clock::now();
    while (ms.size() < 3 ||
           (ms.size() < 50 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget_s)) {
        const auto t0 = std::chrono::steady_clock::now();
        launch_once();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-34s %9.2f ms per launch (median of %zu, min %.2f)\n", what, ms[ms.size() / 2], ms.size(), ms[0]);
}

}  // namespace

int main(int argc, char** argv) {
    const double budget_s = argc > 1 ? std::atof(argv[1]) : 3.0;
    std::printf("host layer executor: %s\n", carbon::host::executor());

    const int rows = 16, hidden = 4096;
    std::vector<float> x(rows * hidden), weight(hidden), y(rows * hidden);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.125f;
    for (int i = 0; i < hidden; ++i) weight[i] = 1.0f + static_cast<float>(i % 5) * 0.01f;
    auto norm = [&] {
        carbon::kern::launch(bench_rmsnorm_kernel, dim3(rows), dim3(kNormThreads), 0, nullptr, x.data(), weight.data(),
                             y.data(), hidden, 1e-6f);
    };
    time_launches("rmsnorm 16 x 4096 (4,096 threads)", norm, budget_s);
    double ss = 0;
    for (int c = 0; c < hidden; ++c) ss += double(x[c]) * x[c];
    const double want = x[1] / std::sqrt(ss / hidden + 1e-6) * weight[1];
    if (std::fabs(y[1] - want) > 1e-4 * std::fabs(want)) std::printf("  WRONG rmsnorm: %g vs %g\n", y[1], want);

    const int m = 2000, k = 1024;
    std::vector<float> w(static_cast<std::size_t>(m) * k), v(k), out(m);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.01f;
    for (int i = 0; i < k; ++i) v[i] = static_cast<float>(i % 7) * 0.1f;
    auto gemv = [&] {
        carbon::kern::launch(bench_gemv_kernel, dim3(m * 32 / 256), dim3(256), 0, nullptr, w.data(), v.data(),
                             out.data(), m, k);
    };
    time_launches("gemv 2000 x 1024 (64,000 threads)", gemv, budget_s);
    double dot = 0;
    for (int c = 0; c < k; ++c) dot += double(w[static_cast<std::size_t>(m - 1) * k + c]) * v[c];
    if (std::fabs(out[m - 1] - dot) > 1e-3) std::printf("  WRONG gemv: %g vs %g\n", out[m - 1], dot);
    return 0;
}
