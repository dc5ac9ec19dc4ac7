// A map of designs: their Carbon embeddings (embedder.h) projected to two dimensions by principal
// component analysis, as scikit-learn's PCA computes it (columns centred, not scaled; the
// components the leading right singular vectors of the centred matrix; explained variance ratio
// = eigenvalue / total variance), and grouped by k-means on the embeddings (Lloyd's
// algorithm from a seeded k-means++ start, as Carbon's clustering/ code groups sequences). No
// LAPACK: the two components by subspace iteration with Rayleigh-Ritz on the smaller of the Gram
// and covariance matrices, to machine precision.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "carbon/predict/embedder.h"

namespace carbon {

struct DesignMap {
    std::vector<std::array<double, 2>> points;     // per row: its first and second principal component scores
    std::array<double, 2> explained_ratio{0, 0};   // of the total variance
    // Each component's sign: its loading vector's largest-magnitude entry is positive (compare
    // with other tools up to sign: scikit-learn's rule changed between versions).
};

// Error when there are fewer than 2 rows or no width. A component with no variance (all rows
// equal along it) scores 0 and explains 0.
DesignMap project_designs(const Embeddings& embeddings);

struct Clustering {
    std::vector<int> cluster;  // per row, 0..k-1
    double inertia = 0;        // sum of squared distances to the assigned centre
    size_t iterations = 0;
};

// k-means of the rows into `k` groups (k clamped to the number of distinct rows, at least 1),
// k-means++ seeded by `seed`; the same clusters for the same input and seed on every platform.
Clustering cluster_designs(const Embeddings& embeddings, size_t k, uint64_t seed = 0);

}  // namespace carbon
