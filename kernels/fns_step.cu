// Launchers of fns_step (fns_step.cuh): check the arguments, launch one block of 256 threads per row.
#include <cmath>

#include "carbon/kernels/fns_step.h"
#include "fns_step.cuh"

namespace carbon::kern {

const char* fns_step_argument_error(const void* logits, int rows, long long row_stride, const FnsStepRows& in,
                                    const FnsStepParams& params, const FnsStepOutputs& out) {
    if (rows < 0) return "fns_step: negative row count";
    if (rows == 0) return nullptr;
    if (logits == nullptr) return "fns_step: no logits";
    if (out.status == nullptr) return "fns_step: no status output (it says which rows are the CPU's)";
    if (row_stride < kFnsKmers) return "fns_step: the row stride is below the 4,096 DNA logits of a row";
    if (!(params.temperature >= 0.0f) || !std::isfinite(params.temperature))
        return "fns_step: the temperature must be a finite number >= 0";
    if (!(params.top_p > 0.0f && params.top_p <= 1.0f)) return "fns_step: top_p must be in (0, 1]";
    if (params.temperature > 0.0f && (in.streams == nullptr || in.steps == nullptr))
        return "fns_step: sampling needs each row's Philox stream and token step";
    return nullptr;
}

namespace {

template <class T>
cudaError_t launch_fns_step(const T* logits, int rows, long long row_stride, const FnsStepRows& in,
                            const FnsStepParams& params, const FnsStepOutputs& out, cudaStream_t stream) {
    if (fns_step_argument_error(logits, rows, row_stride, in, params, out) != nullptr) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    return launch(fns_step_kernel<T>, dim3(static_cast<unsigned>(rows)), dim3(kFnsThreads), 0, stream, logits,
                  row_stride, in, params, out);
}

}  // namespace

cudaError_t fns_step(const float* logits, int rows, long long row_stride, const FnsStepRows& in,
                     const FnsStepParams& params, const FnsStepOutputs& out, cudaStream_t stream) {
    return launch_fns_step(logits, rows, row_stride, in, params, out, stream);
}

cudaError_t fns_step(const __nv_bfloat16* logits, int rows, long long row_stride, const FnsStepRows& in,
                     const FnsStepParams& params, const FnsStepOutputs& out, cudaStream_t stream) {
    return launch_fns_step(logits, rows, row_stride, in, params, out, stream);
}

}  // namespace carbon::kern
