// The host device seam's GEMM: cuBLASLt's column-major matmul (gpu::Gemm) computed plainly on the
// CPU. bf16/fp16 inputs are converted to fp32 exactly, every product is accumulated in fp32 in k
// order, alpha and beta are applied in fp32, and the result is rounded once to C's type (nearest
// even); with beta == 0, C is not read. Test infrastructure (tests/gpu/host_device.h).
#pragma once

#include "gpu/device.h"

namespace carbon::gpu::host_seam {

// `g` must have passed validate_gemm; its pointers are host memory.
void reference_gemm(const Gemm& g);

}  // namespace carbon::gpu::host_seam
