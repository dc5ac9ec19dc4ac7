// Launchers of gemv_int8 (gemv_int8.cuh): check sizes and alignment, launch the activation rows 8
// at a time with the narrowest register tile that holds them (1, 2, 4 or 8).
#include <cstdio>
#include <string>

#include "carbon/kernels/gemv_int8.h"
#include "gemv_int8.cuh"

namespace carbon::kern {
namespace {

thread_local std::string g_refusal;

template <class... A>
cudaError_t refuse(const char* format, A... args) {
    char text[256];
    std::snprintf(text, sizeof text, format, args...);
    g_refusal = std::string("gemv_int8: ") + text;
    return cudaErrorInvalidValue;
}

bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int kBatch>
cudaError_t launch_group(const int8_t* x, const float* xs, int batch, const int8_t* w, const float* ws, const int32_t* rows,
                         float* y, const GemvInt8Sizes& s, bool accumulate, cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned>((s.n + kGemvInt8Rows - 1) / kGemvInt8Rows));
    return launch(gemv_int8_kernel<kBatch>, grid, dim3(kGemvInt8Threads), 0, stream, x, xs, batch, s.ldx, w, ws, s.w_rows,
                  s.k, rows, s.n, y, s.ldy, accumulate);
}

}  // namespace

cudaError_t gemv_int8(const int8_t* x, const float* xs, const int8_t* w, const float* ws, const int32_t* rows, float* y,
                      const GemvInt8Sizes& s, bool accumulate, cudaStream_t stream) {
    g_refusal.clear();
    if (s.batch < 0 || s.k < 1 || s.n < 0 || s.w_rows < 0)
        return refuse("bad size (batch %d, k %d, n %d, w_rows %d)", s.batch, s.k, s.n, s.w_rows);
    if (s.k % kGemvInt8Chunk != 0)
        return refuse("k = %d is not a multiple of %d: rows must start on 16-byte boundaries for the 128-bit loads", s.k,
                      kGemvInt8Chunk);
    if (s.k > 133000) return refuse("k = %d: the int32 dot products could overflow (k * 127 * 127)", s.k);
    if (s.ldx < s.k || s.ldx % 16 != 0) return refuse("ldx = %d: at least k = %d and a multiple of 16", s.ldx, s.k);
    if (s.ldy < s.n) return refuse("ldy = %d is less than n = %d", s.ldy, s.n);
    if (rows == nullptr && s.n > s.w_rows)
        return refuse("n = %d outputs but W has only %d rows and no row list selects among them", s.n, s.w_rows);
    if (s.batch == 0 || s.n == 0) return cudaSuccess;
    if (x == nullptr || xs == nullptr || w == nullptr || ws == nullptr || y == nullptr) return refuse("a null pointer");
    if (!aligned16(x) || !aligned16(w)) return refuse("x and W must be 16-byte aligned for the 128-bit loads");
    for (int b0 = 0; b0 < s.batch; b0 += kGemvInt8Batch) {
        const int nb = s.batch - b0 < kGemvInt8Batch ? s.batch - b0 : kGemvInt8Batch;
        const int8_t* xg = x + static_cast<std::size_t>(b0) * static_cast<std::size_t>(s.ldx);
        float* yg = y + static_cast<std::size_t>(b0) * static_cast<std::size_t>(s.ldy);
        cudaError_t status;
        if (nb == 1) status = launch_group<1>(xg, xs + b0, nb, w, ws, rows, yg, s, accumulate, stream);
        else if (nb == 2) status = launch_group<2>(xg, xs + b0, nb, w, ws, rows, yg, s, accumulate, stream);
        else if (nb <= 4) status = launch_group<4>(xg, xs + b0, nb, w, ws, rows, yg, s, accumulate, stream);
        else status = launch_group<8>(xg, xs + b0, nb, w, ws, rows, yg, s, accumulate, stream);
        if (status != cudaSuccess) return status;
    }
    return cudaSuccess;
}

const char* gemv_int8_last_refusal() {
    return g_refusal.c_str();
}

}  // namespace carbon::kern
