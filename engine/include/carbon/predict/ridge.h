// Ridge regression for probes on frozen embeddings, numerically the procedure scikit-learn users
// write as make_pipeline(StandardScaler(), RidgeCV(alphas)) :
//  - each feature standardised by its mean and population standard deviation over the rows fitted
//    (a feature constant to rounding keeps scale 1, as StandardScaler does);
//  - an unpenalised intercept; the penalty chosen from `alphas` by the exact leave-one-out squared
//    error (RidgeCV's default efficient LOO: one eigendecomposition, of the n x n Gram matrix when
//    there are at least as many features as rows, else of the p x p covariance), the first alpha
//    of the grid on a tie.
// Double precision throughout, through LAPACK (dsyevd) and BLAS (dsyrk, dgemm).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace carbon {

struct RidgeModel {
    std::vector<double> mean, scale;  // per feature: the standardisation
    std::vector<double> coef;         // per feature, on the standardised features
    double intercept = 0;
    std::vector<double> alphas;       // the penalties searched
    double alpha = 0;                 // the penalty chosen
    size_t alpha_index = 0;           // its place in the grid
    std::vector<double> loo_mse;      // per alpha of the grid: mean squared leave-one-out error

    // The prediction for one row of `p` raw features.
    double predict(const double* x) const;
    bool alpha_at_grid_edge() const { return alpha_index == 0 || alpha_index + 1 == loo_mse.size(); }
};

// 10^-2 .. 10^6, four to a decade (33 values): on standardised features of width 1,024 to 8,192
// the useful penalties lie well inside.
std::vector<double> default_ridge_alphas();

// Fits the rows `rows` of the row-major matrix X (`p` features per row) to `y` (one value per
// entry of `rows`). Needs at least 2 rows and a non-empty grid of positive, finite alphas; Error
// otherwise.
RidgeModel fit_ridge(const double* X, size_t p, std::span<const size_t> rows, std::span<const double> y,
                     std::span<const double> alphas);

}  // namespace carbon
