// Launchers of embedding_gather (embedding.cuh): check the sizes, pick the vector or scalar path,
// launch a 2-D grid of tokens x chunks of the row.
#include "carbon/kernels/embedding.h"
#include "embedding.cuh"

namespace carbon::kern {
namespace {

template <class W, class A>
cudaError_t launch_embedding(const int* ids, int tokens, const W* table, int vocab, int hidden, A* out, int* bad_ids,
                             cudaStream_t stream) {
    if (tokens < 0 || vocab <= 0 || hidden <= 0 || hidden > 65535 * kEmbeddingThreads) return cudaErrorInvalidValue;
    if (tokens == 0) return cudaSuccess;
    if (ids == nullptr || table == nullptr || out == nullptr) return cudaErrorInvalidValue;
    const bool vector = hidden % io::kVec == 0 && io::aligned16(table) && io::aligned16(out);
    const int chunks = vector ? hidden / io::kVec : hidden;
    const int blocks_y = (chunks + kEmbeddingThreads - 1) / kEmbeddingThreads;  // <= 65,535 (checked above)
    const dim3 grid(static_cast<unsigned>(tokens), static_cast<unsigned>(blocks_y));
    if (vector)
        return launch(embedding_gather_kernel<W, A, true>, grid, dim3(kEmbeddingThreads), 0, stream, ids, table, vocab,
                      hidden, out, bad_ids);
    return launch(embedding_gather_kernel<W, A, false>, grid, dim3(kEmbeddingThreads), 0, stream, ids, table, vocab,
                  hidden, out, bad_ids);
}

}  // namespace

cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __nv_bfloat16* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __nv_bfloat16* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __half* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const __half* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const float* table, int vocab, int hidden,
                             float* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}
cudaError_t embedding_gather(const std::int32_t* ids, int tokens, const float* table, int vocab, int hidden,
                             __nv_bfloat16* out, int* bad_ids, cudaStream_t stream) {
    return launch_embedding(ids, tokens, table, vocab, hidden, out, bad_ids, stream);
}

}  // namespace carbon::kern
