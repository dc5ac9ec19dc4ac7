// Launchers of the decode attention kernels (attention_decode.cuh): check the arguments and the
// workspace, pick the head_dim and row-group instance.
#include "attention_checks.h"
#include "attention_decode.cuh"
#include "carbon/kernels/attention_decode.h"

namespace carbon::kern {
namespace {

// The workspace in floats, or -1 when the grid or the sizes overflow.
long long workspace_floats(const AttentionBatch& a, int max_kv_len, int chunk_tokens) {
    const long long vec_cap = static_cast<long long>(a.max_new_tokens) * (a.n_heads / a.n_kv_heads);
    const long long n_chunks = (static_cast<long long>(max_kv_len) + chunk_tokens - 1) / chunk_tokens;
    const long long groups = (vec_cap + 1) / 2;  // row groups at R = 2, the most
    if (n_chunks * groups > INT_MAX) return -1;
    return static_cast<long long>(a.batch) * a.n_kv_heads * vec_cap * n_chunks * (a.head_dim + 2);
}

template <class T, int D>
cudaError_t launch_rows(const T* q, T* out, const PagedKv<T>& kv, const AttentionBatch& a, int max_kv_len,
                        int chunk_tokens, float* workspace, cudaStream_t stream) {
    switch (attention_decode_rows(a.max_new_tokens * (a.n_heads / a.n_kv_heads))) {
        case 2: return launch_attention_decode<T, D, 2>(q, out, kv, a, max_kv_len, chunk_tokens, workspace, stream);
        case 4: return launch_attention_decode<T, D, 4>(q, out, kv, a, max_kv_len, chunk_tokens, workspace, stream);
        default: return launch_attention_decode<T, D, 8>(q, out, kv, a, max_kv_len, chunk_tokens, workspace, stream);
    }
}

template <class T>
cudaError_t run_decode(const T* q, T* out, const PagedKv<T>& kv, const AttentionBatch& a, int max_kv_len,
                       int chunk_tokens, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
    using attention_impl::refuse;
    if (const cudaError_t e = attention_impl::check_batch(q, out, kv, a); e != cudaSuccess) return e;
    if (max_kv_len < 1 || chunk_tokens < 1)
        return refuse(cudaErrorInvalidValue, "attention_decode: max_kv_len and chunk_tokens must be >= 1");
    const long long floats = workspace_floats(a, max_kv_len, chunk_tokens);
    if (floats < 0) return refuse(cudaErrorNotSupported, "attention_decode: too many chunks x row groups for the grid");
    if (floats > 0 && (workspace == nullptr || workspace_bytes < static_cast<std::size_t>(floats) * sizeof(float)))
        return refuse(cudaErrorInvalidValue, "attention_decode: workspace missing or under attention_decode_workspace_bytes");
    if (floats > 0 && attention_impl::misaligned(workspace))
        return refuse(cudaErrorMisalignedAddress, "attention_decode: workspace must be 16-byte aligned");
    attention_impl::accept();
    if (a.batch == 0) return cudaSuccess;
    float* ws = static_cast<float*>(workspace);
    switch (a.head_dim) {
        case 16: return launch_rows<T, 16>(q, out, kv, a, max_kv_len, chunk_tokens, ws, stream);
        case 24: return launch_rows<T, 24>(q, out, kv, a, max_kv_len, chunk_tokens, ws, stream);
        case 64: return launch_rows<T, 64>(q, out, kv, a, max_kv_len, chunk_tokens, ws, stream);
        case 96: return launch_rows<T, 96>(q, out, kv, a, max_kv_len, chunk_tokens, ws, stream);
        case 128: return launch_rows<T, 128>(q, out, kv, a, max_kv_len, chunk_tokens, ws, stream);
        default: return refuse(cudaErrorNotSupported, "attention: head_dim not built");
    }
}

}  // namespace

std::size_t attention_decode_workspace_bytes(const AttentionBatch& batch, int max_kv_len, int chunk_tokens) {
    if (batch.batch < 0 || batch.n_heads <= 0 || batch.n_kv_heads <= 0 || batch.n_heads % batch.n_kv_heads != 0 ||
        batch.head_dim <= 0 || batch.max_new_tokens < 1 || max_kv_len < 1 || chunk_tokens < 1)
        return 0;
    const long long floats = workspace_floats(batch, max_kv_len, chunk_tokens);
    return floats < 0 ? 0 : static_cast<std::size_t>(floats) * sizeof(float);
}

cudaError_t attention_decode(const float* q, float* out, const PagedKv<float>& kv, const AttentionBatch& batch,
                             int max_kv_len, int chunk_tokens, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
    return run_decode(q, out, kv, batch, max_kv_len, chunk_tokens, workspace, workspace_bytes, stream);
}

cudaError_t attention_decode(const __nv_bfloat16* q, __nv_bfloat16* out, const PagedKv<__nv_bfloat16>& kv,
                             const AttentionBatch& batch, int max_kv_len, int chunk_tokens, void* workspace,
                             std::size_t workspace_bytes, cudaStream_t stream) {
    return run_decode(q, out, kv, batch, max_kv_len, chunk_tokens, workspace, workspace_bytes, stream);
}

}  // namespace carbon::kern
