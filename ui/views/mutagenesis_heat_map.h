// In-silico mutagenesis as a 4 x L heat map. MutagenesisMatrix holds the scores (row = alt base
// A C G T, column = position; NaN for the reference base and non-ACGT sites), built from the
// likelihood track's marginals (fast mode) or from saturation_mutagenesis (exact). The widget
// paints it with a diverging colour scale and legend, the reference base under each column and the
// positions along the sequence beneath, a hover read-out, and reports clicks.
#pragma once

#include <QVector>
#include <QWidget>

#include "workers/analysis_types.h"

namespace carbon::ui {

struct MutagenesisMatrix {
    qint64 start = 0, length = 0;  // region [start, start + length), 0-based
    QByteArray ref;                // the region's reference bases
    QVector<double> values;        // 4 * length, row-major by alt (A, C, G, T)
    bool exact = false;
    double at(int alt, qint64 column) const { return values[alt * length + column]; }
    double maxAbs() const;

    // Fast mode: log p(alt) - log p(ref) from the marginals of `score` (which must match `bases`).
    static MutagenesisMatrix fromMarginals(const carbon::SequenceScore& score, const QByteArray& bases, qint64 start, qint64 end);
    static MutagenesisMatrix fromIsm(const carbon::IsmResult& r, const QByteArray& bases, qint64 start, qint64 end);
};

class MutagenesisHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit MutagenesisHeatMap(QWidget* parent = nullptr);
    void setMatrix(const MutagenesisMatrix& m);
    const MutagenesisMatrix& matrix() const { return m_; }
    // Diverging scale: red (mutant less likely) through white to blue (more likely); v / limit.
    static QColor colorFor(double v, double limit);
    QSize sizeHint() const override;
    // The labelled positions of the axis under the grid: 1-based positions of [start, start +
    // length) at steps of 1, 2 or 5 x 10^k bases, the smallest step that keeps labels at least
    // 60 pixels apart over `widthPx`.
    static QVector<qint64> tickPositions(qint64 start, qint64 length, double widthPx);
    // Whether the columns are wide enough to show the reference letter under each (otherwise a
    // base-coloured tick), and where that strip is.
    bool showsReferenceLetters() const;
    QRect referenceRect() const;

signals:
    void cellClicked(qint64 position, char alt);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;

private:
    bool cellAt(QPoint p, int& alt, qint64& column) const;
    QRect gridRect() const;
    MutagenesisMatrix m_;
};

}  // namespace carbon::ui
