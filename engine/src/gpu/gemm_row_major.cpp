// Row-major GEMMs mapped onto the seam's column-major cuBLASLt call (gemm_row_major.h explains why
// swapping the operands is the whole mapping).
#include "gpu/gemm_row_major.h"

namespace carbon::gpu {

Gemm to_column_major(const RowMajorGemm& g) {
    Gemm c;
    c.trans_a = g.trans_b;
    c.trans_b = g.trans_a;
    c.m = g.n;
    c.n = g.m;
    c.k = g.k;
    c.a = g.b;
    c.a_type = g.b_type;
    c.lda = g.ldb;
    c.b = g.a;
    c.b_type = g.a_type;
    c.ldb = g.lda;
    c.c = g.c;
    c.c_type = g.c_type;
    c.ldc = g.ldc;
    c.alpha = g.alpha;
    c.beta = g.beta;
    return c;
}

void gemm_row_major(Device& device, const RowMajorGemm& g, Stream stream) {
    device.gemm(to_column_major(g), stream);
}

}  // namespace carbon::gpu
