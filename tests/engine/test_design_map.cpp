// The map of designs (carbon/predict/design_map.h): the two principal components against a
// reference eigendecomposition (cyclic Jacobi on the full covariance, written here) on both paths
// (n > width: covariance; n <= width: Gram), up to sign, with the explained variance ratio; the
// sign rule; equal rows; too few rows refused. k-means: well-separated groups found exactly, the
// same clusters for the same seed, k clamped to the distinct rows, inertia never above a random
// assignment's.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "carbon/predict/design_map.h"
#include "check.h"

using namespace carbon;

namespace {

Embeddings random_embeddings(size_t n, size_t d, unsigned seed, const std::vector<double>& stretch = {}) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    Embeddings e;
    e.width = d;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < d; ++j) e.values.push_back(g(rng) * (j < stretch.size() ? stretch[j] : 1.0) + 3.0 * double(j));
    return e;
}

// Reference: the covariance's eigenpairs by cyclic Jacobi to convergence (d small); scores of the
// centred rows on the two leading eigenvectors; ratio = eigenvalue / trace.
struct Reference {
    std::vector<std::array<double, 2>> scores;
    std::array<double, 2> ratio{};
};
Reference reference_pca(const Embeddings& e) {
    const size_t d = e.width, n = e.values.size() / d;
    std::vector<double> x = e.values, mean(d, 0.0);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < d; ++j) mean[j] += x[i * d + j] / double(n);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < d; ++j) x[i * d + j] -= mean[j];
    std::vector<double> C(d * d, 0.0), V(d * d, 0.0);
    for (size_t i = 0; i < n; ++i)
        for (size_t a = 0; a < d; ++a)
            for (size_t b = 0; b < d; ++b) C[a * d + b] += x[i * d + a] * x[i * d + b];
    for (size_t i = 0; i < d; ++i) V[i * d + i] = 1;
    for (int sweep = 0; sweep < 200; ++sweep)
        for (size_t p = 0; p < d; ++p)
            for (size_t q = p + 1; q < d; ++q) {
                if (std::abs(C[p * d + q]) < 1e-300) continue;
                const double th = 0.5 * std::atan2(2 * C[p * d + q], C[q * d + q] - C[p * d + p]);
                const double c = std::cos(th), s = std::sin(th);
                for (size_t k = 0; k < d; ++k) {
                    const double a = C[k * d + p], b = C[k * d + q];
                    C[k * d + p] = c * a - s * b, C[k * d + q] = s * a + c * b;
                }
                for (size_t k = 0; k < d; ++k) {
                    const double a = C[p * d + k], b = C[q * d + k];
                    C[p * d + k] = c * a - s * b, C[q * d + k] = s * a + c * b;
                }
                for (size_t k = 0; k < d; ++k) {
                    const double a = V[k * d + p], b = V[k * d + q];
                    V[k * d + p] = c * a - s * b, V[k * d + q] = s * a + c * b;
                }
            }
    std::vector<size_t> order(d);
    for (size_t i = 0; i < d; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return C[a * d + a] > C[b * d + b]; });
    double trace = 0;
    for (size_t i = 0; i < d; ++i) trace += C[i * d + i];
    Reference r;
    r.scores.assign(n, {0, 0});
    for (size_t c = 0; c < 2; ++c) {
        r.ratio[c] = C[order[c] * d + order[c]] / trace;
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < d; ++k) r.scores[i][c] += x[i * d + k] * V[k * d + order[c]];
    }
    return r;
}

void check_against_reference(const Embeddings& e) {
    const DesignMap got = project_designs(e);
    const Reference want = reference_pca(e);
    double scale = 0;  // the largest score: a component without variance is compared to it
    for (const auto& s : want.scores) scale = std::max({scale, std::abs(s[0]), std::abs(s[1])});
    for (size_t c = 0; c < 2; ++c) {
        CHECK_NEAR(got.explained_ratio[c], want.ratio[c], 1e-10);
        // Up to sign: the reference's eigenvector sign is arbitrary.
        double dot = 0;
        for (size_t i = 0; i < want.scores.size(); ++i) dot += got.points[i][c] * want.scores[i][c];
        const double sign = dot < 0 ? -1.0 : 1.0;
        for (size_t i = 0; i < want.scores.size(); ++i) CHECK_NEAR(got.points[i][c], sign * want.scores[i][c], 1e-8 * scale);
    }
}

}  // namespace

TEST(pca_equals_the_covariance_eigendecomposition_when_rows_outnumber_columns) {
    check_against_reference(random_embeddings(40, 7, 1, {5, 3, 1, 1, 0.5, 0.2, 0.1}));
}

TEST(pca_equals_the_covariance_eigendecomposition_when_columns_outnumber_rows) {
    check_against_reference(random_embeddings(9, 30, 2, {6, 4, 2}));
    check_against_reference(random_embeddings(2, 5, 3));  // two rows: one component
}

TEST(pca_signs_make_the_largest_loading_positive_and_equal_rows_score_zero) {
    // Along column 0 only: the first component's loading is +e0, so scores follow column 0.
    Embeddings e;
    e.width = 3;
    for (double v : {-2.0, 1.0, 4.0, -3.0}) e.values.insert(e.values.end(), {v, 1.0, 1.0});
    const DesignMap m = project_designs(e);
    CHECK_NEAR(m.points[2][0], 4.0, 1e-12);
    CHECK_NEAR(m.points[3][0], -3.0, 1e-12);
    CHECK_NEAR(m.explained_ratio[0], 1.0, 1e-12);
    CHECK_NEAR(m.explained_ratio[1], 0.0, 1e-12);
    Embeddings same;
    same.width = 4;
    same.values.assign(12, 0.5);
    const DesignMap z = project_designs(same);
    for (const auto& p : z.points) CHECK(p[0] == 0.0 && p[1] == 0.0);
    Embeddings one;
    one.width = 4;
    one.values.assign(4, 1.0);
    CHECK_THROWS_WITH(project_designs(one), "at least 2");
}

TEST(kmeans_finds_separated_groups_deterministically) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> g(0.0, 0.3);
    Embeddings e;
    e.width = 5;
    std::vector<int> truth;
    for (int i = 0; i < 36; ++i) {
        const int group = i % 3;
        truth.push_back(group);
        for (size_t j = 0; j < 5; ++j) e.values.push_back(g(rng) + (j == size_t(group) ? 20.0 : 0.0));
    }
    const Clustering c = cluster_designs(e, 3, 11);
    // The same partition as the truth (labels may be permuted).
    for (int i = 0; i < 36; ++i)
        for (int j = 0; j < 36; ++j) CHECK((truth[size_t(i)] == truth[size_t(j)]) == (c.cluster[size_t(i)] == c.cluster[size_t(j)]));
    const Clustering again = cluster_designs(e, 3, 11);
    CHECK(again.cluster == c.cluster);
    CHECK_NEAR(again.inertia, c.inertia, 0.0);
    // Inertia no worse than a random assignment's with its own means.
    std::vector<int> random(36);
    for (int i = 0; i < 36; ++i) random[size_t(i)] = int(rng() % 3);
    double inertia = 0;
    for (int k = 0; k < 3; ++k) {
        std::vector<double> mean(5, 0.0);
        int count = 0;
        for (int i = 0; i < 36; ++i)
            if (random[size_t(i)] == k) {
                ++count;
                for (size_t j = 0; j < 5; ++j) mean[j] += e.row(size_t(i))[j];
            }
        for (double& m : mean) m /= std::max(1, count);
        for (int i = 0; i < 36; ++i)
            if (random[size_t(i)] == k)
                for (size_t j = 0; j < 5; ++j) inertia += (e.row(size_t(i))[j] - mean[j]) * (e.row(size_t(i))[j] - mean[j]);
    }
    CHECK(c.inertia <= inertia);
}

TEST(kmeans_asks_for_no_more_groups_than_distinct_rows) {
    Embeddings e;
    e.width = 2;
    for (int i = 0; i < 6; ++i) e.values.insert(e.values.end(), {double(i % 2), 0.0});  // two distinct rows
    const Clustering c = cluster_designs(e, 5, 0);
    std::set<int> used(c.cluster.begin(), c.cluster.end());
    CHECK_EQ(used.size(), size_t(2));
    CHECK_NEAR(c.inertia, 0.0, 0.0);
}

int main() { return check::run_all(); }
