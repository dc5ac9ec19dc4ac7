// Value types that carry analysis results (rescoring, variant scoring, mutagenesis) from the
// engine thread to the GUI in queued signals. Results are immutable once sent, so a shared_ptr
// to const lets a 1 Mbp track cross threads without a copy.
#pragma once

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "carbon/scoring/scoring.h"
#include "carbon/predict/design_map.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/scoring/variants.h"

namespace carbon::ui {

using ScoreTrack = std::shared_ptr<const carbon::SequenceScore>;

// score_variant's numbers plus the per-base logp of the reference and alternative windows (the
// same window, so index i is base window.start + i in both).
struct VariantAnalysis {
    carbon::VariantScore score;
    std::vector<float> refLogp, altLogp;
    // The predicted activity change beside the likelihood change, when an activity predictor was
    // chosen: its name, predict_variant_activity's result (one variant; the window it saw), or
    // why there is none (a predictor fitted on another model).
    QString predictor;
    carbon::VariantActivities activity;
    QString activityError;
};

// A map of designs (EngineWorker::mapDesigns): their embeddings (kept for clustering again with
// another k), the two principal components, the clusters, and the embedding recipe in words.
struct DesignMapResult {
    std::shared_ptr<const carbon::Embeddings> embeddings;
    carbon::DesignMap map;
    carbon::Clustering clusters;
    QString embedding;
};
using DesignMapPtr = std::shared_ptr<const DesignMapResult>;
using EmbeddingsPtr = std::shared_ptr<const carbon::Embeddings>;

// Score Variants: a VCF scored against the open project's own sequences (their names are the
// VCF's CHROM). The project store fills the sequences; the engine writes the rows to tsvPath (a
// vep result) and reports VepRunDone; the project store then keeps them as a "vep" run.
struct VepRunRequest {
    QString vcfPath, projectPath, tsvPath;
    qint64 windowBp = 8192;
    bool reverseComplement = false;
    QList<qint64> sequenceIds;  // parallel lists
    QStringList sequenceNames;
    QList<QByteArray> sequenceBases;
};

struct VepRunDone {
    VepRunRequest request;  // without the bases
    bool cancelled = false;
    qint64 records = 0, recordsTotal = 0, rows = 0;
    QString modelDir, backend;
};

// Index of a base letter in A, C, G, T (display) order; -1 for anything else.
inline int acgtIndex(char b) {
    switch (b) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': return 3;
        default: return -1;
    }
}
inline constexpr char kAcgt[4] = {'A', 'C', 'G', 'T'};
// BaseScore::p is in the engine's base-code order A, T, C, G (fns.h); this maps A,C,G,T to it.
inline float marginalAcgt(const carbon::BaseScore& s, int acgt) {
    static constexpr int kToEngine[4] = {0, 2, 3, 1};
    return s.p[size_t(kToEngine[acgt])];
}

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::ScoreTrack)
Q_DECLARE_METATYPE(carbon::ui::VariantAnalysis)
Q_DECLARE_METATYPE(carbon::IsmResult)
Q_DECLARE_METATYPE(carbon::ui::VepRunRequest)
Q_DECLARE_METATYPE(carbon::ui::VepRunDone)
Q_DECLARE_METATYPE(carbon::ui::DesignMapPtr)
