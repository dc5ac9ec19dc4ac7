// Test data of the attention kernel tests (test_attention_prefill.cpp, test_attention_decode.cpp): a
// ragged batch with random q, k, v (fixed seeds) in a paged cache whose pages are shuffled, the CPU
// backend's attention (cpu::attention_rows) over the same values as the reference, and the comparison
// with the tolerances each dtype is held to.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "carbon/kernels/paged_kv.h"
#include "carbon/support/thread_pool.h"
#include "cpu/cpu_ops.h"
#include "device_buffer.h"

namespace attention_test {

// What the test programs run: everything in the default build, a few small cases under the
// sanitizers and the thread executor (one OS thread per CUDA thread, ~200x slower).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(CARBON_HOST_EXECUTOR_THREADS)
inline constexpr bool kQuick = true;
#else
inline constexpr bool kQuick = false;
#endif

struct Sequence {
    int cached = 0, n_new = 1;  // positions already cached, new tokens appended after them
};

struct Shape {
    int n_heads = 1, n_kv_heads = 1, head_dim = 16, page_tokens = carbon::kern::kKvPageTokens;
    std::vector<Sequence> seqs;
    unsigned seed = 1;

    // (A stream, not "..." + std::to_string(): g++ 12 -O3 warns falsely on that (-Wrestrict) under nvcc.)
    std::string name() const {
        std::ostringstream os;
        os << "heads " << n_heads << "/" << n_kv_heads << ", d " << head_dim << ", page " << page_tokens << ", seqs";
        for (const auto& q : seqs) os << " " << q.cached << "+" << q.n_new;
        return os.str();
    }
};

inline float as_float(float v) {
    return v;
}
inline float as_float(__nv_bfloat16 v) {
    return __bfloat162float(v);
}

// One layer's paged cache and the batch's queries, as T for the kernels and as fp32 for the reference.
// The pool is [page][layer 0, 1][k|v][kv_head][token][head_dim] (paged_kv.h's layout); the kernels read
// layer 1, so a wrong page stride or layer offset reads layer 0's different values. Sequences get
// their pages from one shuffled list, with spare pages between; every slot holds a value, so a kernel
// reading past a sequence's length reads something that changes its result.
template <class T>
struct Data {
    Shape shape;
    int rows = 0, max_new = 0, max_len = 0, table_stride = 0;
    long long page_stride = 0, k_offset = 0, v_offset = 0;
    std::vector<int> q_begin, kv_len, page_table;
    std::vector<T> q, pool;
    std::vector<float> q_f, pool_f;

    explicit Data(const Shape& s) : shape(s) {
        const int d = s.head_dim, P = s.page_tokens, nkv = s.n_kv_heads;
        std::mt19937 rng(s.seed);
        q_begin.push_back(0);
        int n_pages = 0;
        for (const auto& sq : s.seqs) {
            const int len = sq.cached + sq.n_new;
            q_begin.push_back(q_begin.back() + sq.n_new);
            kv_len.push_back(len);
            max_new = std::max(max_new, sq.n_new);
            max_len = std::max(max_len, len);
            table_stride = std::max(table_stride, (len + P - 1) / P);
            n_pages += (len + P - 1) / P;
        }
        rows = q_begin.back();
        const int spare = 3 + n_pages / 4;
        std::vector<int> ids(static_cast<std::size_t>(n_pages + spare));
        std::iota(ids.begin(), ids.end(), 0);
        std::shuffle(ids.begin(), ids.end(), rng);
        page_table.assign(static_cast<std::size_t>(s.seqs.size()) * table_stride, -1);
        std::size_t next = 0;
        for (std::size_t b = 0; b < s.seqs.size(); ++b)
            for (int i = 0; i < (kv_len[b] + P - 1) / P; ++i) page_table[b * table_stride + i] = ids[next++];

        const long long head = static_cast<long long>(P) * d;
        page_stride = 2 * 2 * nkv * head;
        k_offset = 2 * nkv * head;  // layer 1
        v_offset = 3 * nkv * head;
        // Scores q.k/sqrt(d) with q, k uniform in +-2.5 have a standard deviation of about 2: softmax
        // weights from nearly flat to sharply peaked, as in a trained model.
        std::uniform_real_distribution<float> qk(-2.5f, 2.5f), val(-1.0f, 1.0f);
        fill(q, q_f, static_cast<std::size_t>(rows) * s.n_heads * d, [&] { return qk(rng); });
        pool.resize(static_cast<std::size_t>(ids.size()) * page_stride);
        pool_f.resize(pool.size());
        for (std::size_t i = 0; i < pool.size(); ++i) {
            const bool is_key = (i % page_stride) / (nkv * head) % 2 == 0;
            pool[i] = T(is_key ? qk(rng) : val(rng));
            pool_f[i] = as_float(pool[i]);
        }
    }

    template <class Gen>
    static void fill(std::vector<T>& x, std::vector<float>& xf, std::size_t n, Gen gen) {
        x.resize(n);
        xf.resize(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = T(gen()), xf[i] = as_float(x[i]);
    }

    std::size_t out_size() const { return static_cast<std::size_t>(rows) * shape.n_heads * shape.head_dim; }

    carbon::kern::AttentionBatch batch(const int* d_q_begin, const int* d_kv_len) const {
        carbon::kern::AttentionBatch a;
        a.batch = static_cast<int>(shape.seqs.size());
        a.n_heads = shape.n_heads, a.n_kv_heads = shape.n_kv_heads, a.head_dim = shape.head_dim;
        a.q_begin = d_q_begin, a.kv_len = d_kv_len, a.max_new_tokens = max_new;
        return a;
    }
    carbon::kern::PagedKv<T> paged(const T* d_pool, const int* d_table) const {
        carbon::kern::PagedKv<T> kv;
        kv.k = d_pool + k_offset, kv.v = d_pool + v_offset;
        kv.page_stride = page_stride, kv.page_tokens = shape.page_tokens;
        kv.page_table = d_table, kv.page_table_stride = table_stride;
        return kv;
    }

    // The CPU backend's attention over the fp32 copies of the same values.
    std::vector<float> reference() const {
        static carbon::ThreadPool pool1(1);
        std::vector<std::vector<const float*>> blocks(shape.seqs.size());
        std::vector<carbon::cpu::KvBlocks> kv(shape.seqs.size());
        std::vector<std::size_t> item_row, start;
        for (std::size_t b = 0; b < shape.seqs.size(); ++b) {
            for (int i = 0; i < table_stride; ++i) {
                const int page = page_table[b * table_stride + i];
                blocks[b].push_back(page < 0 ? nullptr : pool_f.data() + page * page_stride);
            }
            carbon::cpu::KvBlocks& v = kv[b];
            v.blocks = blocks[b].data();
            v.block_tokens = static_cast<std::size_t>(shape.page_tokens);
            v.k_offset = static_cast<std::size_t>(k_offset), v.v_offset = static_cast<std::size_t>(v_offset);
            v.head_stride = static_cast<std::size_t>(shape.page_tokens) * shape.head_dim;
            v.token_stride = static_cast<std::size_t>(shape.head_dim);
            item_row.push_back(static_cast<std::size_t>(q_begin[b]));
            start.push_back(static_cast<std::size_t>(shape.seqs[b].cached));
        }
        item_row.push_back(static_cast<std::size_t>(rows));
        std::vector<float> out(out_size());
        const carbon::cpu::AttentionShape cs{static_cast<std::size_t>(shape.n_heads),
                                             static_cast<std::size_t>(shape.n_kv_heads),
                                             static_cast<std::size_t>(shape.head_dim)};
        carbon::cpu::attention_rows(pool1, cs, kv, item_row, start, q_f.data(), out.data());
        return out;
    }
};

// Tolerances. fp32: the kernels and the CPU sum the d products of a score and the softmax terms in
// different orders, use exp2 of pre-scaled scores instead of exp, and rescale as they go (online
// softmax); with |scores| up to ~20 each order is off by a few ulps of the score, and outputs
// (weighted means of values in +-1) by about 1e-6. 2e-5 leaves a 10x margin over what the host layer
// measures (printed by each test) and still fails any real mistake, which moves outputs by 1e-2 or
// more. bf16: the same fp32 computation, rounded once to bf16 at the end (inputs are the same bf16
// values on both sides): plus half a bf16 ulp, 2^-8 |x|.
template <class T>
constexpr double kAbsTol = 2e-5;
template <class T>
constexpr double kRelTol = sizeof(T) == 2 ? 0x1p-8 : 0.0;

struct Comparison {
    std::size_t bad = 0, worst = 0;
    double max_err = 0.0;
};

template <class T>
Comparison compare(const std::vector<T>& got, const std::vector<float>& want, std::size_t begin = 0,
                   std::size_t end = std::size_t(-1), double rel_scale = 1.0) {
    Comparison c;
    end = std::min(end, want.size());
    for (std::size_t i = begin; i < end; ++i) {
        const double g = as_float(got[i]), w = want[i];
        const double err = std::fabs(g - w);
        if (!(err <= kAbsTol<T> + rel_scale * kRelTol<T> * std::fabs(w))) {
            if (c.bad++ == 0) c.worst = i;
        }
        if (!(err <= c.max_err)) c.max_err = err;  // NaN sticks
    }
    return c;
}

// Memory for one run of a kernel over a Data: device copies of everything and the output.
template <class T>
struct DeviceData {
    carbon::test::DeviceBuffer<T> q, pool, out;
    carbon::test::DeviceBuffer<int> q_begin, kv_len, table;
    explicit DeviceData(const Data<T>& d)
        : q(d.q), pool(d.pool), out(d.out_size()), q_begin(d.q_begin), kv_len(d.kv_len), table(d.page_table) {}
    carbon::kern::AttentionBatch batch(const Data<T>& d) { return d.batch(q_begin.get(), kv_len.get()); }
    carbon::kern::PagedKv<T> paged(const Data<T>& d) { return d.paged(pool.get(), table.get()); }
};

}  // namespace attention_test
