// The CPU backend's rows scheme (engine/src/cpu/cpu_q8.h) unpacked to the row-major int8 layout the
// CUDA int8 kernels take: the references of test_quantize_rows_int8, test_gemv_int8 and
// test_scale_int32_products, so that each is compared bit for bit with what the CPU computes.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/cpu_q8.h"
#include "row_test_data.h"  // same_bits, random_floats

namespace carbon::test {

// One worker: the CPU references run beside the host layer's own threads.
inline ThreadPool& int8_test_pool() {
    static ThreadPool pool(1);
    return pool;
}

struct Int8Rows {
    std::vector<int8_t> q;      // rows x k
    std::vector<float> scales;  // rows
};

// Activation rows as cpu::quantize_rows_q8 (rows scheme) quantises them.
inline Int8Rows cpu_quantized_activations(ThreadPool& pool, const std::vector<float>& x, int rows, int ldx, int k,
                                          cpu::Q8Rows* keep = nullptr) {
    cpu::Q8Rows r;
    cpu::quantize_rows_q8(pool, x.data(), std::size_t(rows), std::size_t(ldx), std::size_t(k), cpu::Q8Scheme::Rows, r);
    Int8Rows out;
    out.q.resize(std::size_t(rows) * std::size_t(k));
    out.scales.assign(r.scales.begin(), r.scales.begin() + rows);
    for (int i = 0; i < rows; ++i)
        for (int c = 0; c < k; ++c) out.q[std::size_t(i) * std::size_t(k) + std::size_t(c)] = r.group(std::size_t(i), std::size_t(c) / 32)[c % 32];
    if (keep) *keep = std::move(r);
    return out;
}

// A weight matrix [rows, k] (fp32 values) as cpu::quantize_q8 (rows scheme) quantises it.
inline Int8Rows cpu_quantized_weights(ThreadPool& pool, const std::vector<float>& w, int rows, int k,
                                      cpu::Q8Matrix* keep = nullptr) {
    cpu::WeightMatrix m{w.data(), DType::F32, std::size_t(rows), std::size_t(k), nullptr};
    cpu::Q8Matrix q = cpu::quantize_q8(pool, m, cpu::Q8Scheme::Rows, "test");
    Int8Rows out;
    out.q.resize(std::size_t(rows) * std::size_t(k));
    out.scales.assign(q.row_scales.begin(), q.row_scales.begin() + rows);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < k; ++c) out.q[std::size_t(r) * std::size_t(k) + std::size_t(c)] = int8_t(q.value(std::size_t(r), std::size_t(c)));
    if (keep) *keep = std::move(q);
    return out;
}

}  // namespace carbon::test
