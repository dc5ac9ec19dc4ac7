// Host-side argument checks shared by the attention launchers (attention_prefill.cu,
// attention_decode.cu): each refusal returns a CUDA status and records its reason for
// attention_refusal() (paged_kv.h).
#pragma once

#include <climits>
#include <cstdint>

#include "carbon/kernels/paged_kv.h"

namespace carbon::kern::attention_impl {

const char*& refusal_slot();  // this thread's last reason; attention_prefill.cu

inline cudaError_t refuse(cudaError_t status, const char* why) {
    refusal_slot() = why;
    return status;
}
inline cudaError_t accept() {
    refusal_slot() = "";
    return cudaSuccess;
}

inline bool misaligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 != 0;
}

// What both kernels require of the shapes and pointers; cudaSuccess when the launch may go ahead.
template <class T>
cudaError_t check_batch(const T* q, const T* out, const PagedKv<T>& kv, const AttentionBatch& a) {
    if (a.batch < 0) return refuse(cudaErrorInvalidValue, "attention: batch < 0");
    if (a.batch > 65535) return refuse(cudaErrorNotSupported, "attention: batch > 65535 (one grid z index per sequence)");
    if (a.n_heads <= 0 || a.n_kv_heads <= 0) return refuse(cudaErrorInvalidValue, "attention: n_heads and n_kv_heads must be >= 1");
    if (a.n_heads % a.n_kv_heads != 0) return refuse(cudaErrorInvalidValue, "attention: n_heads is not a multiple of n_kv_heads");
    if (a.n_kv_heads > 65535) return refuse(cudaErrorNotSupported, "attention: n_kv_heads > 65535 (one grid y index per KV head)");
    if (a.head_dim != 16 && a.head_dim != 24 && a.head_dim != 64 && a.head_dim != 96 && a.head_dim != 128)
        return refuse(cudaErrorNotSupported, "attention: head_dim must be 16, 24, 64, 96 or 128 (the sizes built)");
    if (a.max_new_tokens < 1) return refuse(cudaErrorInvalidValue, "attention: max_new_tokens must be >= 1");
    if (static_cast<long long>(a.max_new_tokens) * (a.n_heads / a.n_kv_heads) > INT_MAX / 2)
        return refuse(cudaErrorNotSupported, "attention: max_new_tokens x (n_heads / n_kv_heads) is too large for the grid");
    if (!q || !out || !kv.k || !kv.v || !kv.page_table || !a.q_begin || !a.kv_len)
        return refuse(cudaErrorInvalidValue, "attention: a null pointer (q, out, kv.k, kv.v, kv.page_table, q_begin or kv_len)");
    if (kv.page_tokens < 1 || kv.page_table_stride < 1 || kv.page_stride < 0)
        return refuse(cudaErrorInvalidValue, "attention: page_tokens and page_table_stride must be >= 1, page_stride >= 0");
    if (misaligned(q) || misaligned(out) || misaligned(kv.k) || misaligned(kv.v) ||
        kv.page_stride * static_cast<long long>(sizeof(T)) % 16 != 0)
        return refuse(cudaErrorMisalignedAddress, "attention: q, out, kv.k, kv.v and page_stride must be multiples of 16 bytes");
    return cudaSuccess;
}

}  // namespace carbon::kern::attention_impl
