// cuBLASLt matmul plans cached per shape (cublaslt_plans.h): descriptors, layouts and the
// heuristic's algorithm, with fp32 compute and scale (CUBLAS_COMPUTE_32F, CUDA_R_32F), or int32 for
// int8 operands (CUBLAS_COMPUTE_32I, CUDA_R_32I).
#include "gpu/cublaslt_plans.h"

#include <functional>

#include "gpu/cuda_check.h"

namespace carbon::gpu {
namespace {

cudaDataType_t cuda_type(DType t) {
    switch (t) {
        case DType::F32:
            return CUDA_R_32F;
        case DType::F16:
            return CUDA_R_16F;
        case DType::BF16:
            return CUDA_R_16BF;
        case DType::I8:
            return CUDA_R_8I;
        case DType::I32:
            return CUDA_R_32I;
        case DType::Q8_0:
            break;  // never on the GPU (cuda_backend refuses such a checkpoint)
    }
    return CUDA_R_32F;
}

cublasOperation_t cuda_op(Transpose t) {
    return t == Transpose::Yes ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// The largest power of two up to 256 that divides the address: cuBLASLt assumes 256-byte aligned
// operands unless told otherwise, and a pointer into the middle of a buffer is often not.
std::uint32_t alignment(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::uint32_t align = 256;
    while (align > 1 && a % align != 0) align /= 2;
    return align;
}

// Destroys the preference descriptor however make() leaves.
struct Preference {
    cublasLtMatmulPreference_t p = nullptr;
    ~Preference() {
        if (p) cublasLtMatmulPreferenceDestroy(p);
    }
};

std::string describe(const MatmulPlans::Key& g) {
    return std::string(g.trans_a == Transpose::Yes ? "T" : "N") + (g.trans_b == Transpose::Yes ? "T" : "N") + " m " +
           std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " + std::to_string(g.k) + ", " +
           dtype_name(g.ab_type) + " -> " + dtype_name(g.c_type) + ", lda " + std::to_string(g.lda) + ", ldb " +
           std::to_string(g.ldb) + ", ldc " + std::to_string(g.ldc) + ", operand alignments " +
           std::to_string(g.align_a) + "/" + std::to_string(g.align_b) + "/" + std::to_string(g.align_c) + " bytes";
}

}  // namespace

MatmulPlan::~MatmulPlan() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (desc) cublasLtMatmulDescDestroy(desc);
}

std::size_t MatmulPlans::KeyHash::operator()(const Key& k) const {
    std::size_t h = 0;
    const auto mix = [&h](std::uint64_t v) {
        h ^= std::hash<std::uint64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    };
    mix(static_cast<std::uint64_t>(k.trans_a) | static_cast<std::uint64_t>(k.trans_b) << 8 |
        static_cast<std::uint64_t>(k.ab_type) << 16 | static_cast<std::uint64_t>(k.c_type) << 24);
    for (std::int64_t v : {k.m, k.n, k.k, k.lda, k.ldb, k.ldc}) mix(static_cast<std::uint64_t>(v));
    mix(k.align_a | static_cast<std::uint64_t>(k.align_b) << 16 | static_cast<std::uint64_t>(k.align_c) << 32);
    return h;
}

MatmulPlans::Key MatmulPlans::key_of(const Gemm& g) {
    return Key{g.trans_a, g.trans_b, g.a_type,       g.c_type,       g.m,           g.n, g.k, g.lda,
               g.ldb,     g.ldc,     alignment(g.a), alignment(g.b), alignment(g.c)};
}

const MatmulPlan& MatmulPlans::get(const Gemm& g) {
    const Key key = key_of(g);
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, make(key)).first;
    return *it->second;
}

std::unique_ptr<MatmulPlan> MatmulPlans::make(const Key& key) {
    auto plan = std::make_unique<MatmulPlan>();
    // int8 x int8 -> int32 (the CUDA backend's int8 weights): integer compute and scale, exact sums.
    const bool int8 = key.ab_type == DType::I8;
    CARBON_CUDA_CHECK(cublasLtMatmulDescCreate(&plan->desc, int8 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F,
                                               int8 ? CUDA_R_32I : CUDA_R_32F));
    const std::int32_t op_a = cuda_op(key.trans_a), op_b = cuda_op(key.trans_b);
    CARBON_CUDA_CHECK(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
    CARBON_CUDA_CHECK(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
    // Layouts describe the matrices as stored: rows x cols with column stride ld.
    const bool ta = key.trans_a == Transpose::Yes, tb = key.trans_b == Transpose::Yes;
    const auto rows = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    CARBON_CUDA_CHECK(cublasLtMatrixLayoutCreate(&plan->a, cuda_type(key.ab_type), rows(ta ? key.k : key.m),
                                                 rows(ta ? key.m : key.k), key.lda));
    CARBON_CUDA_CHECK(cublasLtMatrixLayoutCreate(&plan->b, cuda_type(key.ab_type), rows(tb ? key.n : key.k),
                                                 rows(tb ? key.k : key.n), key.ldb));
    CARBON_CUDA_CHECK(cublasLtMatrixLayoutCreate(&plan->c, cuda_type(key.c_type), rows(key.m), rows(key.n), key.ldc));

    Preference pref;
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&pref.p));
    const std::uint64_t max_workspace = workspace_;
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &max_workspace, sizeof max_workspace));
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                                           &key.align_a, sizeof key.align_a));
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                                           &key.align_b, sizeof key.align_b));
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                                           &key.align_c, sizeof key.align_c));
    CARBON_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                                           &key.align_c, sizeof key.align_c));

    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CARBON_CUDA_CHECK(cublasLtMatmulAlgoGetHeuristic(handle_, plan->desc, plan->a, plan->b, plan->c, plan->c, pref.p, 1,
                                                     &result, &found));
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS) {
        throw Error("cublasLtMatmulAlgoGetHeuristic", "CUBLAS_STATUS_NOT_SUPPORTED",
                    "no cuBLASLt algorithm for " + describe(key) + " within " + std::to_string(workspace_) +
                        " bytes of workspace",
                    __FILE__, __LINE__);
    }
    plan->algo = result.algo;
    plan->workspace_bytes = result.workspaceSize;
    return plan;
}

}  // namespace carbon::gpu
