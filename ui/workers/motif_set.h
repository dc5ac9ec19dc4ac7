// Transcription-factor matrices loaded in the application (Edit > Scan Motifs): each file's
// matrices as log-odds matrices against a uniform background (pseudocount 0.5 per base, as
// `carbon-cli motifs scan`), with their exact score distributions, and a p-value threshold.
// Scanning gives the hits the editor marks and the designs table counts. Immutable once loaded,
// so it is shared between the GUI thread and a background scan.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <vector>

#include "carbon/motifs/motif.h"

namespace carbon::ui {

struct MotifMark {
    qint64 start = 0, end = 0;  // bases [start, end), 0-based
    char strand = '+';
    int motif = 0;  // index in the set
    double score = 0, pvalue = 1;
};

// A p-value threshold as typed ("1e-4", "0.0001"): "" and `out` set when it is a number in
// (0, 0.05]; else what is wrong with it.
QString parsePvalue(const QString& text, double& out);

class MotifSet {
public:
    // Reads every matrix of `path` (JASPAR, MEME minimal, TRANSFAC); Error with FILE:LINE.
    static std::shared_ptr<const MotifSet> load(const QString& path, double maxPvalue);
    const QString& path() const { return path_; }
    double maxPvalue() const { return maxPvalue_; }
    int size() const { return int(pssms_.size()); }
    QString name(int motif) const;
    // The smallest p-value a window can have under matrix `motif` (every column at its best base):
    // above maxPvalue() the matrix can never have a hit.
    double bestPvalue(int motif) const;
    // "MA0035.4 Gata1 (6 bp, at best p = 2.4e-04)" for each matrix that can never reach maxPvalue().
    QStringList unreachable() const;
    // Hits of every matrix on both strands at p <= maxPvalue, by position.
    QVector<MotifMark> scan(const QByteArray& bases) const;
    // Hits per matrix (in set order) of a sequence.
    QVector<int> counts(const QByteArray& bases) const;
    // Matrix `motif`, as generation constraints take it (with maxPvalue(): the engine then judges
    // a window as scan() does).
    const carbon::Pssm& pssm(int motif) const { return pssms_[size_t(motif)]; }

private:
    QString path_;
    double maxPvalue_ = 1e-4;
    std::vector<carbon::Pssm> pssms_;
    std::vector<carbon::ScoreDistribution> dists_;
};

}  // namespace carbon::ui
