// Launchers of token_logprob (token_logprob.cuh): check the sizes, pick the vector or scalar path,
// launch one block per row; explicit instantiations for fp32 and bf16 logits.
#include "carbon/kernels/token_logprob.h"
#include "token_logprob.cuh"

namespace carbon::kern {

template <class T>
cudaError_t token_logprob(const T* logits, long long ld, int rows, int vocab, const std::int32_t* targets,
                          float* lse_out, float* logp_out, int* bad_targets, cudaStream_t stream) {
    if (rows < 0 || vocab < 1 || ld < vocab) return cudaErrorInvalidValue;
    if ((targets == nullptr) != (logp_out == nullptr)) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (logits == nullptr || lse_out == nullptr) return cudaErrorInvalidValue;
    const bool vector = vocab % io::kVec == 0 && ld % io::kVec == 0 && io::aligned16(logits);
    const dim3 grid(static_cast<unsigned>(rows)), block(kTokenLogprobThreads);
    if (vector)
        return launch(token_logprob_kernel<T, true>, grid, block, 0, stream, logits, ld, vocab, targets, lse_out, logp_out,
                      bad_targets);
    return launch(token_logprob_kernel<T, false>, grid, block, 0, stream, logits, ld, vocab, targets, lse_out, logp_out,
                  bad_targets);
}

template cudaError_t token_logprob<float>(const float*, long long, int, int, const std::int32_t*, float*, float*, int*,
                                          cudaStream_t);
template cudaError_t token_logprob<__nv_bfloat16>(const __nv_bfloat16*, long long, int, int, const std::int32_t*, float*,
                                                  float*, int*, cudaStream_t);

}  // namespace carbon::kern
