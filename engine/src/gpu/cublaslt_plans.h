// cuBLASLt matmul plans of the real seam, cached per shape: the operation descriptor, the three
// matrix layouts and the algorithm the heuristic picked, made once for each (transposes, sizes,
// types, leading dimensions, pointer alignments) and reused by every later GEMM of that shape (a
// decode step repeats the same few dozen). Needs the CUDA headers; owned by the CUDA device.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "gpu/device.h"

namespace carbon::gpu {

struct MatmulPlan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // C is also D (in place)
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace_bytes = 0;  // what the algorithm needs, at most the stream's workspace

    MatmulPlan() = default;
    MatmulPlan(const MatmulPlan&) = delete;
    MatmulPlan& operator=(const MatmulPlan&) = delete;
    ~MatmulPlan();
};

class MatmulPlans {
public:
    // `workspace_bytes`: the workspace every stream has; algorithms needing more are not picked.
    MatmulPlans(cublasLtHandle_t handle, std::size_t workspace_bytes) : handle_(handle), workspace_(workspace_bytes) {}

    // The plan for `g` (already validated), made on first use. Throws Error when cuBLASLt has no
    // algorithm for it.
    const MatmulPlan& get(const Gemm& g);
    std::size_t size() const { return plans_.size(); }

    // What a plan depends on.
    struct Key {
        Transpose trans_a, trans_b;
        DType ab_type, c_type;
        std::int64_t m, n, k, lda, ldb, ldc;
        std::uint32_t align_a, align_b, align_c;  // bytes, powers of two up to 256
        bool operator==(const Key&) const = default;
    };

private:
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    static Key key_of(const Gemm& g);
    std::unique_ptr<MatmulPlan> make(const Key& key);

    cublasLtHandle_t handle_;
    std::size_t workspace_;
    std::unordered_map<Key, std::unique_ptr<MatmulPlan>, KeyHash> plans_;
};

}  // namespace carbon::gpu
