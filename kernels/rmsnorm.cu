// Launchers of rmsnorm (rmsnorm.cuh): check the sizes, pick the vector or scalar path, launch one
// block per row; explicit instantiations for the supported activation/weight pairs.
#include <cmath>

#include "carbon/kernels/rmsnorm.h"
#include "rmsnorm.cuh"

namespace carbon::kern {
namespace {

template <class A, class W, bool kResidual>
cudaError_t launch_rmsnorm(const A* x, A* h, const W* weight, A* out, int rows, int hidden, float eps,
                           cudaStream_t stream) {
    if (rows < 0 || hidden <= 0 || !(eps >= 0.0f) || !std::isfinite(eps)) return cudaErrorInvalidValue;
    if (rows == 0) return cudaSuccess;
    if (x == nullptr || weight == nullptr || out == nullptr || (kResidual && h == nullptr)) return cudaErrorInvalidValue;
    const bool vector = hidden % io::kVec == 0 && io::aligned16(x) && io::aligned16(weight) && io::aligned16(out) &&
                        (!kResidual || io::aligned16(h));
    const dim3 grid(static_cast<unsigned>(rows)), block(kRmsNormThreads);
    if (vector) return launch(rmsnorm_kernel<A, W, true, kResidual>, grid, block, 0, stream, x, h, weight, out, hidden, eps);
    return launch(rmsnorm_kernel<A, W, false, kResidual>, grid, block, 0, stream, x, h, weight, out, hidden, eps);
}

}  // namespace

template <class A, class W>
cudaError_t rmsnorm(const A* x, const W* weight, A* out, int rows, int hidden, float eps, cudaStream_t stream) {
    return launch_rmsnorm<A, W, false>(x, nullptr, weight, out, rows, hidden, eps, stream);
}

template <class A, class W>
cudaError_t rmsnorm_residual(A* h, const A* x, const W* weight, A* out, int rows, int hidden, float eps,
                             cudaStream_t stream) {
    return launch_rmsnorm<A, W, true>(x, h, weight, out, rows, hidden, eps, stream);
}

#define CARBON_RMSNORM_INSTANCE(A, W)                                                                    \
    template cudaError_t rmsnorm<A, W>(const A*, const W*, A*, int, int, float, cudaStream_t);          \
    template cudaError_t rmsnorm_residual<A, W>(A*, const A*, const W*, A*, int, int, float, cudaStream_t);
CARBON_RMSNORM_INSTANCE(float, float)
CARBON_RMSNORM_INSTANCE(float, __half)
CARBON_RMSNORM_INSTANCE(float, __nv_bfloat16)
CARBON_RMSNORM_INSTANCE(__nv_bfloat16, float)
CARBON_RMSNORM_INSTANCE(__nv_bfloat16, __half)
CARBON_RMSNORM_INSTANCE(__nv_bfloat16, __nv_bfloat16)
#undef CARBON_RMSNORM_INSTANCE

}  // namespace carbon::kern
