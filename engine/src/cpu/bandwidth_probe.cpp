// The read-bandwidth probe behind carbon-cli bench (bandwidth_probe.h): wide loads summed into
// independent accumulators, so the loop is bound by memory and not by the adds.
#include "carbon/cpu/bandwidth_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>

#include "carbon/loader/checkpoint.h"
#include "carbon/support/thread_pool.h"

namespace carbon {

namespace {

#if defined(__x86_64__)
// The same sums with 256-bit loads where the CPU has AVX2: the baseline x86-64 build's 64-bit loads
// leave some machines' bandwidth unused.
__attribute__((target("avx2"))) uint64_t sum_words_avx2(const uint64_t* p, size_t n) {
    typedef long long v4 __attribute__((vector_size(32)));
    v4 a = {0, 0, 0, 0}, b = a, c = a, d = a;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        v4 x0, x1, x2, x3;
        std::memcpy(&x0, p + i, 32);
        std::memcpy(&x1, p + i + 4, 32);
        std::memcpy(&x2, p + i + 8, 32);
        std::memcpy(&x3, p + i + 12, 32);
        a += x0, b += x1, c += x2, d += x3;
    }
    v4 s = a + b + c + d;
    uint64_t t = uint64_t(s[0] + s[1] + s[2] + s[3]);
    for (; i < n; ++i) t += p[i];
    return t;
}
const bool g_avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}();
#endif

uint64_t sum_words(const uint64_t* p, size_t n) {
#if defined(__x86_64__)
    if (g_avx2) return sum_words_avx2(p, n);
#endif
    uint64_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        a += p[i], b += p[i + 1], c += p[i + 2], d += p[i + 3];
        e += p[i + 4], f += p[i + 5], g += p[i + 6], h += p[i + 7];
    }
    for (; i < n; ++i) a += p[i];
    return a + b + c + d + e + f + g + h;
}

}  // namespace

double measure_read_bandwidth(int threads, size_t bytes, int repeats) {
    ThreadPool pool(std::max(1, threads));
    const size_t words = std::max<size_t>(bytes / 8, 1024);
    std::unique_ptr<uint64_t[]> buf(new uint64_t[words]);
    std::memset(buf.get(), 1, words * 8);
    const size_t parts = size_t(pool.size());
    volatile uint64_t sink = 0;
    double best = 0;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        pool.parallel_for(parts, 1, [&](size_t p0, size_t p1, int) {
            for (size_t p = p0; p < p1; ++p) {
                const size_t begin = words * p / parts, end = words * (p + 1) / parts;
                sink = sink + sum_words(buf.get() + begin, end - begin);
            }
        });
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, double(words * 8) / s);
    }
    return best;
}

size_t decode_weight_bytes(const ModelWeights& w, size_t dna_rows, double quantised_bytes_per_value) {
    size_t total = 0;
    auto add = [&](const TensorView* t) {
        if (t) total += t->nbytes;
    };
    // A projection's bytes: as stored, or quantised.
    auto projection = [&](const TensorView* t) {
        if (!t) return;
        total += quantised_bytes_per_value > 0 ? size_t(double(t->numel()) * quantised_bytes_per_value) : t->nbytes;
    };
    for (const LayerWeights& l : w.layers) {
        for (const TensorView* t : {l.attn_norm, l.bq, l.bk, l.bv, l.bo, l.ffn_norm, l.b_gate, l.b_up, l.b_down}) add(t);
        for (const TensorView* t : {l.wq, l.wk, l.wv, l.wo, l.w_gate, l.w_up, l.w_down}) projection(t);
    }
    add(w.final_norm);
    size_t row_bytes = w.lm_head ? w.lm_head->nbytes / size_t(std::max<int64_t>(1, w.lm_head->shape[0])) : 0;
    if (w.lm_head && quantised_bytes_per_value > 0)
        row_bytes = size_t(double(w.lm_head->shape[1]) * quantised_bytes_per_value);
    const size_t embed_row = w.embed ? w.embed->nbytes / size_t(std::max<int64_t>(1, w.embed->shape[0])) : 0;
    return total + dna_rows * row_bytes + embed_row;
}

double quantised_bytes_per_weight(const std::string& weights) {
    return weights == "int8" ? 1.0 : weights == "q8_0" ? 34.0 / 32 : 0.0;
}

}  // namespace carbon
