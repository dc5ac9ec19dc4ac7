// Sequence logos (see sequence_logo.h).
#include "sequence_logo.h"

#include <QFile>
#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include "position_ticks.h"
#include "theme.h"
#include "workers/analysis_types.h"

namespace carbon::ui {

namespace {

constexpr double kAxisWidth = 44, kPositionHeight = 18, kTitleHeight = 18;

// The letter's outline in a bold font, to be scaled to any box.
const QPainterPath& letterPath(int acgt) {
    static const std::array<QPainterPath, 4> paths = [] {
        QFont f(QStringLiteral("DejaVu Sans"));
        f.setBold(true);
        f.setPixelSize(100);
        std::array<QPainterPath, 4> out;
        for (int i = 0; i < 4; ++i) out[size_t(i)].addText(0, 0, f, QString(QLatin1Char(kAcgt[i])));
        return out;
    }();
    return paths[size_t(acgt)];
}

}  // namespace

double SequenceLogo::informationBits(const std::array<double, 4>& p, double correction) {
    double total = 0;
    for (double v : p) total += std::max(0.0, v);
    if (total <= 0) return 0;
    double h = 0;
    for (double v : p)
        if (v > 0) {
            const double q = v / total;
            h -= q * std::log2(q);
        }
    return std::max(0.0, 2.0 - h - correction);
}

SequenceLogo SequenceLogo::fromScore(const carbon::SequenceScore& score, qint64 start, qint64 end) {
    SequenceLogo logo;
    logo.start = start;
    for (qint64 i = std::max<qint64>(0, start); i < end && size_t(i) < score.track.size(); ++i) {
        LogoColumn c;
        double total = 0;
        for (int a = 0; a < 4; ++a) total += c.p[size_t(a)] = double(marginalAcgt(score.track[size_t(i)], a));
        if (total > 0)
            for (double& v : c.p) v /= total;
        c.bits = informationBits(c.p);
        logo.columns.append(c);
    }
    return logo;
}

SequenceLogo SequenceLogo::fromSequences(const QList<QByteArray>& sequences) {
    SequenceLogo logo;
    qsizetype width = 0;
    for (const QByteArray& s : sequences) width = std::max(width, s.size());
    for (qsizetype i = 0; i < width; ++i) {
        LogoColumn c;
        double n = 0;
        for (const QByteArray& s : sequences) {
            const int a = i < s.size() ? acgtIndex(s[i]) : -1;
            if (a >= 0) c.p[size_t(a)] += 1, n += 1;
        }
        if (n > 0)
            for (double& v : c.p) v /= n;
        // Schneider's small-sample correction: the entropy n letters drawn from a uniform source
        // would show below 2 bits, to first order.
        c.bits = n > 0 ? informationBits(c.p, 3.0 / (2.0 * std::log(2.0) * n)) : 0;
        logo.columns.append(c);
    }
    return logo;
}

SequenceLogoView::SequenceLogoView(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(120);
    setAccessibleName(tr("Sequence logo"));
}

void SequenceLogoView::setLogo(SequenceLogo logo) {
    logo_ = std::move(logo);
    update();
}

void SequenceLogoView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    render(p, QRectF(rect()));
}

void SequenceLogoView::render(QPainter& p, const QRectF& area) const {
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    const QRectF plot(area.left() + kAxisWidth, area.top() + kTitleHeight, area.width() - kAxisWidth - 6,
                      area.height() - kTitleHeight - kPositionHeight - 4);
    if (!logo_.title.isEmpty())
        p.drawText(QRectF(area.left() + kAxisWidth, area.top(), plot.width(), kTitleHeight), Qt::AlignLeft | Qt::AlignVCenter, logo_.title);
    const qint64 n = logo_.columns.size();
    if (n == 0 || plot.width() <= 0 || plot.height() <= 0) {
        p.drawText(area, Qt::AlignCenter, tr("Select bases in the editor (with a likelihood track) or designs in the designs table"));
        p.restore();
        return;
    }
    // The bits axis, 0 to 2.
    p.drawLine(QPointF(plot.left() - 4, plot.top()), QPointF(plot.left() - 4, plot.bottom()));
    for (int b = 0; b <= 2; ++b) {
        const double y = plot.bottom() - plot.height() * b / 2.0;
        p.drawLine(QPointF(plot.left() - 8, y), QPointF(plot.left() - 4, y));
        p.drawText(QRectF(area.left(), y - 8, kAxisWidth - 10, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(b));
    }
    p.save();
    p.translate(area.left() + 8, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-30, -8, 60, 16), Qt::AlignCenter, tr("bits"));
    p.restore();
    // Letters: each column's stack, the likeliest on top, heights p(b) x R.
    const double colW = plot.width() / double(n);
    p.setPen(Qt::NoPen);
    for (qint64 c = 0; c < n; ++c) {
        const LogoColumn& col = logo_.columns[c];
        int order[4] = {0, 1, 2, 3};
        std::stable_sort(order, order + 4, [&](int a, int b) { return col.p[size_t(a)] < col.p[size_t(b)]; });
        double y = plot.bottom();
        for (int a : order) {
            const double h = col.p[size_t(a)] * col.bits / 2.0 * plot.height();
            if (h < 0.5) continue;
            const QRectF box(plot.left() + c * colW + colW * 0.04, y - h, colW * 0.92, h);
            const QPainterPath& path = letterPath(a);
            const QRectF br = path.boundingRect();
            QTransform t;
            t.translate(box.left(), box.top());
            t.scale(box.width() / br.width(), box.height() / br.height());
            t.translate(-br.left(), -br.top());
            p.setBrush(baseColor(kAcgt[a]));
            p.drawPath(t.map(path));
            y -= h;
        }
    }
    // Positions along the sequence (1-based, as the editor numbers them).
    p.setPen(text);
    p.setBrush(Qt::NoBrush);
    p.drawLine(QPointF(plot.left(), plot.bottom() + 1), QPointF(plot.right(), plot.bottom() + 1));
    for (qint64 pos : positionTicks(logo_.start, n, plot.width())) {
        const double x = plot.left() + (double(pos - 1 - logo_.start) + 0.5) * colW;
        p.drawLine(QPointF(x, plot.bottom() + 1), QPointF(x, plot.bottom() + 5));
        const QString label = QLocale().toString(pos);
        const double w = p.fontMetrics().horizontalAdvance(label);
        p.drawText(QRectF(std::clamp(x - w / 2, plot.left(), plot.right() - w), plot.bottom() + 5, w + 1, kPositionHeight - 4),
                   Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    p.restore();
}

bool SequenceLogoView::exportSvg(const QString& path, QSize size, QString* error) const {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(logo_.title.isEmpty() ? tr("Sequence logo") : logo_.title);
    svg.setDescription(tr("Carbon Studio sequence logo: information content in bits, letters scaled by probability"));
    QPainter p;
    if (!p.begin(&svg)) {
        if (error) *error = tr("cannot write %1").arg(path);
        return false;
    }
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    render(p, QRectF(QPoint(0, 0), size));
    p.end();
    if (!QFile::exists(path) || QFile(path).size() == 0) {
        if (error) *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool SequenceLogoView::exportPng(const QString& path, QSize size, QString* error) const {
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        render(p, QRectF(QPoint(0, 0), size));
    }
    if (!image.save(path, "PNG")) {
        if (error) *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

}  // namespace carbon::ui
