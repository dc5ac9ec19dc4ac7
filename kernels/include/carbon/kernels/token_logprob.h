// Launchers of token_logprob (kernels/token_logprob.cuh): log-softmax over the full vocabulary and
// the gather of one target per row, for token-level scores. Plain C++ for any caller: device
// pointers, sizes and a stream in, a CUDA status out.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

// T: float or __nv_bfloat16 (the two instantiations). logits: rows x vocab, row r at logits + r * ld.
// For r < rows: lse_out[r] = log(sum_v exp(logits[r, v])) and, when targets is not null,
// logp_out[r] = logits[r, targets[r]] - lse_out[r] (computed in double from the unrounded lse),
// i.e. carbon::log_softmax(row)[targets[r]]. Numerically stable for any finite logits; a NaN or
// +inf logit makes lse non-finite. A target outside [0, vocab) gives logp NaN (nothing is read) and,
// when bad_targets is not null, is counted with atomicAdd into *bad_targets (zeroed by the caller).
// All pointers are device memory; targets and logp_out are both given or both null.
// cudaErrorInvalidValue for negative rows, vocab < 1, ld < vocab, null logits or lse_out, or only one
// of targets / logp_out; rows == 0 launches nothing. ld and vocab multiples of 8 with 16-byte aligned
// logits take the vector path (vocab 155,776 and 6,144 do).
template <class T>
cudaError_t token_logprob(const T* logits, long long ld, int rows, int vocab, const std::int32_t* targets,
                          float* lse_out, float* logp_out, int* bad_targets, cudaStream_t stream);

}  // namespace carbon::kern
