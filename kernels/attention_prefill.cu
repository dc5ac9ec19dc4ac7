// Launchers of the prefill attention kernel (attention_prefill.cuh): check the arguments, pick the
// head_dim instance. Also the home of attention_refusal() (paged_kv.h), shared with the decode launcher.
#include "attention_checks.h"
#include "attention_prefill.cuh"
#include "carbon/kernels/attention_prefill.h"

namespace carbon::kern {
namespace attention_impl {

const char*& refusal_slot() {
    thread_local const char* why = "";
    return why;
}

}  // namespace attention_impl

const char* attention_refusal() {
    return attention_impl::refusal_slot();
}

namespace {

template <class T>
cudaError_t run_prefill(const T* q, T* out, const PagedKv<T>& kv, const AttentionBatch& a, cudaStream_t stream) {
    if (const cudaError_t e = attention_impl::check_batch(q, out, kv, a); e != cudaSuccess) return e;
    attention_impl::accept();
    if (a.batch == 0) return cudaSuccess;
    switch (a.head_dim) {
        case 16: return launch_attention_prefill<T, 16>(q, out, kv, a, stream);
        case 24: return launch_attention_prefill<T, 24>(q, out, kv, a, stream);
        case 64: return launch_attention_prefill<T, 64>(q, out, kv, a, stream);
        case 96: return launch_attention_prefill<T, 96>(q, out, kv, a, stream);
        case 128: return launch_attention_prefill<T, 128>(q, out, kv, a, stream);
        default: return attention_impl::refuse(cudaErrorNotSupported, "attention: head_dim not built");
    }
}

}  // namespace

cudaError_t attention_prefill(const float* q, float* out, const PagedKv<float>& kv, const AttentionBatch& batch,
                              cudaStream_t stream) {
    return run_prefill(q, out, kv, batch, stream);
}

cudaError_t attention_prefill(const __nv_bfloat16* q, __nv_bfloat16* out, const PagedKv<__nv_bfloat16>& kv,
                              const AttentionBatch& batch, cudaStream_t stream) {
    return run_prefill(q, out, kv, batch, stream);
}

}  // namespace carbon::kern
