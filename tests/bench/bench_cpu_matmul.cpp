// The CPU matmul paths alone (cpu_isa.h), at the carbon-500m / carbon-3b projection shapes and the
// row counts decode and prefill use: best-of-N seconds, GFLOP/s and, for the weights, GB/s read.
// avx512-bf16 runs twice: on the weights in place and on its packed copy (cpu_packed_weights.h,
// as the CPU backend gives it); amx three times: its in-place and k-blocked kernels on the weights
// in place (cpu_amx_kernels.inc), and its packed kernel on the packed copy (the default,
// cpu_amx_packed_kernel.inc). Then the int8 weights' kernels (cpu_q8.h: amx-int8, avx512-vnni,
// avx2), each timed with the activations' quantisation as the backend calls them, the weights GB/s
// counting the int8 matrix's bytes. A benchmark, not a test (docs/benchmarks.md):
//   build/bin/bench_cpu_matmul [--threads N] [--repeat N] [--paths amx,avx512-bf16,...|none]
//                              [--int8 amx-int8,avx512-vnni,avx2|none] [--shape 500m|3b] [--rows 1,8,65,520]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "carbon/support/common.h"
#include "cpu/cpu_matmul_paths.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_packed_weights.h"
#include "cpu/cpu_q8.h"

using namespace carbon;

namespace {

struct Shape {
    const char* name;
    size_t n, k;
};

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, ',')) out.push_back(part);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 2, repeat = 5;
    std::string paths, shape = "500m", int8, rows_list = "1,8,65,520";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--threads") threads = std::stoi(v);
        else if (a == "--repeat") repeat = std::stoi(v);
        else if (a == "--paths") paths = v;
        else if (a == "--shape") shape = v;
        else if (a == "--int8") int8 = v;
        else if (a == "--rows") rows_list = v;
        else {
            std::fprintf(stderr, "bench_cpu_matmul: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    std::vector<cpu::Isa> isas;
    if (paths.empty()) {
        for (cpu::Isa i : cpu::all_isas())
            if (cpu::isa_supported(i) && i != cpu::Isa::Portable) isas.push_back(i);
    } else if (paths != "none") {
        for (const std::string& p : split(paths)) isas.push_back(cpu::choose_isa(p));
    }
    std::vector<cpu::Q8Kernel> q8s;
    for (cpu::Q8Kernel k : {cpu::Q8Kernel::Amx, cpu::Q8Kernel::Avx512Vnni, cpu::Q8Kernel::Avx2}) {
        const bool named = int8.empty() || ("," + int8 + ",").find(std::string(",") + cpu::q8_kernel_name(k) + ",") != std::string::npos;
        if (named && cpu::q8_kernel_supported(k)) q8s.push_back(k);
        else if (named && !int8.empty()) std::fprintf(stderr, "bench_cpu_matmul: this CPU cannot run the %s kernel\n", cpu::q8_kernel_name(k));
    }
    const size_t H = shape == "3b" ? 3072 : 1024, F = shape == "3b" ? 8448 : 3072;
    const std::vector<Shape> shapes = {{"qkv/o  ", H, H}, {"gate/up", F, H}, {"down   ", H, F}};
    ThreadPool pool(threads);
    cpu::detail::Bf16Rows xb;  // the amx rows' rounded activations
    std::printf("CPU flags: %s; %d threads; carbon-%s projection shapes, bf16 weights\n", cpu::cpu_flags_summary().c_str(),
                pool.size(), shape.c_str());
    std::printf("%-26s %-8s %6s %10s %10s %10s\n", "path", "matrix", "rows", "ms", "GFLOP/s", "weights GB/s");
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.f, 1.f);
    for (const Shape& s : shapes) {
        std::vector<uint16_t> w(s.n * s.k);
        for (auto& v : w) v = f32_to_bf16(nd(rng) * 0.02f);
        const cpu::WeightMatrix wm{w.data(), DType::BF16, s.n, s.k};
        const cpu::PackedWeights packed = cpu::pack_weights(pool, wm, nullptr, s.n, "the bench matrix");
        cpu::WeightMatrix wp = wm;
        wp.packed = packed.data();
        const cpu::Q8Matrix q8s_[2] = {cpu::quantize_q8(pool, wm, cpu::Q8Scheme::Rows, "the bench matrix"),
                                        cpu::quantize_q8(pool, wm, cpu::Q8Scheme::Groups, "the bench matrix")};
        cpu::Q8Rows xq;
        for (const std::string& rows : split(rows_list)) {
            const size_t m = size_t(std::stoul(rows));
            std::vector<float> x(m * s.k), y(m * s.n);
            for (auto& v : x) v = nd(rng);
            for (cpu::Isa isa : isas)
                for (int variant : {0, 1, 2}) {
                    // avx512-bf16: in place, then packed; amx: the in-place kernel, the k-blocked one, then
                    // the packed one on the packed weights (the default).
                    if (variant && isa != cpu::Isa::Avx512Bf16 && isa != cpu::Isa::Amx) continue;
                    if (variant == 2 && isa != cpu::Isa::Amx) continue;
                    const bool pack = (variant == 1 && isa == cpu::Isa::Avx512Bf16) || variant == 2;
                    const auto amx = variant == 2 ? cpu::detail::AmxKernel::Packed
                                     : variant    ? cpu::detail::AmxKernel::KBlocked
                                                  : cpu::detail::AmxKernel::InPlace;
                    double best = 1e30;
                    for (int r = 0; r < repeat; ++r) {
                        const auto t0 = std::chrono::steady_clock::now();
                        if (isa == cpu::Isa::Amx) {  // what matmul_wt does, with the kernel named
                            cpu::detail::round_rows_to_bf16(pool, x.data(), m, s.k, s.k, xb);
                            cpu::detail::matmul_amx(pool, xb, pack ? wp : wm, nullptr, s.n, y.data(), s.n, amx);
                        } else {
                            cpu::matmul_wt(pool, isa, x.data(), m, s.k, pack ? wp : wm, nullptr, s.n, y.data(), s.n);
                        }
                        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                    }
                    const std::string name = isa == cpu::Isa::Amx
                                                 ? std::string("amx ") + cpu::detail::amx_kernel_name(amx)
                                                 : std::string(cpu::isa_name(isa)) + (pack ? " packed" : "");
                    std::printf("%-26s %-8s %6zu %10.3f %10.1f %10.1f\n", name.c_str(), s.name, m, best * 1e3,
                                2.0 * double(m * s.n * s.k) / best / 1e9, double(w.size() * 2) / best / 1e9);
                }
            for (cpu::Q8Kernel kernel : q8s)
              for (const cpu::Q8Matrix& q8 : q8s_) {
                double best = 1e30;
                for (int r = 0; r < repeat; ++r) {
                    const auto t0 = std::chrono::steady_clock::now();
                    cpu::quantize_rows_q8(pool, x.data(), m, s.k, s.k, q8.scheme, xq);
                    cpu::matmul_q8(pool, kernel, xq, q8, y.data(), s.n);
                    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                }
                const std::string name = std::string("int8 ") + cpu::q8_scheme_name(q8.scheme) + " " + cpu::q8_kernel_name(kernel == cpu::Q8Kernel::Amx && m < cpu::kQ8AmxMinRows ? cpu::Q8Kernel::Avx512Vnni : kernel);
                std::printf("%-26s %-8s %6zu %10.3f %10.1f %10.1f\n", name.c_str(), s.name, m, best * 1e3,
                            2.0 * double(m * s.n * s.k) / best / 1e9, double(q8.bytes()) / best / 1e9);
            }
        }
    }
    return 0;
}
