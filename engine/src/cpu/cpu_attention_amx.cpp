// attention_rows (cpu_ops.h) on the AMX tiles: the kernel of cpu_amx_attention_kernel.inc on the
// tile registers (tests/engine/test_amx_attention.cpp runs the same source on the emulation).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu_matmul_paths.h"

#if defined(__x86_64__)
#include "amx_tiles.h"
#include "avx512_math.h"
#include "x86_transpose.h"

namespace carbon::cpu::detail {

#include "cpu_amx_attention_kernel.inc"

void attention_rows_amx(ThreadPool& pool, const AttentionShape& shape, std::span<const KvBlocks> kv,
                        std::span<const size_t> item_row, std::span<const size_t> start, const float* q, float* out) {
    run_amx_attention(pool, shape, kv, item_row, start, q, out);
}

}  // namespace carbon::cpu::detail

#else

namespace carbon::cpu::detail {
void attention_rows_amx(ThreadPool&, const AttentionShape&, std::span<const KvBlocks>, std::span<const size_t>,
                        std::span<const size_t>, const float*, float*) {
    throw Error("AMX kernels are not built for this architecture");
}
}  // namespace carbon::cpu::detail

#endif
