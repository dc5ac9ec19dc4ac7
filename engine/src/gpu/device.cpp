// What both device seam implementations share: the error type's message and the GEMM argument
// rules (cuBLASLt's, checked before either implementation does anything, so the host seam accepts
// exactly the calls the real one would).
#include "gpu/device.h"

#include <cstdint>
#include <string_view>
#include <utility>

namespace carbon::gpu {
namespace {

std::string_view base_name(const char* path) {
    const std::string_view p(path);
    const auto slash = p.find_last_of('/');
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

std::string message(const std::string& call, const std::string& status, const std::string& detail, const char* file,
                    int line) {
    std::string m = call + " failed: " + status;
    if (!detail.empty()) m += ": " + detail;
    m += " (";
    m += base_name(file);
    m += ":" + std::to_string(line) + ")";
    return m;
}

[[noreturn]] void bad_gemm(const char* status, const std::string& what, const char* file, int line) {
    throw Error("gemm", status, what, file, line);
}

}  // namespace

Error::Error(std::string call, std::string status, std::string detail, const char* file, int line)
    : carbon::Error(message(call, status, detail, file, line)),
      call_(std::move(call)),
      status_(std::move(status)),
      detail_(std::move(detail)),
      file_(base_name(file)),
      line_(line) {}

std::size_t matrix_extent_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, DType type) {
    if (rows <= 0 || cols <= 0) return 0;
    return static_cast<std::size_t>((cols - 1) * ld + rows) * dtype_size(type);
}

void validate_gemm(const Gemm& g, const char* file, int line) {
    const auto dims = "m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " + std::to_string(g.k);
    if (g.m < 0 || g.n < 0 || g.k < 0)
        bad_gemm("CUBLAS_STATUS_INVALID_VALUE", "negative size (" + dims + ")", file, line);
    if (g.m == 0 || g.n == 0) return;  // nothing to compute
    if (g.k == 0) bad_gemm("CUBLAS_STATUS_INVALID_VALUE", "k must be at least 1 (" + dims + ")", file, line);
    const bool int8 = g.a_type == DType::I8 || g.b_type == DType::I8 || g.c_type == DType::I8 || g.c_type == DType::I32;
    if (int8) {
        // cuBLASLt's int8 GEMM in the regular (column-major) order: IMMA kernels take only this
        // form (the cuBLAS guide's cublasLtMatmul requirements for int8 without the IMMA layouts).
        if (g.a_type != DType::I8 || g.b_type != DType::I8 || g.c_type != DType::I32)
            bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED",
                     std::string("int8 GEMMs take int8 A and B into an int32 C, not ") + dtype_name(g.a_type) + " x " +
                         dtype_name(g.b_type) + " -> " + dtype_name(g.c_type),
                     file, line);
        if (g.trans_a != Transpose::Yes || g.trans_b != Transpose::No)
            bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED", "int8 GEMMs are TN only: A transposed, B not (" + dims + ")", file, line);
        if (g.m % 4 != 0 || g.k % 4 != 0 || g.lda % 4 != 0 || g.ldb % 4 != 0 || g.ldc % 4 != 0)
            bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED",
                     "int8 GEMMs need m, k and the leading dimensions in multiples of 4 (" + dims + ", lda " +
                         std::to_string(g.lda) + ", ldb " + std::to_string(g.ldb) + ", ldc " + std::to_string(g.ldc) + ")",
                     file, line);
        if (g.alpha != 1.0f || g.beta != 0.0f)
            bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED", "int8 GEMMs here are C = op(A) op(B): alpha 1 and beta 0 (" + dims + ")",
                     file, line);
        const auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4 != 0; };
        if (misaligned(g.a) || misaligned(g.b) || misaligned(g.c))
            bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED", "int8 GEMM operands must be 4-byte aligned (" + dims + ")", file, line);
    }
    if (g.a_type != g.b_type)
        bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED",
                 std::string("A is ") + dtype_name(g.a_type) + " but B is " + dtype_name(g.b_type) +
                     " (cuBLASLt with fp32 accumulation needs A and B of one type)",
                 file, line);
    if (!int8 && g.c_type != g.a_type && g.c_type != DType::F32)
        bad_gemm("CUBLAS_STATUS_NOT_SUPPORTED",
                 std::string("C is ") + dtype_name(g.c_type) + " for " + dtype_name(g.a_type) +
                     " inputs (C must be the inputs' type or float32)",
                 file, line);
    const std::int64_t a_rows = g.trans_a == Transpose::No ? g.m : g.k;
    const std::int64_t b_rows = g.trans_b == Transpose::No ? g.k : g.n;
    const auto check_ld = [&](const char* name, std::int64_t ld, std::int64_t rows) {
        if (ld < rows)
            bad_gemm("CUBLAS_STATUS_INVALID_VALUE",
                     std::string("ld") + name + " " + std::to_string(ld) + " is less than the " + std::to_string(rows) +
                         " rows " + name + " has as stored, column-major (" + dims + ")",
                     file, line);
    };
    check_ld("a", g.lda, a_rows);
    check_ld("b", g.ldb, b_rows);
    check_ld("c", g.ldc, g.m);
    if (g.a == nullptr || g.b == nullptr || g.c == nullptr)
        bad_gemm("CUBLAS_STATUS_INVALID_VALUE", "a null A, B or C pointer (" + dims + ")", file, line);
}

}  // namespace carbon::gpu
