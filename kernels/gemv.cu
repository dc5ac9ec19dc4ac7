// Launchers of gemv (gemv.cuh): check sizes, alignment and workspace, split k by gemv_plan, launch
// the activation rows 8 at a time with the narrowest register tile that holds them (1, 2, 4 or 8).
#include <cstdio>
#include <string>

#include "carbon/kernels/gemv.h"
#include "gemv.cuh"

namespace carbon::kern {
namespace {

thread_local std::string g_refusal;

template <class... A>
cudaError_t refuse(const char* format, A... args) {
    char text[256];
    std::snprintf(text, sizeof text, format, args...);
    g_refusal = std::string("gemv: ") + text;
    return cudaErrorInvalidValue;
}

bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// The tickets: one counter per tile, at the start of the workspace, in a region of the same size
// for every shape (k is split only below kGemvTargetBlocks tiles), so that launches of different
// shapes sharing one workspace find every counter at zero: a region sized by n would put one
// shape's partials over another shape's counters (found on an H200 with the carbon-3b shape:
// wk's 192-tile partials landed on wq's counters for tiles 192-767, and the next layer's wq
// never drew its last ticket).
constexpr std::size_t kTicketBytes = kGemvTargetBlocks * sizeof(unsigned int);
static_assert(kTicketBytes % 16 == 0, "the partials after the tickets stay 16-byte aligned");

template <class Tw, class Tx, class Ty, int kBatch>
cudaError_t launch_group(const Tx* x, int batch, const Tw* w, const int32_t* rows, Ty* y, const GemvSizes& s,
                         const GemvPlan& plan, void* workspace, cudaStream_t stream) {
    unsigned int* tickets = nullptr;
    float* partials = nullptr;
    if (plan.splits > 1) {
        tickets = static_cast<unsigned int*>(workspace);
        partials = reinterpret_cast<float*>(static_cast<unsigned char*>(workspace) + kTicketBytes);
    }
    const dim3 grid(static_cast<unsigned>((s.n + kGemvRows - 1) / kGemvRows), static_cast<unsigned>(plan.splits));
    return launch(gemv_kernel<Tw, Tx, Ty, kBatch>, grid, dim3(kGemvThreads), 0, stream, x, batch, s.ldx, w, s.w_rows,
                  s.k, rows, s.n, y, s.ldy, partials, tickets, plan.chunks_per_split);
}

template <class Tw, class Tx, class Ty>
cudaError_t run(const Tx* x, const Tw* w, const int32_t* rows, Ty* y, const GemvSizes& s, void* workspace,
                std::size_t workspace_bytes, cudaStream_t stream) {
    g_refusal.clear();
    if (s.batch < 0 || s.k < 0 || s.n < 0 || s.w_rows < 0)
        return refuse("negative size (batch %d, k %d, n %d, w_rows %d)", s.batch, s.k, s.n, s.w_rows);
    if (s.k % kGemvChunk != 0)
        return refuse(
            "k = %d is not a multiple of %d: weight rows must start on 16-byte boundaries for the 128-bit loads", s.k,
            kGemvChunk);
    if (s.ldx < s.k) return refuse("ldx = %d is less than k = %d", s.ldx, s.k);
    if (s.ldy < s.n) return refuse("ldy = %d is less than n = %d", s.ldy, s.n);
    if (rows == nullptr && s.n > s.w_rows)
        return refuse("n = %d outputs but W has only %d rows and no row list selects among them", s.n, s.w_rows);
    if (s.batch == 0 || s.n == 0) return cudaSuccess;
    if (y == nullptr || (s.k > 0 && (x == nullptr || w == nullptr))) return refuse("null x, W or y");
    if (!aligned16(x) || !aligned16(w))
        return refuse("x (%p) and W (%p) must be 16-byte aligned for the 128-bit loads", static_cast<const void*>(x),
                      static_cast<const void*>(w));
    if (static_cast<std::size_t>(s.ldx) * sizeof(Tx) % 16 != 0)
        return refuse("ldx = %d elements of %zu bytes: x's rows must start on 16-byte boundaries", s.ldx, sizeof(Tx));

    const GemvPlan plan = gemv_plan(s.n, s.k);
    if (plan.splits > 1 && (s.n + kGemvRows - 1) / kGemvRows > kGemvTargetBlocks)  // gemv_plan never does this
        return refuse("k split %d ways for %d tiles: more tiles than the %d tickets", plan.splits, (s.n + kGemvRows - 1) / kGemvRows,
                      kGemvTargetBlocks);
    if (plan.splits > 1) {
        const std::size_t need = gemv_workspace_bytes(s.n, s.k, s.batch);
        if (workspace == nullptr || workspace_bytes < need)
            return refuse("this shape splits k %d ways and needs a workspace of %zu bytes (given %zu)", plan.splits,
                          need, workspace == nullptr ? std::size_t{0} : workspace_bytes);
        if (!aligned16(workspace)) return refuse("the workspace must be 16-byte aligned");
    }

    // Groups of 8 activation rows; the per-row sums do not depend on the group, so any batch size
    // gives the bits a batch of one gives.
    for (int b0 = 0; b0 < s.batch; b0 += kGemvBatchGroup) {
        const int nb = s.batch - b0 < kGemvBatchGroup ? s.batch - b0 : kGemvBatchGroup;
        const Tx* xg = x + static_cast<std::size_t>(b0) * s.ldx;
        Ty* yg = y + static_cast<std::size_t>(b0) * s.ldy;
        cudaError_t status;
        if (nb == 1)
            status = launch_group<Tw, Tx, Ty, 1>(xg, nb, w, rows, yg, s, plan, workspace, stream);
        else if (nb == 2)
            status = launch_group<Tw, Tx, Ty, 2>(xg, nb, w, rows, yg, s, plan, workspace, stream);
        else if (nb <= 4)
            status = launch_group<Tw, Tx, Ty, 4>(xg, nb, w, rows, yg, s, plan, workspace, stream);
        else
            status = launch_group<Tw, Tx, Ty, 8>(xg, nb, w, rows, yg, s, plan, workspace, stream);
        if (status != cudaSuccess) return status;
    }
    return cudaSuccess;
}

}  // namespace

std::size_t gemv_workspace_bytes(int n, int k, int batch) {
    if (n <= 0 || k < 0 || batch <= 0) return 0;
    const GemvPlan plan = gemv_plan(n, k);
    if (plan.splits == 1) return 0;
    const std::size_t group = batch < kGemvBatchGroup ? static_cast<std::size_t>(batch) : kGemvBatchGroup;
    return kTicketBytes + static_cast<std::size_t>(plan.splits) * group * static_cast<std::size_t>(n) * sizeof(float);
}

int gemv_k_splits(int n, int k) {
    return n < 0 || k < 0 ? 1 : gemv_plan(n, k).splits;
}

const char* gemv_last_refusal() {
    return g_refusal.c_str();
}

#define CARBON_GEMV(TX, TW, TY)                                                                                     \
    cudaError_t gemv(const TX* x, const TW* w, const int32_t* rows, TY* y, const GemvSizes& sizes, void* workspace, \
                     std::size_t workspace_bytes, cudaStream_t stream) {                                            \
        return run(x, w, rows, y, sizes, workspace, workspace_bytes, stream);                                       \
    }
CARBON_GEMV(__nv_bfloat16, __nv_bfloat16, float)
CARBON_GEMV(__nv_bfloat16, __nv_bfloat16, __nv_bfloat16)
CARBON_GEMV(float, __nv_bfloat16, float)
CARBON_GEMV(__nv_bfloat16, __half, float)
CARBON_GEMV(__nv_bfloat16, __half, __nv_bfloat16)
CARBON_GEMV(float, __half, float)
CARBON_GEMV(__nv_bfloat16, float, float)
CARBON_GEMV(__nv_bfloat16, float, __nv_bfloat16)
CARBON_GEMV(float, float, float)
#undef CARBON_GEMV

}  // namespace carbon::kern
