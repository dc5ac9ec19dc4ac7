// Predicted activity change of single-base variants (carbon/predict/variant_activity.h).
#include "carbon/predict/variant_activity.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"

namespace carbon {

namespace {

char upper(char c) { return char(std::toupper(static_cast<unsigned char>(c))); }

bool acgt(char c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T'; }

// `bp` bases with the site in the middle, moved inward at the ends so that the predictor always
// sees `bp` bases (a predictor is trained on one length: a window cut short at an end would ask
// it about a shorter sequence than it knows). The whole sequence when it is not longer than bp.
ScoringWindow activity_window(size_t n, size_t position, size_t bp) {
    if (bp == 0 || bp >= n) return {0, n};
    const size_t start = std::min(position - std::min(position, bp / 2), n - bp);
    return {start, start + bp};
}

std::string where(const std::string& name, size_t position) { return name + ": position " + std::to_string(position + 1); }

}  // namespace

VariantActivities predict_variant_activity(ActivityPredictor& predictor, std::string_view sequence, std::span<const BaseVariant> variants,
                                           const std::string& name, size_t window_bp, size_t batch, const PredictProgress& progress) {
    VariantActivities out;
    out.outputs = predictor.outputs();
    // Every variant checked, and every window cut, before the first prediction.
    std::vector<std::string> texts, labels;  // the distinct reference windows first, then one per variant
    std::map<std::pair<size_t, size_t>, size_t> reference_of;
    std::vector<size_t> ref_index;
    for (const BaseVariant& v : variants) {
        if (v.position >= sequence.size())
            throw Error(where(name, v.position) + " is outside the sequence (positions 1-" + std::to_string(sequence.size()) + ")");
        const char base = upper(sequence[v.position]);
        if (v.ref && upper(v.ref) != base)
            throw Error(where(name, v.position) + ": the stated reference " + std::string(1, upper(v.ref)) + " is not the sequence's base " +
                        std::string(1, base));
        if (!acgt(base))
            throw Error(where(name, v.position) + ": the reference base is " + std::string(1, base) + ", not one of A, C, G, T");
        const char alt = upper(v.alt);
        if (!acgt(alt) || alt == base)
            throw Error(where(name, v.position) + ": the alternative '" + visible_text(std::string(1, v.alt)) +
                        "' is not one of A, C, G, T other than the reference " + std::string(1, base));
        const ScoringWindow w = activity_window(sequence.size(), v.position, window_bp);
        auto [it, fresh] = reference_of.emplace(std::make_pair(w.start, w.end), reference_of.size());
        if (fresh) {
            texts.emplace_back(sequence.substr(w.start, w.end - w.start));
            labels.push_back(name + " (bases " + std::to_string(w.start + 1) + "-" + std::to_string(w.end) + ")");
        }
        ref_index.push_back(it->second);
        VariantActivity a;
        a.position = v.position, a.ref = base, a.alt = alt, a.window = w;
        out.variants.push_back(std::move(a));
    }
    const size_t n_ref = texts.size();
    for (const VariantActivity& a : out.variants) {
        std::string t(sequence.substr(a.window.start, a.window.end - a.window.start));
        t[a.position - a.window.start] = a.alt;
        texts.push_back(std::move(t));
        labels.push_back(name + " with " + std::to_string(a.position + 1) + a.ref + ">" + a.alt);
    }
    // One window (the whole sequence, or every variant in the same window): each alternative is
    // the reference with one base changed, predicted from the reference's forked cache.
    const Predictions p = n_ref == 1 ? predictor.predict_near(texts[0], texts, labels, batch, progress)
                                     : predictor.predict(texts, labels, batch, progress);
    out.held_out = p.held_out;
    out.held_out.resize(out.outputs.size());
    if (p.cancelled) {
        out.cancelled = true;
        return out;
    }
    for (size_t k = 0; k < out.variants.size(); ++k) {
        VariantActivity& a = out.variants[k];
        a.reference = p.values[ref_index[k]];
        a.alternative = p.values[n_ref + k];
        a.change.resize(a.reference.size());
        for (size_t j = 0; j < a.change.size(); ++j) a.change[j] = a.alternative[j] - a.reference[j];
    }
    return out;
}

}  // namespace carbon
