// oneDNN's bf16 matmul at the shapes of bench_cpu_matmul.cpp, as the engine would have to call it:
// bf16 activations [m, k] times the checkpoint's row-major [n, k] weights read in place (format
// "ba": no copy), fp32 out; and, for comparison, with weights re-packed by oneDNN once ("any":
// a second copy of the model). Then its int8 matmul as the engine's int8 rows scheme computes
// (cpu_q8.h): s8 activations times s8 weights (re-packed, "any"), int32 sums, fp32 out scaled per
// output channel (output scales, mask 2) and per row (a binary multiply post-op by an [m, 1]
// vector), and without the per-row step (which oneDNN 2.6 runs only in its reference kernel);
// the activations come quantised (the engine's own figure includes its quantisation).
// The peer of the engine's own matmul paths (docs/benchmarks.md).
// Built and run by tests/bench/onednn_bench.sh; not part of the build (oneDNN is not a dependency).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dnnl.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace dnnl;

namespace {

uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

double run(engine& eng, stream& s, size_t m, size_t n, size_t k, bool repack, int repeat) {
    using dt = memory::data_type;
    const memory::desc src_md({memory::dim(m), memory::dim(k)}, dt::bf16, memory::format_tag::ab);
    const memory::desc w_plain({memory::dim(k), memory::dim(n)}, dt::bf16, memory::format_tag::ba);
    const memory::desc w_md = repack ? memory::desc({memory::dim(k), memory::dim(n)}, dt::bf16, memory::format_tag::any) : w_plain;
    const memory::desc dst_md({memory::dim(m), memory::dim(n)}, dt::f32, memory::format_tag::ab);
    const matmul::primitive_desc pd(matmul::desc(src_md, w_md, dst_md), eng);  // oneDNN 2.x API (Debian 12)
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.f, 1.f);
    std::vector<uint16_t> src(m * k), w(n * k);
    for (auto& v : src) v = to_bf16(nd(rng));
    for (auto& v : w) v = to_bf16(nd(rng) * 0.02f);
    memory src_m(src_md, eng, src.data()), w_user(w_plain, eng, w.data()), dst_m(dst_md, eng);
    memory w_m = w_user;
    if (pd.weights_desc() != w_plain) {
        w_m = memory(pd.weights_desc(), eng);
        reorder(w_user, w_m).execute(s, w_user, w_m);
    }
    const matmul mm(pd);
    double best = 1e30;
    for (int r = 0; r < repeat + 1; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        mm.execute(s, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, w_m}, {DNNL_ARG_DST, dst_m}});
        s.wait();
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) best = std::min(best, t);  // the first call also creates the kernels
    }
    return best;
}

// The int8 matmul: s8 x s8 -> f32 with per-channel and per-row scales.
double run_int8(engine& eng, stream& s, size_t m, size_t n, size_t k, bool row_scales, int repeat, std::string& impl) {
    using dt = memory::data_type;
    const memory::desc src_md({memory::dim(m), memory::dim(k)}, dt::s8, memory::format_tag::ab);
    const memory::desc w_plain({memory::dim(k), memory::dim(n)}, dt::s8, memory::format_tag::ba);
    const memory::desc w_md({memory::dim(k), memory::dim(n)}, dt::s8, memory::format_tag::any);
    const memory::desc dst_md({memory::dim(m), memory::dim(n)}, dt::f32, memory::format_tag::ab);
    const memory::desc row_md({memory::dim(m), 1}, dt::f32, memory::format_tag::ab);
    primitive_attr attr;
    attr.set_output_scales(2, {DNNL_RUNTIME_F32_VAL});
    if (row_scales) {
        post_ops po;
        po.append_binary(algorithm::binary_mul, row_md);
        attr.set_post_ops(po);
    }
    const matmul::primitive_desc pd(matmul::desc(src_md, w_md, dst_md), attr, eng);
    impl = pd.impl_info_str();
    std::mt19937 rng(2);
    std::uniform_int_distribution<int> q(-127, 127);
    std::vector<int8_t> src(m * k), w(n * k);
    for (auto& v : src) v = int8_t(q(rng));
    for (auto& v : w) v = int8_t(q(rng));
    std::vector<float> scales(n, 0.001f), rows(m, 0.01f);
    memory src_m(src_md, eng, src.data()), w_user(w_plain, eng, w.data()), dst_m(dst_md, eng);
    memory scale_m({{memory::dim(n)}, dt::f32, memory::format_tag::a}, eng, scales.data()), row_m(row_md, eng, rows.data());
    memory w_m(pd.weights_desc(), eng);
    reorder(w_user, w_m).execute(s, w_user, w_m);
    const matmul mm(pd);
    double best = 1e30;
    for (int r = 0; r < repeat + 1; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        std::unordered_map<int, memory> args = {
            {DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, w_m}, {DNNL_ARG_DST, dst_m}, {DNNL_ARG_ATTR_OUTPUT_SCALES, scale_m}};
        if (row_scales) args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, row_m});
        mm.execute(s, args);
        s.wait();
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) best = std::min(best, t);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string shape = argc > 1 ? argv[1] : "500m";
    const size_t H = shape == "3b" ? 3072 : 1024, F = shape == "3b" ? 8448 : 3072;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    struct Shape {
        const char* name;
        size_t n, k;
    };
    const Shape shapes[] = {{"qkv/o  ", H, H}, {"gate/up", F, H}, {"down   ", H, F}};
    std::printf("oneDNN %d.%d.%d, carbon-%s projection shapes, bf16 in, fp32 out\n", dnnl_version()->major,
                dnnl_version()->minor, dnnl_version()->patch, shape.c_str());
    std::printf("%-18s %-8s %6s %10s %10s\n", "weights", "matrix", "rows", "ms", "GFLOP/s");
    for (const Shape& sh : shapes)
        for (size_t m : {size_t(1), size_t(8), size_t(65), size_t(520)})
            for (bool repack : {false, true}) {
                const double t = run(eng, s, m, sh.n, sh.k, repack, 5);
                std::printf("%-18s %-8s %6zu %10.3f %10.1f\n", repack ? "re-packed (any)" : "in place (ba)", sh.name, m,
                            t * 1e3, 2.0 * double(m * sh.n * sh.k) / t / 1e9);
            }
    std::printf("int8: s8 x s8 -> f32, weights re-packed, per-channel scales, with and without the per-row scales (GOP/s)\n");
    for (const Shape& sh : shapes)
        for (size_t m : {size_t(1), size_t(8), size_t(65), size_t(520)})
            for (bool rows : {true, false}) {
                std::string impl;
                const double t = run_int8(eng, s, m, sh.n, sh.k, rows, 5, impl);
                std::printf("%-18s %-8s %6zu %10.3f %10.1f  %s\n", rows ? "int8 +row scales" : "int8 channel only", sh.name, m, t * 1e3,
                            2.0 * double(m * sh.n * sh.k) / t / 1e9, impl.c_str());
            }
    return 0;
}
