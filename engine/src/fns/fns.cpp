// FNS marginals, masks and per-base choice (see fns.h for the conventions).
#include "carbon/fns/fns.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "carbon/support/common.h"

namespace carbon {

BaseMask iupac_mask(char c) {
    const int A = 1 << 0, T = 1 << 1, C = 1 << 2, G = 1 << 3;
    switch (c >= 'a' && c <= 'z' ? char(c - 32) : c) {
        case 'A': return A;
        case 'C': return C;
        case 'G': return G;
        case 'T': case 'U': return T;
        case 'R': return A | G;
        case 'Y': return C | T;
        case 'S': return G | C;
        case 'W': return A | T;
        case 'K': return G | T;
        case 'M': return A | C;
        case 'B': return C | G | T;
        case 'D': return A | G | T;
        case 'H': return A | C | T;
        case 'V': return A | C | G;
        case 'N': return A | C | G | T;
        default: return 0;
    }
}

std::vector<BaseMask> parse_template(std::string_view text, const char* what) {
    if (text.empty()) throw Error(std::string(what) + " is empty");
    std::vector<BaseMask> m(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        m[i] = iupac_mask(text[i]);
        if (!m[i]) {
            const unsigned char c = static_cast<unsigned char>(text[i]);
            std::string shown = (c >= 0x20 && c < 0x7f) ? std::string("'") + text[i] + "'" : "byte " + std::to_string(int(c));
            throw Error(std::string(what) + ": " + shown + " at position " + std::to_string(i + 1) +
                        " is not an IUPAC nucleotide code (A C G T U R Y S W K M B D H V N)");
        }
    }
    return m;
}

double dna_softmax(std::span<const float> logits, std::span<float> probs) {
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : logits) mx = std::max(mx, x);
    double sum = 0.0;
    for (size_t i = 0; i < logits.size(); ++i) {
        const double e = std::exp(double(logits[i]) - double(mx));
        probs[i] = float(e);
        sum += e;
    }
    const float inv = float(1.0 / sum);
    for (size_t i = 0; i < logits.size(); ++i) probs[i] *= inv;
    return double(mx) + std::log(sum);
}

Marginals fns_marginals(std::span<const float> probs) {
    std::array<BaseMask, 6> all;
    all.fill(kAnyBase);
    Marginals m;
    fns_masked_marginals(probs, all, m);
    return m;
}

Marginals fns_conditionals(std::span<const float> probs, int kmer) {
    Marginals out{};
    double prefix = 0;  // mass of the 6-mers sharing kmer's first j bases
    for (float p : probs.first(size_t(kNumKmers))) prefix += double(p);
    for (int j = 0; j < 6; ++j) {
        const size_t block = size_t(1) << (2 * (5 - j));  // 6-mers per choice of base j, given the bases before
        const size_t start = size_t(kmer) >> (2 * (6 - j)) << (2 * (6 - j));
        double mass[4] = {0, 0, 0, 0};
        for (size_t b = 0; b < 4; ++b)
            for (size_t u = start + b * block; u < start + (b + 1) * block; ++u) mass[b] += double(probs[u]);
        for (size_t b = 0; b < 4; ++b) out[size_t(j)][b] = prefix > 0 ? float(mass[b] / prefix) : 0.f;
        prefix = mass[size_t(kmer_base(kmer, j))];
    }
    return out;
}

double fns_masked_marginals(std::span<const float> probs, const std::array<BaseMask, 6>& mask, Marginals& out) {
    std::array<std::array<double, 4>, 6> acc{};
    double total = 0.0;
    for (int i = 0; i < kNumKmers; ++i) {
        bool ok = true;
        for (int j = 0; j < 6 && ok; ++j) ok = (mask[size_t(j)] >> kmer_base(i, j)) & 1;
        if (!ok) continue;
        const double p = probs[size_t(i)];
        total += p;
        for (int j = 0; j < 6; ++j) acc[size_t(j)][size_t(kmer_base(i, j))] += p;
    }
    for (size_t j = 0; j < 6; ++j)
        for (size_t b = 0; b < 4; ++b) out[j][b] = total > 0 ? float(acc[j][b] / total) : 0.f;
    return total;
}

std::array<float, 4> adjust_base_distribution(const std::array<float, 4>& p, BaseMask allowed, float temperature,
                                              float top_p) {
    std::array<double, 4> q{};
    if (temperature <= 0.f) {
        int best = -1;
        for (int b = 0; b < 4; ++b)
            if ((allowed >> b & 1) && p[size_t(b)] > 0.f && (best < 0 || p[size_t(b)] > p[size_t(best)])) best = b;
        std::array<float, 4> r{};
        if (best >= 0) r[size_t(best)] = 1.f;
        return r;
    }
    double sum = 0.0;
    for (size_t b = 0; b < 4; ++b) {
        q[b] = ((allowed >> b) & 1) && p[b] > 0.f ? std::pow(double(p[b]), 1.0 / double(temperature)) : 0.0;
        sum += q[b];
    }
    std::array<float, 4> r{};
    if (sum <= 0.0) return r;
    for (double& x : q) x /= sum;
    if (top_p < 1.f) {
        // Keep the most likely bases until their mass reaches top_p (ties by code), drop the rest.
        std::array<int, 4> order = {0, 1, 2, 3};
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return q[size_t(a)] > q[size_t(b)]; });
        double acc = 0.0;
        size_t keep = 0;
        while (keep < 4 && q[size_t(order[keep])] > 0.0) {
            acc += q[size_t(order[keep++])];
            if (acc >= double(top_p)) break;
        }
        std::array<double, 4> kept{};
        double ks = 0.0;
        for (size_t i = 0; i < keep; ++i) ks += kept[size_t(order[i])] = q[size_t(order[i])];
        for (size_t b = 0; b < 4; ++b) q[b] = kept[b] / ks;
    }
    for (size_t b = 0; b < 4; ++b) r[b] = float(q[b]);
    return r;
}

int pick_base(const std::array<float, 4>& q, float u) {
    double total = 0.0;
    for (float x : q) total += x;
    if (total <= 0.0) return -1;
    const double target = double(u) * total;
    double acc = 0.0;
    int last = -1;
    for (int b = 0; b < 4; ++b) {
        if (q[size_t(b)] <= 0.f) continue;
        acc += q[size_t(b)];
        last = b;
        if (target < acc) return b;
    }
    return last;
}

float entropy_bits(const std::array<float, 4>& p) {
    double h = 0.0;
    for (float x : p)
        if (x > 0.f) h -= double(x) * std::log2(double(x));
    return float(h);
}

std::string reverse_complement(std::string_view seq) {
    std::string r(seq.rbegin(), seq.rend());
    for (char& c : r) {
        switch (c) {
            case 'A': c = 'T'; break;
            case 'T': c = 'A'; break;
            case 'U': c = 'A'; break;
            case 'C': c = 'G'; break;
            case 'G': c = 'C'; break;
            case 'R': c = 'Y'; break;
            case 'Y': c = 'R'; break;
            case 'K': c = 'M'; break;
            case 'M': c = 'K'; break;
            case 'B': c = 'V'; break;
            case 'V': c = 'B'; break;
            case 'D': c = 'H'; break;
            case 'H': c = 'D'; break;
            default: break;  // S, W, N and anything else are their own complement or unknown
        }
    }
    return r;
}

std::string acgt_reverse_complement(std::string_view seq) {
    std::string r(seq.rbegin(), seq.rend());
    for (char& c : r) {
        switch (c) {
            case 'A': c = 'T'; break;
            case 'C': c = 'G'; break;
            case 'G': c = 'C'; break;
            case 'T': c = 'A'; break;
            case 'a': c = 't'; break;
            case 'c': c = 'g'; break;
            case 'g': c = 'c'; break;
            case 't': c = 'a'; break;
            default: break;
        }
    }
    return r;
}

}  // namespace carbon
