// The AMX kernels' memory traffic under a cache model (tests/bench/amx_cache_model.sh runs it under
// callgrind's cache simulator): one kernel on the tile emulation (tests/engine/amx_emulation.h)
// with the tile products left out, so that only what the hardware's tile loads and stores, the
// kernels' copies and the transposed stores touch reaches memory, at the same addresses. One call
// is one thread's task of the real 2-thread run (about a quarter of a thread's panels). Not a
// timing and not a test: it counts L1 and L2 misses, without the hardware's prefetchers.
//   build/bin/amx_cache_model in-place|k-blocked M N K
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "amx_emulation.h"
#include "carbon/support/thread_pool.h"
#include "cpu/cpu_matmul_paths.h"

#undef CARBON_TILE_DOT
#define CARBON_TILE_DOT(c, a, b) ((void)0)

namespace carbon::cpu::detail {
#include "cpu/cpu_amx_kernels.inc"
}  // namespace carbon::cpu::detail

using namespace carbon;
using namespace carbon::cpu::detail;

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: amx_cache_model in-place|k-blocked M N K\n");
        return 2;
    }
    const std::string kernel = argv[1];
    const size_t m = std::stoul(argv[2]), n = std::stoul(argv[3]), k = std::stoul(argv[4]);
    if ((kernel != "in-place" && kernel != "k-blocked") || !m || !n || !k) {
        std::fprintf(stderr, "amx_cache_model: bad arguments\n");
        return 2;
    }
    const size_t k_padded = (k + 31) / 32 * 32, nrb = (m + 15) / 16;
    std::mt19937 rng(1);
    std::vector<uint16_t> w(n * k);
    for (auto& v : w) v = uint16_t(rng());
    std::vector<uint32_t> packed(nrb * k_padded / 2 * 16);
    for (auto& v : packed) v = uint32_t(rng());
    std::vector<float> y(m * n);
    const cpu::WeightMatrix wm{w.data(), DType::BF16, n, k};
    const AmxCall c{packed.data(), m, k_padded, &wm, nullptr, n, y.data(), n};
    // As in the model's forward pass: the weights cold (evicted by 32 MB of other writes), the
    // activations just packed (read once since).
    std::vector<uint8_t> evict(size_t(32) << 20, 1);
    uint32_t touch = evict[rng() % evict.size()];
    for (uint32_t v : packed) touch += v;
    ThreadPool pool(1);
    run_amx(pool, c, kernel == "k-blocked" ? AmxKernel::KBlocked : AmxKernel::InPlace, amx_blocking_for(k_padded));
    std::printf("%s m %zu n %zu k %zu: done (%u)\n", kernel.c_str(), m, n, k, touch & 1);
    return 0;
}
