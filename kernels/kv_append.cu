// Launcher of kv_append (kv_append.cuh): checks the sizes, launches a 2-D grid of rows x element
// chunks; explicit instantiations for fp32 and bf16 caches.
#include "carbon/kernels/kv_append.h"
#include "kv_append.cuh"

namespace carbon::kern {

template <class T>
cudaError_t kv_append(const float* k_src, const float* v_src, long long src_stride, int rows, const std::int32_t* positions,
                      const std::int32_t* row_seq, const KvDestination<T>& dst, int kv_heads, int head_dim,
                      cudaStream_t stream) {
    if (rows < 0 || kv_heads < 1 || head_dim < 1 || dst.page_tokens < 1 || dst.page_table_stride < 1)
        return cudaErrorInvalidValue;
    const long long kv_dim = static_cast<long long>(kv_heads) * head_dim;
    if (kv_dim > 65535LL * kKvAppendThreads || src_stride < kv_dim || dst.page_stride < kv_dim * dst.page_tokens)
        return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (!k_src || !v_src || !positions || !row_seq || !dst.k || !dst.v || !dst.page_table) return cudaErrorInvalidValue;
    const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((kv_dim + kKvAppendThreads - 1) / kKvAppendThreads));
    return launch(kv_append_kernel<T>, grid, dim3(kKvAppendThreads), 0, stream, k_src, v_src, src_stride, positions, row_seq,
                  dst.k, dst.v, dst.page_stride, dst.page_tokens, dst.page_table, dst.page_table_stride, kv_heads,
                  head_dim);
}

template cudaError_t kv_append<float>(const float*, const float*, long long, int, const std::int32_t*, const std::int32_t*,
                                      const KvDestination<float>&, int, int, cudaStream_t);
template cudaError_t kv_append<__nv_bfloat16>(const float*, const float*, long long, int, const std::int32_t*,
                                              const std::int32_t*, const KvDestination<__nv_bfloat16>&, int, int,
                                              cudaStream_t);

}  // namespace carbon::kern
