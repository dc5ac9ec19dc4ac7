// 8-bit weights: quantisation, packing, the portable reference kernel and the dispatch (cpu_q8.h).
#include "cpu_q8.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>

#include "cpu_isa.h"

namespace carbon::cpu {

namespace {

// A weight group's scale as fp16 bits: the fp16 at or above max|v| / 127, so no value quantises
// past 127. Zero for an all-zero group; 0x7C00 (infinity) when the scale is beyond fp16.
uint16_t weight_group_scale(const float* v, size_t n) {
    float amax = 0.f;
    for (size_t t = 0; t < n; ++t) amax = std::isfinite(v[t]) ? std::max(amax, std::fabs(v[t])) : INFINITY;
    if (!(amax > 0.f)) return 0;
    if (!std::isfinite(amax)) return 0x7C00;
    const float d = amax / 127.f;
    uint16_t h = f32_to_f16(d);
    if (h < 0x7C00 && f16_to_f32(h) < d) ++h;  // the next fp16 up (positive, so the next bits)
    return std::min<uint16_t>(h, 0x7C00);
}

int8_t quantize_value(float v, float inv) { return int8_t(std::clamp(std::nearbyint(v * inv), -127.f, 127.f)); }

}  // namespace

float quantize_weight_row(const float* w, size_t n, int8_t* q) {
    float amax = 0.f;
    for (size_t c = 0; c < n; ++c) {
        if (!std::isfinite(w[c])) return std::nanf("");
        amax = std::max(amax, std::fabs(w[c]));
    }
    if (!(amax > 0.f)) {
        std::memset(q, 0, n);
        return 0.f;
    }
    const float scale = amax / 127.f, inv = 1.f / scale;
    for (size_t c = 0; c < n; ++c) q[c] = quantize_value(w[c], inv);
    return scale;
}

Q8Matrix quantize_q8(ThreadPool& pool, const WeightMatrix& w, Q8Scheme scheme, const char* name) {
    Q8Matrix out;
    out.scheme = scheme;
    out.rows = w.rows;
    out.cols = w.cols;
    out.groups = q8_groups(w.cols, scheme);
    out.panels = (w.rows + kQ8Panel - 1) / kQ8Panel;
    out.q.assign(out.panels * out.groups * kQ8BlockBytes, 128);
    if (scheme == Q8Scheme::Groups) out.scales.assign(out.panels * out.groups * kQ8Panel, 0);
    else out.row_scales.assign(out.panels * kQ8Panel, 0.f);
    std::atomic<bool> too_large{false};
    pool.parallel_for(out.panels, 1, [&](size_t begin, size_t end, int) {
        std::vector<float> row(w.cols);
        std::vector<int8_t> qrow(w.cols);
        for (size_t p = begin; p < end; ++p)
            for (size_t o = 0; o < kQ8Panel && p * kQ8Panel + o < w.rows; ++o) {
                const size_t r = p * kQ8Panel + o;
                for (size_t c = 0; c < w.cols; ++c) row[c] = load_as_f32(w.data, w.dtype, r * w.cols + c);
                if (scheme == Q8Scheme::Rows) {  // one rule with the CUDA backend's int8 weights
                    const float scale = quantize_weight_row(row.data(), w.cols, qrow.data());
                    if (std::isnan(scale)) {
                        too_large = true;
                        continue;
                    }
                    out.row_scales[r] = scale;
                    for (size_t c = 0; c < w.cols; ++c)
                        out.q[(p * out.groups + c / kQ8Group) * kQ8BlockBytes + (c % kQ8Group / 4) * 64 + o * 4 + c % 4] =
                            uint8_t(qrow[c] + 128);
                    continue;
                }
                for (size_t g = 0; g * kQ8Group < w.cols; ++g) {
                    const size_t n = std::min(kQ8Group, w.cols - g * kQ8Group);
                    const float* v = row.data() + g * kQ8Group;
                    const size_t b = p * out.groups + g;
                    const uint16_t h = weight_group_scale(v, n);
                    if (h >= 0x7C00) {
                        too_large = true;
                        continue;
                    }
                    out.scales[b * kQ8Panel + o] = h;
                    if (h == 0) continue;
                    const float inv = 1.f / f16_to_f32(h);
                    uint8_t* block = out.q.data() + b * kQ8BlockBytes;
                    for (size_t t = 0; t < n; ++t) block[(t / 4) * 64 + o * 4 + t % 4] = uint8_t(quantize_value(v[t], inv) + 128);
                }
            }
    });
    if (too_large)
        throw Error(std::string("tensor ") + name +
                    ": weights that int8 cannot hold (a value that is not finite, or |w| over 65504 x 127 for fp16 group scales); load it with native weights");
    return out;
}

Q8Matrix import_q8_0(ThreadPool& pool, const uint8_t* blocks, size_t rows, size_t cols, const int32_t* row_of,
                     const char* name) {
    if (cols % kQ8Group) throw Error(std::string("tensor ") + name + ": Q8_0 rows of " + std::to_string(cols) + " values (whole blocks of 32)");
    Q8Matrix out;
    out.scheme = Q8Scheme::Groups;
    out.rows = rows;
    out.cols = cols;
    out.groups = q8_groups(cols, Q8Scheme::Groups);
    out.panels = (rows + kQ8Panel - 1) / kQ8Panel;
    out.q.assign(out.panels * out.groups * kQ8BlockBytes, 128);
    out.scales.assign(out.panels * out.groups * kQ8Panel, 0);
    const size_t row_bytes = out.groups * 34;
    // The first refused block, by its place in the file (row, block), for the message.
    std::atomic<size_t> bad{SIZE_MAX};
    pool.parallel_for(out.panels, 1, [&](size_t begin, size_t end, int) {
        for (size_t p = begin; p < end; ++p)
            for (size_t o = 0; o < kQ8Panel && p * kQ8Panel + o < rows; ++o) {
                const size_t r = p * kQ8Panel + o, src = row_of ? size_t(row_of[r]) : r;
                for (size_t g = 0; g < out.groups; ++g) {
                    const uint8_t* b = blocks + src * row_bytes + g * 34;
                    uint16_t d;
                    std::memcpy(&d, b, 2);
                    bool ok = (d & 0x7C00) != 0x7C00;  // a finite scale
                    uint8_t* block = out.q.data() + (p * out.groups + g) * kQ8BlockBytes;
                    for (size_t t = 0; t < kQ8Group; ++t) {
                        const int8_t v = int8_t(b[2 + t]);
                        ok = ok && v != -128;
                        block[(t / 4) * 64 + o * 4 + t % 4] = uint8_t(v + 128);
                    }
                    out.scales[(p * out.groups + g) * kQ8Panel + o] = d;
                    if (!ok) {
                        size_t expected = bad.load();
                        const size_t here = src * out.groups + g;
                        while (here < expected && !bad.compare_exchange_weak(expected, here)) {
                        }
                    }
                }
            }
    });
    if (const size_t at = bad.load(); at != SIZE_MAX) {
        const size_t r = at / out.groups, g = at % out.groups;
        const uint8_t* b = blocks + r * row_bytes + g * 34;
        uint16_t d;
        std::memcpy(&d, b, 2);
        throw Error(std::string("tensor ") + name + ": Q8_0 block " + std::to_string(g) + " of row " + std::to_string(r) +
                    ((d & 0x7C00) == 0x7C00 ? " has a scale that is not finite"
                                            : " holds the value -128, which llama.cpp's and gguf-py's quantisers never write (they "
                                              "stay within +-127, as the int8 kernels require)") +
                    ": the file is damaged or was not made by them");
    }
    return out;
}

const char* q8_scheme_name(Q8Scheme s) { return s == Q8Scheme::Rows ? "rows" : "groups"; }

namespace detail {

void quantize_row_q8_portable(const float* x, size_t k, size_t groups, Q8Scheme scheme, const Q8RowOut& out) {
    struct Ops {
        const float* x;
        size_t k;
        size_t count(size_t g) const { return g * kQ8Group < k ? std::min(kQ8Group, k - g * kQ8Group) : 0; }
        bool max(size_t g, float& amax) const {
            bool finite = true;
            for (size_t t = 0; t < count(g); ++t) {
                finite = finite && std::isfinite(x[g * kQ8Group + t]);
                amax = std::max(amax, std::fabs(x[g * kQ8Group + t]));
            }
            return finite;
        }
        int32_t quantize(size_t g, float inv, int8_t* q) const {
            std::memset(q, 0, kQ8Group);
            int32_t sum = 0;
            for (size_t t = 0; t < count(g); ++t) sum += q[t] = quantize_value(x[g * kQ8Group + t], inv);
            return sum;
        }
    };
    q8_quantize_row(Ops{x, k}, groups, scheme, out);
}

}  // namespace detail

void quantize_rows_q8(ThreadPool& pool, const float* x, size_t m, size_t ldx, size_t k, Q8Scheme scheme, Q8Rows& out,
                      const std::function<void(size_t)>& prepare) {
    out.scheme = scheme;
    out.m = m;
    out.k = k;
    out.groups = q8_groups(k, scheme);
    const size_t rows = (m + 15) / 16 * 16, per_scale = scheme == Q8Scheme::Rows ? 1 : out.groups;
    out.q.resize(rows * out.groups * kQ8Group);
    out.bias.resize(rows * per_scale);
    out.scales.resize(rows * per_scale);
    std::fill(out.bias.begin() + m * per_scale, out.bias.end(), 0);
    std::fill(out.scales.begin() + m * per_scale, out.scales.end(), 0.f);
    const bool avx512 = isa_supported(Isa::Avx512), avx2 = isa_supported(Isa::Avx2);
    const size_t chunk = out.chunk();
    pool.parallel_for(rows, 4, [&](size_t begin, size_t end, int) {
        for (size_t i = begin; i < end; ++i) {
            const detail::Q8RowOut o{out.q.data() + (out.group(i, 0) - out.q.data()), chunk / kQ8Group, 16 * chunk,
                                     out.bias.data() + i * per_scale, out.scales.data() + i * per_scale};
            if (i >= m) {
                for (size_t g = 0; g < out.groups; ++g) std::memset(o.at(g), 0, kQ8Group);
                continue;
            }
            if (prepare) prepare(i);
            const float* xi = x + i * ldx;
            if (!(avx512 && detail::quantize_row_q8_avx512(xi, k, out.groups, scheme, o)) &&
                !(avx2 && detail::quantize_row_q8_avx2(xi, k, out.groups, scheme, o)))
                detail::quantize_row_q8_portable(xi, k, out.groups, scheme, o);
        }
    });
}

const char* q8_kernel_name(Q8Kernel k) {
    switch (k) {
        case Q8Kernel::Portable: return "portable";
        case Q8Kernel::Avx2: return "avx2";
        case Q8Kernel::Avx512Vnni: return "avx512-vnni";
        case Q8Kernel::Amx: return "amx-int8";
    }
    return "?";
}

bool q8_kernel_supported(Q8Kernel k) {
    switch (k) {
        case Q8Kernel::Portable: return true;
        case Q8Kernel::Avx2: return isa_supported(Isa::Avx2);
        case Q8Kernel::Avx512Vnni: return cpu_has_avx512_vnni();
        case Q8Kernel::Amx: return cpu_has_amx_int8() && cpu_has_avx512_vnni();
    }
    return false;
}

Q8Kernel best_q8_kernel() {
    for (Q8Kernel k : {Q8Kernel::Amx, Q8Kernel::Avx512Vnni, Q8Kernel::Avx2})
        if (q8_kernel_supported(k)) return k;
    return Q8Kernel::Portable;
}

namespace {

// The reference: the sums of cpu_q8.h written out, one output at a time.
void matmul_q8_reference(ThreadPool& pool, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    pool.parallel_for(w.rows, kQ8Panel, [&](size_t begin, size_t end, int) {
        for (size_t j = begin; j < end; ++j)
            for (size_t i = 0; i < x.m; ++i) {
                float acc = 0.f;
                int32_t row_dot = 0;
                for (size_t g = 0; g < x.groups; ++g) {
                    const int8_t* xq = x.group(i, g);
                    int32_t d = 0;  // (in the written order; the kernels' int32 sums are exact, so equal)
                    for (size_t t = 0; t < kQ8Group; ++t) d += int32_t(xq[t]) * w.value(j, g * kQ8Group + t);
                    if (x.scheme == Q8Scheme::Rows) row_dot += d;
                    else acc = std::fma(float(d), x.scales[x.scale_index(i, g)] * w.scale(j, g), acc);
                }
                y[i * ldy + j] = x.scheme == Q8Scheme::Rows ? float(row_dot) * (x.scales[i] * w.row_scales[j]) : acc;
            }
    });
}

}  // namespace

void matmul_q8(ThreadPool& pool, Q8Kernel kernel, const Q8Rows& x, const Q8Matrix& w, float* y, size_t ldy) {
    if (x.groups != w.groups || x.scheme != w.scheme)
        throw Error("matmul_q8: activations of " + std::to_string(x.k) + " columns (" + q8_scheme_name(x.scheme) + ") for weights of " +
                    std::to_string(w.cols) + " (" + q8_scheme_name(w.scheme) + ")");
    if (kernel == Q8Kernel::Amx && x.m < kQ8AmxMinRows) kernel = Q8Kernel::Avx512Vnni;
    if (w.scheme == Q8Scheme::Rows) switch (kernel) {
            case Q8Kernel::Amx: return detail::matmul_q8_rows_amx(pool, x, w, y, ldy);
            case Q8Kernel::Avx512Vnni: return detail::matmul_q8_rows_avx512_vnni(pool, x, w, y, ldy);
            case Q8Kernel::Avx2: return detail::matmul_q8_rows_avx2(pool, x, w, y, ldy);
            case Q8Kernel::Portable: return matmul_q8_reference(pool, x, w, y, ldy);
        }
    switch (kernel) {
        case Q8Kernel::Amx: return detail::matmul_q8_amx(pool, x, w, y, ldy);
        case Q8Kernel::Avx512Vnni: return detail::matmul_q8_avx512_vnni(pool, x, w, y, ldy);
        case Q8Kernel::Avx2: return detail::matmul_q8_avx2(pool, x, w, y, ldy);
        case Q8Kernel::Portable: return matmul_q8_reference(pool, x, w, y, ldy);
    }
}

}  // namespace carbon::cpu
