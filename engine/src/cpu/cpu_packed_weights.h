// A bf16 weight matrix re-laid for the avx512-bf16 kernels (cpu_matmul_avx512_bf16.cpp), made once
// when the CPU backend loads a checkpoint.
//
// Layout: the rows in groups of 16 (the last group padded with zero rows); group g holds, for each
// pair q of k in order, the 16 rows' pairs (w[r][2q], w[r][2q + 1]) as 32-bit words, row 16g + l in
// word l; when k is odd the last pair is (w[r][k - 1], 0). Decode then loads one vector per pair of
// 16 rows and streams the matrix front to back, with no shuffles; prefill broadcasts one word per
// (row, pair) as it does from the row-major layout. The pairs and their order are the same as the
// row-major layout's, so both layouts give the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "carbon/support/thread_pool.h"
#include "cpu_ops.h"

namespace carbon::cpu {

constexpr size_t kPackedGroupRows = 16;

// Owns the packed words in their own anonymous mapping (transparent huge pages asked for). Move-only.
class PackedWeights {
public:
    PackedWeights() = default;
    PackedWeights(PackedWeights&&) noexcept;
    PackedWeights& operator=(PackedWeights&&) noexcept;
    PackedWeights(const PackedWeights&) = delete;
    PackedWeights& operator=(const PackedWeights&) = delete;
    ~PackedWeights();

    const uint32_t* data() const { return data_; }

private:
    friend PackedWeights pack_weights(ThreadPool&, const WeightMatrix&, const int32_t*, size_t, const char*);
    uint32_t* data_ = nullptr;
    size_t bytes_ = 0;
};

// Words in one group of a matrix with k columns: (k + 1) / 2 pairs of 16.
inline size_t packed_group_words(size_t k) {
    return (k + 1) / 2 * kPackedGroupRows;
}

// Rows rows[0..n) of a bf16 matrix (or 0..n when rows is null) in the layout above. `name` names
// the tensor in the error thrown when the memory cannot be had.
PackedWeights pack_weights(ThreadPool& pool, const WeightMatrix& w, const int32_t* rows, size_t n, const char* name);

}  // namespace carbon::cpu
