// The map of designs: PCA by subspace iteration and k-means (carbon/predict/design_map.h).
#include "carbon/predict/design_map.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "carbon/support/common.h"
#include "splitmix.h"

namespace carbon {

namespace {

// Row-major m x m symmetric matrix times the m x p block Q (column-major: p columns of m).
void symm_times(const std::vector<double>& S, size_t m, const std::vector<double>& Q, size_t p, std::vector<double>& out) {
    out.assign(m * p, 0.0);
    for (size_t j = 0; j < p; ++j) {
        const double* q = Q.data() + j * m;
        double* o = out.data() + j * m;
        for (size_t i = 0; i < m; ++i) {
            const double* s = S.data() + i * m;
            double acc = 0;
            for (size_t k = 0; k < m; ++k) acc += s[k] * q[k];
            o[i] = acc;
        }
    }
}

// Orthonormalises the p columns of Q (modified Gram-Schmidt, twice for stability); a column that
// vanishes is replaced by a unit vector orthogonal to the others where one exists.
void orthonormalise(std::vector<double>& Q, size_t m, size_t p) {
    for (size_t pass = 0; pass < 2; ++pass)
        for (size_t j = 0; j < p; ++j) {
            double* q = Q.data() + j * m;
            for (size_t i = 0; i < j; ++i) {
                const double* r = Q.data() + i * m;
                double d = 0;
                for (size_t k = 0; k < m; ++k) d += r[k] * q[k];
                for (size_t k = 0; k < m; ++k) q[k] -= d * r[k];
            }
            double n = 0;
            for (size_t k = 0; k < m; ++k) n += q[k] * q[k];
            n = std::sqrt(n);
            if (n < 1e-300) {
                std::fill(q, q + m, 0.0);
                q[j % m] = 1.0;
                continue;  // the next pass orthogonalises it
            }
            for (size_t k = 0; k < m; ++k) q[k] /= n;
        }
}

// Eigenvalues (descending) and eigenvectors (columns of V, p x p row-major) of the small
// symmetric p x p matrix T, by cyclic Jacobi rotations.
void jacobi_eigen(std::vector<double> T, size_t p, std::vector<double>& values, std::vector<double>& V) {
    V.assign(p * p, 0.0);
    for (size_t i = 0; i < p; ++i) V[i * p + i] = 1.0;
    double norm = 0;
    for (double t : T) norm += t * t;
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0;
        for (size_t i = 0; i < p; ++i)
            for (size_t j = i + 1; j < p; ++j) off += T[i * p + j] * T[i * p + j];
        if (off <= 1e-32 * norm || off < 1e-300) break;  // off-diagonal at rounding level
        for (size_t a = 0; a < p; ++a)
            for (size_t b = a + 1; b < p; ++b) {
                const double tab = T[a * p + b];
                if (std::abs(tab) < 1e-300) continue;
                const double theta = (T[b * p + b] - T[a * p + a]) / (2 * tab);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (size_t k = 0; k < p; ++k) {  // T <- J^T T J
                    const double tka = T[k * p + a], tkb = T[k * p + b];
                    T[k * p + a] = c * tka - s * tkb;
                    T[k * p + b] = s * tka + c * tkb;
                }
                for (size_t k = 0; k < p; ++k) {
                    const double tak = T[a * p + k], tbk = T[b * p + k];
                    T[a * p + k] = c * tak - s * tbk;
                    T[b * p + k] = s * tak + c * tbk;
                }
                for (size_t k = 0; k < p; ++k) {
                    const double vka = V[k * p + a], vkb = V[k * p + b];
                    V[k * p + a] = c * vka - s * vkb;
                    V[k * p + b] = s * vka + c * vkb;
                }
            }
    }
    std::vector<size_t> order(p);
    for (size_t i = 0; i < p; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return T[x * p + x] > T[y * p + y]; });
    values.resize(p);
    std::vector<double> sorted(p * p);
    for (size_t j = 0; j < p; ++j) {
        values[j] = T[order[j] * p + order[j]];
        for (size_t i = 0; i < p; ++i) sorted[i * p + j] = V[i * p + order[j]];
    }
    V = std::move(sorted);
}

// The two leading eigenpairs of the m x m symmetric positive semi-definite S.
void top_two(const std::vector<double>& S, size_t m, std::array<double, 2>& lambda, std::array<std::vector<double>, 2>& vec) {
    const size_t p = std::min<size_t>(m, 12);  // oversampled block: converges as (lambda_13 / lambda_2)^iterations
    std::vector<double> Q(m * p), Z, values, V, SQ;
    SplitMix64 rng{0x5eed};
    for (double& q : Q) q = rng.uniform() - 0.5;
    orthonormalise(Q, m, p);
    symm_times(S, m, Q, p, Z);
    double scale_S = 0;  // |S|_F: residuals are measured against it
    for (double v : S) scale_S += v * v;
    scale_S = std::sqrt(scale_S);
    for (int it = 0; it < 2000; ++it) {
        orthonormalise(Z, m, p);
        // Rayleigh-Ritz: T = Z^T S Z, rotated to its eigenvectors.
        std::vector<double> SZ;
        symm_times(S, m, Z, p, SZ);
        std::vector<double> T(p * p);
        for (size_t a = 0; a < p; ++a)
            for (size_t b = 0; b < p; ++b) {
                double d = 0;
                for (size_t k = 0; k < m; ++k) d += Z[a * m + k] * SZ[b * m + k];
                T[a * p + b] = d;
            }
        for (size_t a = 0; a < p; ++a)
            for (size_t b = a + 1; b < p; ++b) T[a * p + b] = T[b * p + a] = 0.5 * (T[a * p + b] + T[b * p + a]);
        jacobi_eigen(T, p, values, V);
        // Q = Z V, and S Q = (S Z) V without another product with S.
        Q.assign(m * p, 0.0);
        SQ.assign(m * p, 0.0);
        for (size_t j = 0; j < p; ++j)
            for (size_t i = 0; i < p; ++i) {
                const double w = V[i * p + j];
                for (size_t k = 0; k < m; ++k) {
                    Q[j * m + k] += w * Z[i * m + k];
                    SQ[j * m + k] += w * SZ[i * m + k];
                }
            }
        // Settled when the two leading Ritz pairs are eigenpairs to rounding: |S q - lambda q|
        // at most 1e-12 |S|.
        bool settled = true;
        for (size_t c = 0; c < std::min<size_t>(2, p); ++c) {
            double r = 0;
            for (size_t k = 0; k < m; ++k) r += (SQ[c * m + k] - values[c] * Q[c * m + k]) * (SQ[c * m + k] - values[c] * Q[c * m + k]);
            settled = settled && std::sqrt(r) <= 1e-12 * scale_S;
        }
        if (settled || scale_S == 0) break;
        Z = SQ;
    }
    lambda = {std::max(0.0, values[0]), p > 1 ? std::max(0.0, values[1]) : 0.0};
    for (size_t c = 0; c < 2; ++c) {
        vec[c].assign(m, 0.0);
        if (c < p) std::copy(Q.begin() + std::ptrdiff_t(c * m), Q.begin() + std::ptrdiff_t((c + 1) * m), vec[c].begin());
    }
}

// The rows of `e` with each column's mean taken away.
std::vector<double> centred(const Embeddings& e, size_t n) {
    std::vector<double> x(e.values.begin(), e.values.begin() + std::ptrdiff_t(n * e.width));
    for (size_t j = 0; j < e.width; ++j) {
        double mean = 0;
        for (size_t i = 0; i < n; ++i) mean += x[i * e.width + j];
        mean /= double(n);
        for (size_t i = 0; i < n; ++i) x[i * e.width + j] -= mean;
    }
    return x;
}

}  // namespace

DesignMap project_designs(const Embeddings& e) {
    const size_t d = e.width;
    const size_t n = d ? e.values.size() / d : 0;
    if (n < 2 || d == 0) throw Error("a map of designs needs at least 2 embedded designs (has " + std::to_string(n) + ")");
    const std::vector<double> x = centred(e, n);
    double total = 0, raw = 0;
    for (double v : x) total += v * v;
    for (size_t i = 0; i < n * d; ++i) raw += e.values[i] * e.values[i];
    DesignMap map;
    map.points.assign(n, {0.0, 0.0});
    // Every design the same: what centring leaves is rounding, not variance.
    if (total <= 1e-24 * raw || total <= 0) return map;
    std::array<double, 2> lambda{};
    std::array<std::vector<double>, 2> vec;
    std::array<std::vector<double>, 2> loading;  // per component: its direction in embedding space
    if (n <= d) {
        // Gram matrix X X^T (n x n): its eigenvectors u give the scores u * sqrt(lambda).
        std::vector<double> G(n * n);
        for (size_t i = 0; i < n; ++i)
            for (size_t j = i; j < n; ++j) {
                double s = 0;
                for (size_t k = 0; k < d; ++k) s += x[i * d + k] * x[j * d + k];
                G[i * n + j] = G[j * n + i] = s;
            }
        top_two(G, n, lambda, vec);
        for (size_t c = 0; c < 2; ++c) {
            loading[c].assign(d, 0.0);  // X^T u / sqrt(lambda)
            if (lambda[c] <= 1e-14 * total) continue;
            for (size_t i = 0; i < n; ++i)
                for (size_t k = 0; k < d; ++k) loading[c][k] += x[i * d + k] * vec[c][i];
            for (double& v : loading[c]) v /= std::sqrt(lambda[c]);
        }
    } else {
        // Covariance X^T X (d x d): its eigenvectors are the loadings.
        std::vector<double> C(d * d, 0.0);
        for (size_t i = 0; i < n; ++i)
            for (size_t a = 0; a < d; ++a) {
                const double xa = x[i * d + a];
                for (size_t b = a; b < d; ++b) C[a * d + b] += xa * x[i * d + b];
            }
        for (size_t a = 0; a < d; ++a)
            for (size_t b = 0; b < a; ++b) C[a * d + b] = C[b * d + a];
        top_two(C, d, lambda, vec);
        for (size_t c = 0; c < 2; ++c) loading[c] = lambda[c] <= 1e-14 * total ? std::vector<double>(d, 0.0) : vec[c];
    }
    for (size_t c = 0; c < 2; ++c) {
        // The sign: the loading's largest-magnitude entry positive.
        size_t big = 0;
        for (size_t k = 1; k < d; ++k)
            if (std::abs(loading[c][k]) > std::abs(loading[c][big])) big = k;
        const double sign = loading[c][big] < 0 ? -1.0 : 1.0;
        for (size_t i = 0; i < n; ++i) {
            double s = 0;
            for (size_t k = 0; k < d; ++k) s += x[i * d + k] * loading[c][k];
            map.points[i][c] = sign * s;
        }
        map.explained_ratio[c] = lambda[c] <= 1e-14 * total ? 0.0 : lambda[c] / total;
    }
    return map;
}

Clustering cluster_designs(const Embeddings& e, size_t k, uint64_t seed) {
    const size_t d = e.width;
    const size_t n = d ? e.values.size() / d : 0;
    Clustering out;
    out.cluster.assign(n, 0);
    if (n == 0) return out;
    auto dist2 = [&](const double* a, const double* b) {
        double s = 0;
        for (size_t j = 0; j < d; ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
        return s;
    };
    // k-means++: the first centre uniformly, each next with probability proportional to the
    // squared distance to the nearest centre so far; fewer when the rows run out of distinct points.
    SplitMix64 rng{seed ^ 0x6b6d65616e73ull};
    std::vector<double> centres;
    const size_t first = size_t(rng.next() % n);
    centres.insert(centres.end(), e.row(first), e.row(first) + d);
    std::vector<double> nearest(n);
    for (size_t i = 0; i < n; ++i) nearest[i] = dist2(e.row(i), centres.data());
    while (centres.size() / d < std::max<size_t>(1, k)) {
        double sum = 0;
        for (double v : nearest) sum += v;
        if (sum <= 0) break;  // every row is a centre already
        double u = rng.uniform() * sum;
        size_t pick = n;
        for (size_t i = 0; i < n; ++i) {
            if (u < nearest[i]) {
                pick = i;
                break;
            }
            u -= nearest[i];
        }
        if (pick == n)  // rounding left u past the end: the last row not a centre yet
            for (size_t i = n; i-- > 0;)
                if (nearest[i] > 0) {
                    pick = i;
                    break;
                }
        centres.insert(centres.end(), e.row(pick), e.row(pick) + d);
        const double* c = centres.data() + centres.size() - d;
        for (size_t i = 0; i < n; ++i) nearest[i] = std::min(nearest[i], dist2(e.row(i), c));
    }
    const size_t kk = centres.size() / d;
    // Lloyd: assign to the nearest centre (the lower index on ties), move each centre to its
    // rows' mean (an emptied centre stays), until no assignment changes.
    std::vector<int>& a = out.cluster;
    std::fill(a.begin(), a.end(), -1);
    for (out.iterations = 0; out.iterations < 1000; ++out.iterations) {
        bool changed = false;
        for (size_t i = 0; i < n; ++i) {
            int best = 0;
            double bd = std::numeric_limits<double>::infinity();
            for (size_t c = 0; c < kk; ++c) {
                const double v = dist2(e.row(i), centres.data() + c * d);
                if (v < bd) bd = v, best = int(c);
            }
            if (a[i] != best) a[i] = best, changed = true;
        }
        if (!changed) break;
        std::vector<double> sum(kk * d, 0.0);
        std::vector<size_t> count(kk, 0);
        for (size_t i = 0; i < n; ++i) {
            ++count[size_t(a[i])];
            for (size_t j = 0; j < d; ++j) sum[size_t(a[i]) * d + j] += e.row(i)[j];
        }
        for (size_t c = 0; c < kk; ++c)
            if (count[c])
                for (size_t j = 0; j < d; ++j) centres[c * d + j] = sum[c * d + j] / double(count[c]);
    }
    for (size_t i = 0; i < n; ++i) out.inertia += dist2(e.row(i), centres.data() + size_t(a[i]) * d);
    return out;
}

}  // namespace carbon
