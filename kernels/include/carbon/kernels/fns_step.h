// Launchers of the FNS step (kernels/fns_step.cuh): per row of 4,096 DNA logits, the 6-mer softmax,
// the six per-base marginals plain and masked, and the 6-mer the CPU's FNS sampler chooses, with the
// log-probabilities it scores. Plain C++ for any caller: device pointers, sizes and a stream in.
//
// What the CPU does, and what this matches (engine/src/fns/fns.cpp, fns_generate.cpp, sampling.cpp):
//   probs = dna_softmax(row)                     softmax over the 4,096 6-mers only
//   plain = fns_marginals(probs)                 marginals[j][b], j = 0..5, codes A=0 T=1 C=2 G=3
//   masked = fns_masked_marginals(probs, masks)  the joint restricted to the template, renormalised;
//                                                one set for the token, not conditioned base by base
//   base j = pick_base(adjust_base_distribution(masked[j], masks[j], T, top_p), u_j)
//   u_j = uniform01(seed, stream, 2 * step + j / 4, j % 4)  (0 when T == 0: greedy)
//   token = sum of base_j * 4^(5 - j); logp[j] = log(double(plain[j][base_j]))
// That is choose_fns's first leaf: the design's token when no homopolymer / motif / GC constraint
// binds. With constraints the host keeps its search, fed by the marginals below.
//
// Equality with the CPU. The choices are certified: a row's status is kFnsCertified only when every
// marginal vector within the bound below gives the same choices (kernels/fns_certify.cuh has the
// proof), so a certified token is exactly the CPU's. Otherwise the row is kFnsUndecided (an exact or
// near tie, as in a flat row under greedy, or a draw within ~1e-6 of a boundary: none of the tests'
// ~1,000 random rows, none of 146,663 random picks) and the caller runs the CPU functions on that
// row's logits. With certify_every_subset, certified also covers every
// re-pick of the constraint search (each subset of a position's allowed bases), so the host's search
// on these marginals makes exactly the CPU's choices.
// Marginal bound: |GPU - CPU| <= 1e-6 * GPU + 2^-109 / masked_total + 2^-123 for every entry of
// both sets (plain: total ~1); certified rows have masked_total >= 2^-100.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace carbon::kern {

inline constexpr int kFnsKmers = 4096;
inline constexpr int kFnsPositions = 6;

enum FnsStatus : int32_t {
    kFnsCertified = 0,      // token and logp are exactly the CPU's
    kFnsUndecided = 1,      // the marginals are within the bound but a choice could differ: use the CPU
    kFnsNoAllowedKmer = 2,  // a mask allows no base: the template allows no 6-mer (the CPU refuses:
                            // fns_masked_marginals gives total 0 and generation stops with an error)
    kFnsNonFinite = 3,      // a logit is NaN or infinite (the backends refuse such rows)
};

struct FnsStepParams {
    float temperature = 0.0f;  // 0: greedy; > 0: sample (finite)
    float top_p = 1.0f;        // (0, 1], per base
    uint64_t seed = 0;
    bool certify_every_subset = false;  // also certify the constraint search's re-picks
};

// Per row, device pointers.
struct FnsStepRows {
    const uint8_t* masks = nullptr;     // [rows][6] BaseMask (bit c: code c allowed); nullptr: all N
    const uint64_t* streams = nullptr;  // [rows] Philox stream (the design's index); needed when T > 0
    const uint64_t* steps = nullptr;    // [rows] the design's token step t; needed when T > 0
};

// Per row, device pointers; any but status may be nullptr.
struct FnsStepOutputs {
    int32_t* status = nullptr;          // [rows] FnsStatus
    int32_t* token = nullptr;           // [rows] 6-mer index when certified, else -1
    double* logp = nullptr;             // [rows][6] log plain marginal of the chosen base, else NaN
    float* marginals = nullptr;         // [rows][6][4] plain (NaN for non-finite rows)
    float* masked_marginals = nullptr;  // [rows][6][4] masked (all 0 when no 6-mer is allowed)
};

// Why these arguments cannot be launched, or nullptr: negative rows, a row stride below 4,096, a
// missing logits or status pointer, a temperature that is negative or not finite, top_p outside
// (0, 1], sampling without streams and steps.
const char* fns_step_argument_error(const void* logits, int rows, long long row_stride, const FnsStepRows& in,
                                    const FnsStepParams& params, const FnsStepOutputs& out);

// One block per row; logits row r starts at logits + r * row_stride (elements). Returns
// cudaErrorInvalidValue when fns_step_argument_error names a reason; rows == 0 launches nothing.
cudaError_t fns_step(const float* logits, int rows, long long row_stride, const FnsStepRows& in,
                     const FnsStepParams& params, const FnsStepOutputs& out, cudaStream_t stream);
cudaError_t fns_step(const __nv_bfloat16* logits, int rows, long long row_stride, const FnsStepRows& in,
                     const FnsStepParams& params, const FnsStepOutputs& out, cudaStream_t stream);

}  // namespace carbon::kern
