// Agreement of predictions with measurements, as a held-out report states it: Pearson's r,
// Spearman's rho (Pearson's r of the ranks, ties given their average rank, as scipy.stats does)
// and the Fisher-z 95% interval of r.
#pragma once

#include <span>
#include <utility>

namespace carbon {

// NaN when either side is constant or there are fewer than 2 pairs.
double pearson(std::span<const double> a, std::span<const double> b);
double spearman(std::span<const double> a, std::span<const double> b);
// The 95% interval of a Pearson r from n pairs (tanh(atanh(r) -+ 1.96 / sqrt(n - 3))); NaNs for n < 4.
std::pair<double, double> pearson_interval(double r, size_t n);

}  // namespace carbon
