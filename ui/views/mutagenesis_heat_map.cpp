// MutagenesisHeatMap: cells are scaled to the widget's width (a long region gets sub-pixel cells;
// painting then samples one column per pixel so cost is bounded by the width, not L).
#include "mutagenesis_heat_map.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "position_ticks.h"
#include "theme.h"

namespace carbon::ui {

namespace {
// Beneath the grid: the reference strip (one letter per column), the position axis, the legend.
constexpr int kLabelWidth = 18, kRefHeight = 14, kAxisHeight = 18, kLegendHeight = 30;
constexpr int kBelowGrid = kRefHeight + kAxisHeight + kLegendHeight;
constexpr double kMinTickSpacing = 60;  // pixels between labelled positions, at least
constexpr double kMinLetterWidth = 7;   // a column this wide shows its reference letter
}

double MutagenesisMatrix::maxAbs() const {
    double m = 0;
    for (double v : values)
        if (!std::isnan(v)) m = std::max(m, std::abs(v));
    return m;
}

MutagenesisMatrix MutagenesisMatrix::fromMarginals(const carbon::SequenceScore& score, const QByteArray& bases,
                                                   qint64 start, qint64 end) {
    MutagenesisMatrix m;
    m.start = start;
    m.length = std::max<qint64>(0, end - start);
    m.ref = bases.mid(start, m.length);
    m.values.fill(std::numeric_limits<double>::quiet_NaN(), 4 * m.length);
    for (qint64 c = 0; c < m.length; ++c) {
        const size_t i = size_t(start + c);
        const int r = acgtIndex(m.ref[c]);
        if (r < 0 || i >= score.track.size()) continue;
        const double lr = std::log(double(marginalAcgt(score.track[i], r)));
        for (int a = 0; a < 4; ++a)
            if (a != r) m.values[a * m.length + c] = std::log(double(marginalAcgt(score.track[i], a))) - lr;
    }
    return m;
}

MutagenesisMatrix MutagenesisMatrix::fromIsm(const carbon::IsmResult& r, const QByteArray& bases, qint64 start, qint64 end) {
    MutagenesisMatrix m;
    m.start = start;
    m.length = std::max<qint64>(0, end - start);
    m.ref = bases.mid(start, m.length);
    m.exact = true;
    m.values.fill(std::numeric_limits<double>::quiet_NaN(), 4 * m.length);
    for (const carbon::IsmEntry& e : r.entries) {
        const qint64 c = qint64(e.position) - start;
        const int a = acgtIndex(e.alt);
        if (c >= 0 && c < m.length && a >= 0) m.values[a * m.length + c] = e.score;
    }
    return m;
}

MutagenesisHeatMap::MutagenesisHeatMap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(4 * 12 + kBelowGrid + 8);
    setAccessibleName(tr("Mutagenesis heat map"));
}

QSize MutagenesisHeatMap::sizeHint() const { return {600, 4 * 22 + kBelowGrid + 8}; }

QVector<qint64> MutagenesisHeatMap::tickPositions(qint64 start, qint64 length, double widthPx) {
    return positionTicks(start, length, widthPx, kMinTickSpacing);
}

bool MutagenesisHeatMap::showsReferenceLetters() const {
    return m_.length > 0 && double(gridRect().width()) / double(m_.length) >= kMinLetterWidth;
}

QRect MutagenesisHeatMap::referenceRect() const {
    const QRect g = gridRect();
    return QRect(g.left(), g.bottom() + 1, g.width(), kRefHeight);
}

void MutagenesisHeatMap::setMatrix(const MutagenesisMatrix& m) {
    m_ = m;
    update();
}

QColor MutagenesisHeatMap::colorFor(double v, double limit) {
    if (std::isnan(v)) return QColor(0xb0, 0xb0, 0xb0);
    const double t = limit > 0 ? std::clamp(v / limit, -1.0, 1.0) : 0.0;
    const QColor end = t < 0 ? QColor(0xd7, 0x30, 0x27) : QColor(0x2c, 0x7b, 0xb6);
    const double a = std::abs(t);
    return QColor::fromRgbF(float(1 + a * (end.redF() - 1)), float(1 + a * (end.greenF() - 1)), float(1 + a * (end.blueF() - 1)));
}

QRect MutagenesisHeatMap::gridRect() const {
    return QRect(kLabelWidth, 2, width() - kLabelWidth - 4, height() - kBelowGrid - 6);
}

void MutagenesisHeatMap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRect g = gridRect();
    p.setPen(palette().color(QPalette::Text));
    const double rowH = g.height() / 4.0;
    for (int a = 0; a < 4; ++a)
        p.drawText(QRectF(0, g.top() + a * rowH, kLabelWidth, rowH), Qt::AlignCenter, QString(QLatin1Char(kAcgt[a])));
    if (m_.length == 0) {
        p.drawText(g, Qt::AlignCenter, tr("Select a region and press Scan"));
        return;
    }
    const double limit = m_.maxAbs();
    const double colW = double(g.width()) / double(m_.length);
    // One rectangle per cell when cells are at least a pixel wide; otherwise one per pixel column.
    const qint64 step = colW >= 1 ? 1 : qint64(std::ceil(1 / colW));
    for (qint64 c = 0; c < m_.length; c += step) {
        const QRectF col(g.left() + c * colW, g.top(), std::max(colW * double(step), 1.0), rowH);
        const int r = acgtIndex(m_.ref[c]);
        for (int a = 0; a < 4; ++a) {
            const QRectF cell = col.translated(0, a * rowH);
            p.fillRect(cell, a == r ? palette().color(QPalette::Window).darker(115) : colorFor(m_.at(a, c), limit));
            if (a == r && colW >= 8) p.drawText(cell, Qt::AlignCenter, QStringLiteral("·"));
        }
    }
    // The reference base of each column (a coloured tick when columns are too narrow for a
    // letter), then the positions along the sequence (1-based, the editor's numbering).
    const QRect refStrip = referenceRect();
    p.drawText(QRectF(0, refStrip.top(), kLabelWidth, refStrip.height()), Qt::AlignCenter, tr("ref"));
    const bool letters = colW >= kMinLetterWidth;
    for (qint64 c = 0; c < m_.length; c += step) {
        const QRectF cell(g.left() + c * colW, refStrip.top(), std::max(colW * double(step), 1.0), refStrip.height());
        if (letters) {
            p.drawText(cell, Qt::AlignCenter, QString(QLatin1Char(m_.ref[c])));
        } else {
            p.fillRect(cell.adjusted(0, 3, 0, -3), baseColor(m_.ref[c]));
        }
    }
    const int axisTop = refStrip.bottom() + 1;
    p.drawLine(g.left(), axisTop, g.right(), axisTop);
    for (qint64 pos : tickPositions(m_.start, m_.length, g.width())) {
        const double x = g.left() + (double(pos - 1 - m_.start) + 0.5) * colW;
        p.drawLine(QPointF(x, axisTop), QPointF(x, axisTop + 4));
        const QString label = QLocale().toString(pos);
        const double w = p.fontMetrics().horizontalAdvance(label);
        const double left = std::clamp(x - w / 2, double(g.left()), double(g.right()) - w);
        p.drawText(QRectF(left, axisTop + 4, w + 1, kAxisHeight - 4), Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    // Legend: the scale from -limit to +limit with its end values.
    const QRect legend(g.left(), axisTop + kAxisHeight + 2, std::min(240, g.width()), 10);
    for (int x = 0; x < legend.width(); ++x)
        p.fillRect(legend.left() + x, legend.top(), 1, legend.height(), colorFor((2.0 * x / legend.width() - 1) * limit, limit));
    const QString unit = m_.exact ? tr("Δ mean log p") : tr("log p(alt) − log p(ref)");
    p.drawText(QRect(legend.left(), legend.bottom() + 1, g.width(), 14), Qt::AlignLeft,
               tr("%1 … 0 … +%2   %3 (%4)").arg(-limit, 0, 'f', 3).arg(limit, 0, 'f', 3).arg(unit, m_.exact ? tr("exact") : tr("fast")));
}

bool MutagenesisHeatMap::cellAt(QPoint pt, int& alt, qint64& column) const {
    const QRect g = gridRect();
    if (m_.length == 0 || !g.contains(pt)) return false;
    alt = std::clamp(int((pt.y() - g.top()) * 4 / std::max(1, g.height())), 0, 3);
    column = std::clamp<qint64>(qint64(double(pt.x() - g.left()) * double(m_.length) / g.width()), 0, m_.length - 1);
    return true;
}

void MutagenesisHeatMap::mouseMoveEvent(QMouseEvent* e) {
    int a = 0;
    qint64 c = 0;
    if (!cellAt(e->position().toPoint(), a, c)) return QToolTip::hideText();
    const double v = m_.at(a, c);
    const QString text = std::isnan(v) ? tr("%1 %2 (reference)").arg(m_.start + c + 1).arg(QLatin1Char(m_.ref[c]))
                                       : tr("%1 %2>%3: %4").arg(m_.start + c + 1).arg(QLatin1Char(m_.ref[c])).arg(QLatin1Char(kAcgt[a])).arg(v, 0, 'f', 4);
    QToolTip::showText(e->globalPosition().toPoint(), text, this);
}

void MutagenesisHeatMap::mousePressEvent(QMouseEvent* e) {
    int a = 0;
    qint64 c = 0;
    if (e->button() == Qt::LeftButton && cellAt(e->position().toPoint(), a, c) && !std::isnan(m_.at(a, c)))
        emit cellClicked(m_.start + c, kAcgt[a]);
}

}  // namespace carbon::ui
