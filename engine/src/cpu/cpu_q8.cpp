// 8-bit weights: quantisation and the portable reference kernel (cpu_q8.h).
#include "cpu_q8.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu_isa.h"

namespace carbon::cpu {

namespace {

// One group of n <= 32 values: its scale, and the values quantised into q (the rest of the 32
// left as they are: zeros).
float quantize_group(const float* v, size_t n, int8_t* q) {
    float amax = 0.f;
    for (size_t t = 0; t < n; ++t) amax = std::max(amax, std::fabs(v[t]));
    if (!(amax > 0.f) || !std::isfinite(amax)) {
        // All zeros (or a non-finite value, which a checkpoint must not hold: the loader refuses
        // such tensors; a zero group keeps it from spreading here).
        for (size_t t = 0; t < n; ++t) q[t] = 0;
        return 0.f;
    }
    const float scale = amax / 127.f, inv = 127.f / amax;
    for (size_t t = 0; t < n; ++t) q[t] = int8_t(std::clamp(std::nearbyint(v[t] * inv), -127.f, 127.f));
    return scale;
}

}  // namespace

Q8Matrix quantize_q8(ThreadPool& pool, const WeightMatrix& w) {
    Q8Matrix out;
    out.rows = w.rows;
    out.cols = w.cols;
    out.groups = q8_groups(w.cols);
    out.q.assign(out.rows * out.groups * kQ8Group, 0);
    out.scales.assign(out.rows * out.groups, 0.f);
    pool.parallel_for(w.rows, 16, [&](size_t begin, size_t end, int) {
        std::vector<float> row(w.cols);
        for (size_t r = begin; r < end; ++r) {
            for (size_t c = 0; c < w.cols; ++c) row[c] = load_as_f32(w.data, w.dtype, r * w.cols + c);
            int8_t* q = out.q.data() + r * out.groups * kQ8Group;
            float* s = out.scales.data() + r * out.groups;
            for (size_t g = 0; g * kQ8Group < w.cols; ++g)
                s[g] = quantize_group(row.data() + g * kQ8Group, std::min(kQ8Group, w.cols - g * kQ8Group), q + g * kQ8Group);
        }
    });
    return out;
}

void quantize_rows_q8(const float* x, size_t m, size_t ldx, size_t k, Q8Rows& out) {
    out.m = m;
    out.k = k;
    out.groups = q8_groups(k);
    const size_t width = out.groups * kQ8Group;
    out.magnitude.assign(m * width, 0);
    out.negative.assign(m * out.groups / 2, 0);
    out.scales.assign(m * out.groups, 0.f);
    int8_t q[kQ8Group];
    for (size_t i = 0; i < m; ++i)
        for (size_t g = 0; g * kQ8Group < k; ++g) {
            std::memset(q, 0, sizeof q);
            const size_t n = std::min(kQ8Group, k - g * kQ8Group);
            out.scales[i * out.groups + g] = quantize_group(x + i * ldx + g * kQ8Group, n, q);
            uint8_t* mag = out.magnitude.data() + i * width + g * kQ8Group;
            uint64_t& neg = out.negative[i * out.groups / 2 + g / 2];
            for (size_t t = 0; t < kQ8Group; ++t) {
                mag[t] = uint8_t(q[t] < 0 ? -q[t] : q[t]);
                if (q[t] < 0) neg |= uint64_t(1) << ((g % 2) * kQ8Group + t);
            }
        }
}

const char* q8_kernel_name(Q8Kernel k) {
    switch (k) {
        case Q8Kernel::Portable: return "portable";
        case Q8Kernel::Avx2: return "avx2";
        case Q8Kernel::Avx512Vnni: return "avx512-vnni";
    }
    return "?";
}

bool q8_kernel_supported(Q8Kernel k) {
    switch (k) {
        case Q8Kernel::Portable: return true;
        case Q8Kernel::Avx2: return isa_supported(Isa::Avx2);
        case Q8Kernel::Avx512Vnni: return cpu_has_avx512_vnni();
    }
    return false;
}

Q8Kernel best_q8_kernel() {
    if (q8_kernel_supported(Q8Kernel::Avx512Vnni)) return Q8Kernel::Avx512Vnni;
    if (q8_kernel_supported(Q8Kernel::Avx2)) return Q8Kernel::Avx2;
    return Q8Kernel::Portable;
}

namespace {

// The reference: the sum of cpu_q8.h written out, one output at a time.
float q8_dot_reference(const Q8Rows& x, size_t i, const Q8Matrix& w, size_t r) {
    const auto [mag, neg, xs, wq, ws] = detail::q8_operands(x, i, w, r);
    float lanes[16] = {};
    for (size_t g = 0; g < x.groups; ++g) {
        const float s = xs[g] * ws[g];
        for (size_t l = 0; l < 8; ++l) {
            int32_t p = 0;
            for (size_t t = 0; t < 4; ++t) {
                const size_t e = g * kQ8Group + 4 * l + t;
                const bool negative = (neg[g / 2] >> ((g % 2) * kQ8Group + 4 * l + t)) & 1;
                p += int32_t(mag[e]) * (negative ? -int32_t(wq[e]) : int32_t(wq[e]));
            }
            float& lane = lanes[(g % 2) * 8 + l];
            lane = std::fma(float(p), s, lane);
        }
    }
    return detail::q8_reduce(lanes);
}

}  // namespace

void matmul_q8(ThreadPool& pool, Q8Kernel kernel, const Q8Rows& x, const Q8Matrix& w, const int32_t* rows, size_t n, float* y,
               size_t ldy) {
    if (x.groups != w.groups) throw Error("matmul_q8: activations of " + std::to_string(x.k) + " columns for weights of " + std::to_string(w.cols));
    switch (kernel) {
        case Q8Kernel::Avx512Vnni: return detail::matmul_q8_avx512_vnni(pool, x, w, rows, n, y, ldy);
        case Q8Kernel::Avx2: return detail::matmul_q8_avx2(pool, x, w, rows, n, y, ldy);
        case Q8Kernel::Portable: break;
    }
    pool.parallel_for(n, 16, [&](size_t begin, size_t end, int) {
        for (size_t j = begin; j < end; ++j) {
            const size_t r = rows ? size_t(rows[j]) : j;
            for (size_t i = 0; i < x.m; ++i) y[i * ldy + j] = q8_dot_reference(x, i, w, r);
        }
    });
}

}  // namespace carbon::cpu
