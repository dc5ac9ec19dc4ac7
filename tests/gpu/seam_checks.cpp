// The device seam's shared checks (seam_checks.h): GEMM mapping against a double-precision
// reference, copy/memset ordering, events across streams, graph capture and replay.
#include "seam_checks.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "carbon/kernels/row_sum_squares.h"
#include "check.h"
#include "seam_objects.h"

namespace carbon::gpu::checks {
namespace {

using test::DeviceArray;
using test::EventOwner;
using test::GraphOwner;
using test::PinnedArray;
using test::StreamOwner;

// A row-major matrix in its element type's bytes, with its values as doubles (exactly the rounded
// elements the device sees).
struct HostMatrix {
    std::int64_t rows = 0, cols = 0, ld = 0;
    DType type = DType::F32;
    std::vector<unsigned char> bytes;
    std::vector<double> values;  // [rows * ld]

    double at(std::int64_t r, std::int64_t c) const { return values[r * ld + c]; }
};

HostMatrix random_matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld, DType type, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    HostMatrix m{
        rows, cols, ld, type, std::vector<unsigned char>(rows * ld * dtype_size(type)), std::vector<double>(rows * ld)};
    for (std::int64_t i = 0; i < rows * ld; ++i) {
        const float v = dist(rng);
        if (type == DType::F32) {
            std::memcpy(m.bytes.data() + i * 4, &v, 4);
            m.values[i] = v;
        } else {
            const std::uint16_t h = type == DType::BF16 ? f32_to_bf16(v) : f32_to_f16(v);
            std::memcpy(m.bytes.data() + i * 2, &h, 2);
            m.values[i] = type == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
        }
    }
    return m;
}

double element(const std::vector<unsigned char>& bytes, std::int64_t i, DType type) {
    if (type == DType::F32) {
        float v;
        std::memcpy(&v, bytes.data() + i * 4, 4);
        return v;
    }
    std::uint16_t h;
    std::memcpy(&h, bytes.data() + i * 2, 2);
    return type == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
}

// Rounding of the output type, relative (0 for fp32: the accumulation bound covers it).
double output_rounding(DType t) {
    return t == DType::BF16 ? 0x1p-8 : t == DType::F16 ? 0x1p-11 : 0.0;
}

struct GemmCase {
    std::int64_t m, n, k;
    Transpose ta, tb;
    DType in, out;
    float alpha, beta;
};

// Runs one case; returns an empty string when every element is within the bound.
std::string run_case(Device& device, Stream stream, Mapping mapping, const GemmCase& c, std::mt19937& rng) {
    // Stored shapes (row-major) and leading dimensions larger than the stored columns.
    const std::int64_t a_rows = c.ta == Transpose::No ? c.m : c.k, a_cols = c.ta == Transpose::No ? c.k : c.m;
    const std::int64_t b_rows = c.tb == Transpose::No ? c.k : c.n, b_cols = c.tb == Transpose::No ? c.n : c.k;
    const HostMatrix a = random_matrix(a_rows, a_cols, a_cols + 3, c.in, rng);
    const HostMatrix b = random_matrix(b_rows, b_cols, b_cols + 5, c.in, rng);
    HostMatrix c0 = random_matrix(c.m, c.n, c.n + 2, c.out, rng);
    if (c.beta == 0.0f) std::memset(c0.bytes.data(), 0xFF, c0.bytes.size());  // NaN junk, must not be read

    DeviceArray<unsigned char> da(device, a.bytes.size()), db(device, b.bytes.size()), dc(device, c0.bytes.size());
    device.copy_to_device(da.get(), a.bytes.data(), a.bytes.size(), stream);
    device.copy_to_device(db.get(), b.bytes.data(), b.bytes.size(), stream);
    device.copy_to_device(dc.get(), c0.bytes.data(), c0.bytes.size(), stream);
    RowMajorGemm g;
    g.trans_a = c.ta, g.trans_b = c.tb, g.m = c.m, g.n = c.n, g.k = c.k;
    g.a = da.get(), g.a_type = c.in, g.lda = a.ld;
    g.b = db.get(), g.b_type = c.in, g.ldb = b.ld;
    g.c = dc.get(), g.c_type = c.out, g.ldc = c0.ld;
    g.alpha = c.alpha, g.beta = c.beta;
    try {
        device.gemm(mapping(g), stream);
    } catch (const Error& e) {
        device.stream_synchronize(stream);  // the uploads still read the host matrices
        return std::string("refused: ") + e.what();
    }
    std::vector<unsigned char> got(c0.bytes.size());
    device.copy_to_host(got.data(), dc.get(), got.size(), stream);
    device.stream_synchronize(stream);

    for (std::int64_t i = 0; i < c.m; ++i)
        for (std::int64_t j = 0; j < c0.ld; ++j) {
            const std::int64_t idx = i * c0.ld + j;
            const double v = element(got, idx, c.out);
            if (j >= c.n) {  // padding between rows: untouched, bit for bit
                if (std::memcmp(got.data() + idx * dtype_size(c.out), c0.bytes.data() + idx * dtype_size(c.out),
                                dtype_size(c.out)) != 0)
                    return "padding element (" + std::to_string(i) + ", " + std::to_string(j) + ") of C was written";
                continue;
            }
            double want = 0.0, magnitude = 0.0;
            for (std::int64_t p = 0; p < c.k; ++p) {
                const double x = c.ta == Transpose::No ? a.at(i, p) : a.at(p, i);
                const double y = c.tb == Transpose::No ? b.at(p, j) : b.at(j, p);
                want += x * y;
                magnitude += std::fabs(x * y);
            }
            want *= c.alpha;
            magnitude *= std::fabs(c.alpha);
            if (c.beta != 0.0f) {
                want += c.beta * c0.at(i, j);
                magnitude += std::fabs(c.beta * c0.at(i, j));
            }
            // fp32 accumulation in any order: at most about (k + 2) units of 2^-24 of the terms'
            // magnitude (doubled for slack), then one rounding to the output type.
            const double bound =
                2.0 * (c.k + 2) * 0x1p-24 * magnitude + output_rounding(c.out) * std::fabs(want) + 1e-30;
            if (!(std::fabs(v - want) <= bound))
                return "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(v) + ", want " +
                       std::to_string(want) + " within " + std::to_string(bound);
        }
    return {};
}

const char* op_name(Transpose t) {
    return t == Transpose::No ? "N" : "T";
}

}  // namespace

GemmReport row_major_gemms(Device& device, Mapping mapping) {
    GemmReport report;
    StreamOwner stream(device);
    std::mt19937 rng(20240611);
    const std::int64_t ms[] = {1, 3, 17};
    const std::int64_t nk[][2] = {{5, 7}, {13, 19}, {30, 45}};
    const DType types[][2] = {
        {DType::BF16, DType::F32}, {DType::BF16, DType::BF16}, {DType::F16, DType::F32}, {DType::F32, DType::F32}};
    int variant = 0;
    for (std::int64_t m : ms)
        for (const auto& s : nk)
            for (Transpose ta : {Transpose::No, Transpose::Yes})
                for (Transpose tb : {Transpose::No, Transpose::Yes})
                    for (const auto& t : types) {
                        // alpha/beta vary: plain, scaled, accumulate into C, beta 0 with alpha != 1.
                        const float alphas[] = {1.0f, 0.5f, 1.0f, -2.0f};
                        const float betas[] = {0.0f, 0.0f, 1.0f, 0.0f};
                        const int v = variant++ % 4;
                        const GemmCase c{m, s[0], s[1], ta, tb, t[0], t[1], alphas[v], betas[v]};
                        ++report.cases;
                        const std::string why = run_case(device, stream.get(), mapping, c, rng);
                        if (why.empty()) continue;
                        const bool refused = why.rfind("refused: ", 0) == 0;
                        ++(refused ? report.refused : report.mismatches);
                        if (report.first.empty())
                            report.first = std::string(op_name(ta)) + op_name(tb) + " m " + std::to_string(m) + " n " +
                                           std::to_string(s[0]) + " k " + std::to_string(s[1]) + " " +
                                           dtype_name(t[0]) + " -> " + dtype_name(t[1]) + ": " + why;
                    }
    return report;
}

GemmReport int8_gemms(Device& device) {
    GemmReport report;
    StreamOwner stream(device);
    std::mt19937 rng(20261129);
    std::uniform_int_distribution<int> value(-127, 127);
    for (std::int64_t rows : {1, 9, 64, 130})
        for (std::int64_t out : {4, 64, 1028})
            for (std::int64_t k : {16, 64, 1040}) {
                ++report.cases;
                std::vector<std::int8_t> x(std::size_t(rows * k)), w(std::size_t(out * k));
                for (auto& v : x) v = std::int8_t(value(rng));
                for (auto& v : w) v = std::int8_t(value(rng));
                DeviceArray<std::int8_t> dx(device, x.size()), dw(device, w.size());
                DeviceArray<std::int32_t> dy(device, std::size_t(rows * out));
                device.copy_to_device(dx.get(), x.data(), x.size(), stream.get());
                device.copy_to_device(dw.get(), w.data(), w.size(), stream.get());
                RowMajorGemm g;
                g.trans_b = Transpose::Yes;
                g.m = rows, g.n = out, g.k = k;
                g.a = dx.get(), g.a_type = DType::I8, g.lda = k;
                g.b = dw.get(), g.b_type = DType::I8, g.ldb = k;
                g.c = dy.get(), g.c_type = DType::I32, g.ldc = out;
                std::vector<std::int32_t> y(std::size_t(rows * out));
                try {
                    gemm_row_major(device, g, stream.get());
                    device.copy_to_host(y.data(), dy.get(), y.size() * 4, stream.get());
                    device.stream_synchronize(stream.get());
                } catch (const Error& e) {
                    ++report.refused;
                    if (report.first.empty()) report.first = "refused: " + std::string(e.what());
                    continue;
                }
                int wrong = 0;
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < out; ++j) {
                        std::int32_t want = 0;
                        for (std::int64_t p = 0; p < k; ++p) want += std::int32_t(x[std::size_t(i * k + p)]) * w[std::size_t(j * k + p)];
                        wrong += y[std::size_t(i * out + j)] != want;
                    }
                if (wrong) {
                    ++report.mismatches;
                    if (report.first.empty())
                        report.first = "rows " + std::to_string(rows) + " out " + std::to_string(out) + " k " + std::to_string(k) +
                                       ": " + std::to_string(wrong) + " sums wrong";
                }
            }
    return report;
}

void copies_and_memsets_in_order(Device& device) {
    StreamOwner stream(device);
    const std::size_t n = 1000;
    PinnedArray<unsigned char> in(device, n), out(device, n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 7 + 1);
    DeviceArray<unsigned char> d1(device, n), d2(device, n);
    const Stream s = stream.get();
    device.copy_to_device(d1.get(), in.get(), n, s);
    device.memset(d2.get(), 0x5A, n, s);
    device.copy_on_device(d2.get() + 100, d1.get() + 10, 300, s);  // after the memset, over part of it
    device.memset(d2.get() + 350, 0x33, 20, s);                    // after the copy, over part of it
    device.copy_to_host(out.get(), d2.get(), n, s);
    device.stream_synchronize(s);
    int bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char want = i >= 350 && i < 370 ? 0x33 : i >= 100 && i < 400 ? in[i - 100 + 10] : 0x5A;
        if (out[i] != want) ++bad;
    }
    CHECK_EQ(bad, 0);

    // Pageable host memory works outside graphs too.
    std::vector<float> up(37), down(37, 0.0f);
    for (std::size_t i = 0; i < up.size(); ++i) up[i] = 0.25f * static_cast<float>(i) - 3.0f;
    DeviceArray<float> d3(device, up.size());
    device.copy_to_device(d3.get(), up.data(), d3.bytes(), s);
    device.copy_to_host(down.data(), d3.get(), d3.bytes(), s);
    device.stream_synchronize(s);
    CHECK(down == up);
}

void event_orders_two_streams(Device& device) {
    StreamOwner s1(device), s2(device);
    EventOwner uploaded(device), zeroed(device);
    const std::size_t n = std::size_t{1} << 20;  // large enough that a GPU copy takes a while
    PinnedArray<float> in(device, n), out(device, n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 977) - 400.0f;
    DeviceArray<float> d1(device, n), d2(device, n);
    device.copy_to_device(d1.get(), in.get(), d1.bytes(), s1.get());
    device.event_record(uploaded.get(), s1.get());
    device.stream_wait_event(s2.get(), uploaded.get());
    device.copy_on_device(d2.get(), d1.get(), d1.bytes(), s2.get());
    device.copy_to_host(out.get(), d2.get(), d2.bytes(), s2.get());
    device.stream_synchronize(s2.get());  // only stream 2: the event orders stream 1's upload first
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += out[i] != in[i];
    CHECK_EQ(bad, std::size_t{0});

    // The host waits for an event: the memset before the record has run, so a copy after it (on
    // another stream, ordered by the host's wait) sees zeros.
    device.memset(d1.get(), 0, d1.bytes(), s1.get());
    device.event_record(zeroed.get(), s1.get());
    device.event_synchronize(zeroed.get());
    device.copy_to_host(out.get(), d1.get(), 64 * sizeof(float), s2.get());
    device.stream_synchronize(s2.get());
    bad = 0;
    for (std::size_t i = 0; i < 64; ++i) bad += out[i] != 0.0f;
    CHECK_EQ(bad, std::size_t{0});
}

namespace {

// The graph check's shapes: x is [rows, cols]; its rows' sums of squares, read as a [r1, r2]
// matrix, times W^T ([n, r2]) give y [r1, n].
constexpr int kR1 = 3, kR2 = 4, kRows = kR1 * kR2, kCols = 37, kN = 5;

struct GraphBuffers {
    PinnedArray<float> x, ss, y;
    DeviceArray<float> dx, dss, dw, dy;
    explicit GraphBuffers(Device& d)
        : x(d, kRows * kCols),
          ss(d, kRows),
          y(d, kR1 * kN),
          dx(d, kRows * kCols),
          dss(d, kRows),
          dw(d, kN * kR2),
          dy(d, kR1 * kN) {}
};

void sequence(Device& device, GraphBuffers& b, Stream s) {
    device.copy_to_device(b.dx.get(), b.x.get(), b.x.bytes(), s);
    CHECK_EQ(carbon::kern::row_sum_squares(b.dx.get(), b.dss.get(), kRows, kCols, s), cudaSuccess);
    RowMajorGemm g;
    g.trans_b = Transpose::Yes;  // y = ss W^T, W [n, r2] as a checkpoint stores it
    g.m = kR1, g.n = kN, g.k = kR2;
    g.a = b.dss.get(), g.lda = kR2;
    g.b = b.dw.get(), g.ldb = kR2;
    g.c = b.dy.get(), g.ldc = kN;
    gemm_row_major(device, g, s);
    device.copy_to_host(b.y.get(), b.dy.get(), b.dy.bytes(), s);
    device.copy_to_host(b.ss.get(), b.dss.get(), b.dss.bytes(), s);
}

void fill_input(GraphBuffers& b, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
    for (std::size_t i = 0; i < b.x.size(); ++i) b.x[i] = dist(rng);
}

std::vector<float> outputs(const GraphBuffers& b) {
    std::vector<float> v(b.y.get(), b.y.get() + b.y.size());
    v.insert(v.end(), b.ss.get(), b.ss.get() + b.ss.size());
    return v;
}

std::vector<double> reference_outputs(const GraphBuffers& b, const std::vector<float>& w) {
    std::vector<double> ss(kRows, 0.0), out;
    for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < kCols; ++c) ss[r] += double(b.x[r * kCols + c]) * b.x[r * kCols + c];
    for (int i = 0; i < kR1; ++i)
        for (int j = 0; j < kN; ++j) {
            double acc = 0.0;
            for (int p = 0; p < kR2; ++p) acc += ss[i * kR2 + p] * w[j * kR2 + p];
            out.push_back(acc);
        }
    out.insert(out.end(), ss.begin(), ss.end());
    return out;
}

}  // namespace

void graph_replays_with_new_inputs(Device& device) {
    StreamOwner stream(device);
    const Stream s = stream.get();
    GraphBuffers b(device);
    std::vector<float> w(kN * kR2);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.125f * static_cast<float>(i % 9) - 0.5f;
    device.copy_to_device(b.dw.get(), w.data(), b.dw.bytes(), s);

    // Direct runs with two inputs.
    fill_input(b, 1);
    sequence(device, b, s);
    device.stream_synchronize(s);
    const std::vector<float> direct1 = outputs(b);
    const std::vector<double> ref1 = reference_outputs(b, w);
    fill_input(b, 2);
    sequence(device, b, s);
    device.stream_synchronize(s);
    const std::vector<float> direct2 = outputs(b);
    const std::vector<double> ref2 = reference_outputs(b, w);

    // Capture: nothing runs until the graph is launched.
    for (std::size_t i = 0; i < b.y.size(); ++i) b.y[i] = -7.0f;
    device.begin_capture(s);
    sequence(device, b, s);
    GraphOwner graph(device, device.end_capture(s));
    device.stream_synchronize(s);
    CHECK_EQ(b.y[0], -7.0f);

    // Replays read the pinned input as it is at replay time.
    const auto replay = [&](unsigned seed, const std::vector<float>& direct, const std::vector<double>& ref) {
        fill_input(b, seed);
        for (std::size_t i = 0; i < b.y.size(); ++i) b.y[i] = -7.0f;
        device.launch_graph(graph.get(), s);
        device.stream_synchronize(s);
        const std::vector<float> got = outputs(b);
        CHECK_EQ(got.size(), direct.size());
        for (std::size_t i = 0; i < got.size() && i < direct.size(); ++i) {
            CHECK_NEAR(got[i], direct[i], 1e-6 * std::fabs(direct[i]));
            CHECK_NEAR(got[i], ref[i], 1e-5 * std::fabs(ref[i]) + 1e-6);
        }
    };
    replay(2, direct2, ref2);
    replay(1, direct1, ref1);
}

}  // namespace carbon::gpu::checks
