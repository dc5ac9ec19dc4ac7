// fit_ridge (carbon/predict/ridge.h; built where LAPACK is): standardisation, the exact leave-one-out error of every
// penalty from one eigendecomposition, and the coefficients at the best.
//
// With Zc the standardised, column-centred rows and yc the centred targets, ridge with a free
// intercept is yc ~ Zc b, b = (Zc'Zc + a I)^-1 Zc'yc, and its hat matrix is
// H = 11'/n + Zc (Zc'Zc + a I)^-1 Zc' (the intercept's column is orthogonal to Zc's). The
// leave-one-out residual of row i is (yc_i - (Zc b)_i) / (1 - H_ii), exactly.
//  - p >= n: Zc Zc' = U diag(l) U'; Zc b = U diag(l/(l+a)) U'yc, H_ii = 1/n + sum_j U_ij^2 l_j/(l_j+a),
//    b = Zc' U diag(1/(l+a)) U'yc.
//  - p < n: Zc'Zc = V diag(l) V', Q = Zc V; Zc b = Q diag(1/(l+a)) Q'yc, H_ii = 1/n + sum_j
//    Q_ij^2/(l_j+a), b = V diag(1/(l+a)) Q'yc.
#include "carbon/predict/ridge.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "carbon/support/common.h"

extern "C" {
// LAPACK and BLAS (Fortran calling convention, gfortran's hidden string lengths last).
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work, const int* lwork,
             int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a, const int* lda,
            const double* beta, double* c, const int* ldc, size_t, size_t);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha, const double* a,
            const int* lda, const double* b, const int* ldb, const double* beta, double* c, const int* ldc, size_t, size_t);
}

namespace carbon {

namespace {

int lapack_int(size_t v, const char* what) {
    if (v > size_t(std::numeric_limits<int>::max())) throw Error(std::string("ridge fit: ") + what + " too large for LAPACK");
    return int(v);
}

// Eigen-decomposes the symmetric m x m matrix `a` (column-major, upper triangle set) in place:
// eigenvalues ascending in `w`, eigenvectors in the columns of `a`.
void symmetric_eigen(std::vector<double>& a, size_t m, std::vector<double>& w) {
    const int n = lapack_int(m, "the matrix"), lda = std::max(1, n);
    w.assign(m, 0.0);
    int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
    double work_query = 0;
    dsyevd_("V", "U", &n, a.data(), &lda, w.data(), &work_query, &lwork, &iwork_query, &liwork, &info, 1, 1);
    if (info != 0) throw Error("ridge fit: LAPACK dsyevd workspace query failed (info " + std::to_string(info) + ")");
    lwork = int(work_query) + 1;
    liwork = iwork_query;
    std::vector<double> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(size_t(std::max(1, liwork)));
    dsyevd_("V", "U", &n, a.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
    if (info != 0) throw Error("ridge fit: the eigendecomposition did not converge (LAPACK dsyevd info " + std::to_string(info) + ")");
}

}  // namespace

RidgeModel fit_ridge(const double* X, size_t p, std::span<const size_t> rows, std::span<const double> y, std::span<const double> alphas) {
    const size_t n = rows.size();
    if (n < 2) throw Error("ridge fit: " + std::to_string(n) + " measured sequence(s); at least 2 are needed");
    if (y.size() != n) throw Error("ridge fit: " + std::to_string(y.size()) + " values for " + std::to_string(n) + " rows");
    if (p == 0) throw Error("ridge fit: no features");
    if (alphas.empty()) throw Error("ridge fit: no penalties to choose from");
    for (double a : alphas)
        if (!(a > 0) || !std::isfinite(a)) throw Error("ridge fit: penalty " + std::to_string(a) + " is not a positive number");
    RidgeModel m;
    m.alphas.assign(alphas.begin(), alphas.end());
    const double dn = double(n), eps = std::numeric_limits<double>::epsilon();

    // StandardScaler: mean, population variance, scale 1 where the variance is within rounding of 0.
    m.mean.assign(p, 0.0);
    m.scale.assign(p, 1.0);
    for (size_t r : rows)
        for (size_t j = 0; j < p; ++j) m.mean[j] += X[r * p + j];
    for (double& v : m.mean) v /= dn;
    std::vector<double> var(p, 0.0);
    for (size_t r : rows)
        for (size_t j = 0; j < p; ++j) {
            const double d = X[r * p + j] - m.mean[j];
            var[j] += d * d;
        }
    for (size_t j = 0; j < p; ++j) {
        var[j] /= dn;
        const double bound = dn * eps * var[j] + std::pow(dn * m.mean[j] * eps, 2);
        if (var[j] > bound) m.scale[j] = std::sqrt(var[j]);
    }
    // Zc: standardised, then centred again (as RidgeCV centres what it is given), row-major n x p.
    std::vector<double> Z(n * p), zmean(p, 0.0);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < p; ++j) {
            const double z = (X[rows[i] * p + j] - m.mean[j]) / m.scale[j];
            Z[i * p + j] = z;
            zmean[j] += z;
        }
    for (double& v : zmean) v /= dn;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < p; ++j) Z[i * p + j] -= zmean[j];
    double ymean = 0;
    for (double v : y) ymean += v;
    ymean /= dn;
    std::vector<double> yc(n);
    for (size_t i = 0; i < n; ++i) yc[i] = y[i] - ymean;

    // Row-major Z (n x p) is the column-major p x n matrix A, lda = p.
    const int ni = lapack_int(n, "the number of rows"), pi = lapack_int(p, "the number of features");
    const double one = 1.0, zero = 0.0;
    m.loo_mse.assign(alphas.size(), 0.0);
    std::vector<double> fitted(n), h(n), coef_best;
    const bool gram = p >= n;
    std::vector<double> E, l, t;  // eigenvectors (gram: row-major U; cov: column-major V), eigenvalues, projections of yc
    std::vector<double> Q;        // cov mode: Zc V, row-major n x p
    if (gram) {
        E.assign(n * n, 0.0);
        dsyrk_("U", "T", &ni, &pi, &one, Z.data(), &pi, &zero, E.data(), &ni, 1, 1);
        symmetric_eigen(E, n, l);
        // Row-major U (row i: row i of every eigenvector), for the per-row sums below.
        std::vector<double> U(n * n);
        for (size_t j = 0; j < n; ++j)
            for (size_t i = 0; i < n; ++i) U[i * n + j] = E[j * n + i];
        E.swap(U);
        t.assign(n, 0.0);  // U'yc
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) t[j] += E[i * n + j] * yc[i];
    } else {
        E.assign(p * p, 0.0);
        dsyrk_("U", "N", &pi, &ni, &one, Z.data(), &pi, &zero, E.data(), &pi, 1, 1);
        symmetric_eigen(E, p, l);
        Q.assign(n * p, 0.0);  // column-major p x n: Q' = V' A
        dgemm_("T", "N", &pi, &ni, &pi, &one, E.data(), &pi, Z.data(), &pi, &zero, Q.data(), &pi, 1, 1);
        t.assign(p, 0.0);  // Q'yc
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < p; ++j) t[j] += Q[i * p + j] * yc[i];
    }
    const size_t k = l.size();
    std::vector<double> d(k);
    double best = std::numeric_limits<double>::infinity();
    for (size_t ai = 0; ai < alphas.size(); ++ai) {
        const double a = alphas[ai];
        if (gram) {
            for (size_t j = 0; j < k; ++j) d[j] = l[j] / (l[j] + a);
            for (size_t i = 0; i < n; ++i) {
                double f = 0, hi = 1.0 / dn;
                const double* u_row = E.data() + i * n;
                for (size_t j = 0; j < k; ++j) {
                    const double u = u_row[j];
                    f += u * d[j] * t[j];
                    hi += u * u * d[j];
                }
                fitted[i] = f;
                h[i] = hi;
            }
        } else {
            for (size_t j = 0; j < k; ++j) d[j] = 1.0 / (l[j] + a);
            for (size_t i = 0; i < n; ++i) {
                double f = 0, hi = 1.0 / dn;
                const double* q = Q.data() + i * p;
                for (size_t j = 0; j < k; ++j) {
                    f += q[j] * d[j] * t[j];
                    hi += q[j] * q[j] * d[j];
                }
                fitted[i] = f;
                h[i] = hi;
            }
        }
        double sse = 0;
        for (size_t i = 0; i < n; ++i) {
            const double r = (yc[i] - fitted[i]) / (1.0 - h[i]);
            sse += r * r;
        }
        m.loo_mse[ai] = sse / dn;
        if (m.loo_mse[ai] < best) {
            best = m.loo_mse[ai];
            m.alpha_index = ai;
        }
    }
    if (!std::isfinite(best))
        throw Error("ridge fit: the leave-one-out error is not finite for any penalty (a row that alone decides the fit?)");
    m.alpha = alphas[m.alpha_index];
    m.coef.assign(p, 0.0);
    if (gram) {
        std::vector<double> c(n, 0.0);  // U diag(1/(l+a)) U'yc
        for (size_t j = 0; j < k; ++j) {
            const double w = t[j] / (l[j] + m.alpha);
            for (size_t i = 0; i < n; ++i) c[i] += E[i * n + j] * w;
        }
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < p; ++j) m.coef[j] += Z[i * p + j] * c[i];
    } else {
        for (size_t j = 0; j < k; ++j) {
            const double w = t[j] / (l[j] + m.alpha);
            for (size_t f = 0; f < p; ++f) m.coef[f] += E[j * p + f] * w;
        }
    }
    m.intercept = ymean;
    for (size_t j = 0; j < p; ++j) m.intercept -= zmean[j] * m.coef[j];
    return m;
}

}  // namespace carbon
