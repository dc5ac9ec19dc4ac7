// The host device seam's reference GEMM (reference_gemm.h): op(A) and op(B) are first converted to
// fp32 panels laid out so each output element is one contiguous dot product over k.
#include "reference_gemm.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace carbon::gpu::host_seam {
namespace {

float load(const void* base, std::int64_t index, DType type) {
    switch (type) {
        case DType::F32: {
            float v;
            std::memcpy(&v, static_cast<const char*>(base) + index * 4, 4);
            return v;
        }
        case DType::F16:
        case DType::BF16: {
            std::uint16_t h;
            std::memcpy(&h, static_cast<const char*>(base) + index * 2, 2);
            return type == DType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
        }
        case DType::Q8_0:
        case DType::I8:
        case DType::I32: break;  // not a float operand (int8 products: reference_gemm_int8)
    }
    return 0.0f;
}

void store(void* base, std::int64_t index, DType type, float v) {
    char* p = static_cast<char*>(base);
    switch (type) {
        case DType::F32:
            std::memcpy(p + index * 4, &v, 4);
            return;
        case DType::F16: {
            const std::uint16_t h = f32_to_f16(v);
            std::memcpy(p + index * 2, &h, 2);
            return;
        }
        case DType::BF16: {
            const std::uint16_t h = f32_to_bf16(v);
            std::memcpy(p + index * 2, &h, 2);
            return;
        }
        case DType::Q8_0:
        case DType::I8:
        case DType::I32: return;  // not a float operand (int8 products: reference_gemm_int8)
    }
}

// Element (r, c) of op(X), X stored column-major with leading dimension ld.
float op_at(const void* x, DType type, std::int64_t ld, Transpose t, std::int64_t r, std::int64_t c) {
    return t == Transpose::No ? load(x, r + c * ld, type) : load(x, c + r * ld, type);
}

// int8 x int8 -> int32 (validate_gemm allows only TN, alpha 1, beta 0): exact integer sums, as
// cuBLASLt's IMMA kernels compute them.
void reference_gemm_int8(const Gemm& g) {
    const auto* a = static_cast<const std::int8_t*>(g.a);
    const auto* b = static_cast<const std::int8_t*>(g.b);
    auto* c = static_cast<std::int32_t*>(g.c);
    for (std::int64_t j = 0; j < g.n; ++j)
        for (std::int64_t i = 0; i < g.m; ++i) {
            const std::int8_t* ar = a + i * g.lda;  // op(A) = A^T: row i of op(A) is column i of A
            const std::int8_t* bc = b + j * g.ldb;
            std::int32_t acc = 0;
            for (std::int64_t p = 0; p < g.k; ++p) acc += std::int32_t(ar[p]) * std::int32_t(bc[p]);
            c[i + j * g.ldc] = acc;
        }
}

}  // namespace

void reference_gemm(const Gemm& g) {
    if (g.m == 0 || g.n == 0) return;
    if (g.a_type == DType::I8) return reference_gemm_int8(g);
    const auto m = static_cast<std::size_t>(g.m), n = static_cast<std::size_t>(g.n), k = static_cast<std::size_t>(g.k);
    // a_rows[i * k + p] = op(A)(i, p); b_cols[j * k + p] = op(B)(p, j).
    std::vector<float> a_rows(m * k), b_cols(n * k);
    for (std::int64_t i = 0; i < g.m; ++i)
        for (std::int64_t p = 0; p < g.k; ++p) a_rows[i * k + p] = op_at(g.a, g.a_type, g.lda, g.trans_a, i, p);
    for (std::int64_t j = 0; j < g.n; ++j)
        for (std::int64_t p = 0; p < g.k; ++p) b_cols[j * k + p] = op_at(g.b, g.b_type, g.ldb, g.trans_b, p, j);
    for (std::int64_t j = 0; j < g.n; ++j)
        for (std::int64_t i = 0; i < g.m; ++i) {
            const float* ar = a_rows.data() + i * k;
            const float* bc = b_cols.data() + j * k;
            float acc = 0.0f;
            for (std::size_t p = 0; p < k; ++p) acc += ar[p] * bc[p];
            const std::int64_t ci = i + j * g.ldc;
            float out = g.alpha * acc;
            if (g.beta != 0.0f) out += g.beta * load(g.c, ci, g.c_type);
            store(g.c, ci, g.c_type, out);
        }
}

}  // namespace carbon::gpu::host_seam
