// The row-major to column-major GEMM mapping (engine/src/gpu/gemm_row_major.h), on the host seam:
// the fields of the mapped call for a linear layer, every transpose pair at awkward sizes against a
// double-precision reference, and a broken mapping that the same comparison must reject.
#include <cstdio>
#include <utility>

#include "check.h"
#include "gpu/gemm_row_major.h"
#include "host_device.h"
#include "seam_checks.h"

using namespace carbon::gpu;
using carbon::DType;

TEST(a_linear_layer_maps_to_the_tn_call_with_operands_swapped) {
    // y[M, N] = x[M, K] W[N, K]^T with padded rows: x has ld 70 for K 64, y has ld 50 for N 48.
    int x = 0, w = 0, y = 0;
    RowMajorGemm g;
    g.trans_b = Transpose::Yes;
    g.m = 3, g.n = 48, g.k = 64;
    g.a = &x, g.a_type = DType::BF16, g.lda = 70;
    g.b = &w, g.b_type = DType::BF16, g.ldb = 64;
    g.c = &y, g.c_type = DType::F32, g.ldc = 50;
    g.alpha = 0.5f, g.beta = 1.0f;
    const Gemm c = to_column_major(g);
    CHECK(c.trans_a == Transpose::Yes);  // W, stored [N, K] row-major = [K, N] column-major, transposed
    CHECK(c.trans_b == Transpose::No);   // x, stored [M, K] row-major = x^T [K, M] column-major
    CHECK_EQ(c.m, 48);
    CHECK_EQ(c.n, 3);
    CHECK_EQ(c.k, 64);
    CHECK(c.a == &w);
    CHECK_EQ(c.lda, 64);
    CHECK(c.b == &x);
    CHECK_EQ(c.ldb, 70);
    CHECK(c.c == &y);
    CHECK_EQ(c.ldc, 50);
    CHECK(c.a_type == DType::BF16 && c.b_type == DType::BF16 && c.c_type == DType::F32);
    CHECK_EQ(c.alpha, 0.5f);
    CHECK_EQ(c.beta, 1.0f);
}

TEST(every_transpose_pair_matches_the_reference_at_awkward_sizes) {
    host_seam::HostDevice device;
    const checks::GemmReport r = checks::row_major_gemms(device);
    std::printf("  %d GEMMs checked\n", r.cases);
    CHECK(r.cases >= 144);
    CHECK_EQ(r.mismatches + r.refused, 0);
    if (!r.first.empty()) std::printf("  first mismatch: %s\n", r.first.c_str());
}

// Negative controls: two classic mistakes in the mapping, which the same comparison must reject in
// every case. Reading the row-major operands as if they were column-major (no swap) mostly reads
// past the operands' ends, which the host seam refuses; swapping the operands but also toggling the
// transpose flags runs and gives wrong values.
static Gemm unswapped(const RowMajorGemm& g) {
    Gemm c;
    c.trans_a = g.trans_a, c.trans_b = g.trans_b, c.m = g.m, c.n = g.n, c.k = g.k;
    c.a = g.a, c.a_type = g.a_type, c.lda = g.lda;
    c.b = g.b, c.b_type = g.b_type, c.ldb = g.ldb;
    c.c = g.c, c.c_type = g.c_type, c.ldc = g.ldc;
    c.alpha = g.alpha, c.beta = g.beta;
    return c;
}

static Gemm toggled(const RowMajorGemm& g) {
    Gemm c = to_column_major(g);
    c.trans_a = c.trans_a == Transpose::No ? Transpose::Yes : Transpose::No;
    c.trans_b = c.trans_b == Transpose::No ? Transpose::Yes : Transpose::No;
    return c;
}

// And a mistake that reads nothing out of range: alpha and beta not passed on. The values catch it
// in every case that scales or accumulates (three of the four alpha/beta variants).
static Gemm unscaled(const RowMajorGemm& g) {
    Gemm c = to_column_major(g);
    c.alpha = 1.0f, c.beta = 0.0f;
    return c;
}

TEST(mappings_with_classic_mistakes_are_rejected) {
    for (const auto& [name, mapping] : {std::pair{"no swap", &unswapped}, std::pair{"toggled transposes", &toggled}}) {
        host_seam::HostDevice device;
        const checks::GemmReport r = checks::row_major_gemms(device, mapping);
        std::printf("  %s: %d of %d cases refused, %d wrong; first: %s\n", name, r.refused, r.cases, r.mismatches,
                    r.first.c_str());
        CHECK_EQ(r.refused + r.mismatches, r.cases);
    }
    host_seam::HostDevice device;
    const checks::GemmReport r = checks::row_major_gemms(device, unscaled);
    std::printf("  alpha/beta dropped: %d of %d cases wrong; first: %s\n", r.mismatches, r.cases, r.first.c_str());
    CHECK_EQ(r.refused, 0);
    CHECK_EQ(r.mismatches, r.cases * 3 / 4);
}

TEST(int8_gemms_give_exact_integer_sums) {
    host_seam::HostDevice device;
    const checks::GemmReport r = checks::int8_gemms(device);
    std::printf("  %d int8 GEMMs checked\n", r.cases);
    CHECK_EQ(r.cases, 36);
    CHECK_EQ(r.mismatches + r.refused, 0);
    if (!r.first.empty()) std::printf("  first failure: %s\n", r.first.c_str());
}

// The int8 forms cuBLASLt's IMMA kernels do not take in the regular layout are refused, as the real
// seam would have them refused (validate_gemm runs before either implementation).
TEST(int8_gemms_outside_cublaslt_s_form_are_refused) {
    host_seam::HostDevice device;
    const Stream s = device.create_stream();
    void* a = device.allocate(4096);
    void* c = device.allocate(4096);
    const auto tn = [&] {
        Gemm g;
        g.trans_a = Transpose::Yes;
        g.m = 8, g.n = 8, g.k = 16;
        g.a = a, g.a_type = DType::I8, g.lda = 16;
        g.b = a, g.b_type = DType::I8, g.ldb = 16;
        g.c = c, g.c_type = DType::I32, g.ldc = 8;
        return g;
    };
    device.gemm(tn(), s);  // the form the CUDA backend uses
    Gemm nn = tn();
    nn.trans_a = Transpose::No, nn.lda = 8;
    CHECK_THROWS_WITH(device.gemm(nn, s), "CUBLAS_STATUS_NOT_SUPPORTED", "TN only");
    Gemm odd = tn();
    odd.m = 6;
    CHECK_THROWS_WITH(device.gemm(odd, s), "multiples of 4");
    Gemm scaled = tn();
    scaled.alpha = 2.0f;
    CHECK_THROWS_WITH(device.gemm(scaled, s), "alpha 1 and beta 0");
    Gemm to_float = tn();
    to_float.c_type = DType::F32;
    CHECK_THROWS_WITH(device.gemm(to_float, s), "int8 A and B into an int32 C");
    Gemm mixed = tn();
    mixed.b_type = DType::BF16;
    CHECK_THROWS_WITH(device.gemm(mixed, s), "int8 A and B into an int32 C");
    device.stream_synchronize(s);
    device.free(a);
    device.free(c);
    device.destroy_stream(s);
}

CHECK_MAIN()
