// RidgeModel's prediction and the default grid (carbon/predict/ridge.h); the fit is ridge_fit.cpp.
#include "carbon/predict/ridge.h"

#include <cmath>

namespace carbon {

double RidgeModel::predict(const double* x) const {
    double v = intercept;
    for (size_t j = 0; j < coef.size(); ++j) v += coef[j] * ((x[j] - mean[j]) / scale[j]);
    return v;
}

std::vector<double> default_ridge_alphas() {
    std::vector<double> a;
    for (int e = -8; e <= 24; ++e) a.push_back(std::pow(10.0, double(e) / 4.0));
    return a;
}

}  // namespace carbon
