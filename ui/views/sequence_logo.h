// Sequence logos (Schneider & Stephens 1990): per column the information content R = 2 - H(p)
// bits (H in log2, minus the small-sample correction e(n) = 3 / (2 ln 2 n) for n counted
// sequences), the four letters stacked with heights p(b) x R, the likeliest on top. Two sources:
// the model's per-base distributions over a selection (the likelihood track's marginals) and the
// base frequencies of a set of designs. SequenceLogoView paints one, with the bits axis and the
// positions, and exports it as SVG (QSvgGenerator) or PNG.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QVector>
#include <QWidget>
#include <array>

#include "carbon/scoring/scoring.h"

class QPainter;

namespace carbon::ui {

struct LogoColumn {
    std::array<double, 4> p{};  // A, C, G, T; summing to 1 (all 0: no information there)
    double bits = 0;            // information content, clamped at 0
};

struct SequenceLogo {
    qint64 start = 0;  // 0-based position of the first column
    QVector<LogoColumn> columns;
    QString title;

    // 2 - H(p) - correction, at least 0 (p need not be normalised: it is, first).
    static double informationBits(const std::array<double, 4>& p, double correction = 0);
    // The model's distributions of bases [start, end) of a scored sequence.
    static SequenceLogo fromScore(const carbon::SequenceScore& score, qint64 start, qint64 end);
    // Base frequencies of aligned sequences (column i = base i of each; shorter ones and letters
    // other than A/C/G/T count for nothing there), with e(n) for the n counted at each column.
    static SequenceLogo fromSequences(const QList<QByteArray>& sequences);
};

class SequenceLogoView : public QWidget {
    Q_OBJECT
public:
    explicit SequenceLogoView(QWidget* parent = nullptr);
    void setLogo(SequenceLogo logo);
    const SequenceLogo& logo() const { return logo_; }
    // Paints the logo into `area` (the widget's paintEvent and the exports).
    void render(QPainter& p, const QRectF& area) const;
    // The logo as a file of `size` pixels (PNG) or points (SVG); false with `error` set on failure.
    bool exportSvg(const QString& path, QSize size, QString* error) const;
    bool exportPng(const QString& path, QSize size, QString* error) const;
    QSize sizeHint() const override { return {600, 180}; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    SequenceLogo logo_;
};

}  // namespace carbon::ui
