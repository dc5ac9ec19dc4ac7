// pearson, spearman, pearson_interval (carbon/predict/correlation.h).
#include "carbon/predict/correlation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace carbon {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> average_ranks(std::span<const double> v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> rank(v.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i + 1;
        while (j < order.size() && v[order[j]] == v[order[i]]) ++j;
        const double r = 0.5 * double(i + j - 1) + 1.0;  // ranks i+1 .. j averaged
        for (size_t k = i; k < j; ++k) rank[order[k]] = r;
        i = j;
    }
    return rank;
}

}  // namespace

double pearson(std::span<const double> a, std::span<const double> b) {
    const size_t n = std::min(a.size(), b.size());
    if (n < 2) return kNaN;
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
    ma /= double(n), mb /= double(n);
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; ++i) {
        const double da = a[i] - ma, db = b[i] - mb;
        sab += da * db, saa += da * da, sbb += db * db;
    }
    if (saa <= 0 || sbb <= 0) return kNaN;
    return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

double spearman(std::span<const double> a, std::span<const double> b) {
    const size_t n = std::min(a.size(), b.size());
    const std::vector<double> ra = average_ranks(a.first(n)), rb = average_ranks(b.first(n));
    return pearson(ra, rb);
}

std::pair<double, double> pearson_interval(double r, size_t n) {
    if (n < 4 || !std::isfinite(r)) return {kNaN, kNaN};
    const double z = std::atanh(std::clamp(r, -0.999999999, 0.999999999)), se = 1.0 / std::sqrt(double(n) - 3.0);
    return {std::tanh(z - 1.96 * se), std::tanh(z + 1.96 * se)};
}

}  // namespace carbon
