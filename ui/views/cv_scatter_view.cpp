// CvScatterView: held-out predictions against measurements (see cv_scatter_view.h).
#include "cv_scatter_view.h"

#include <QChart>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "round_ticks.h"
#include "views/chart_palette.h"

namespace carbon::ui {

CvScatterView::CvScatterView(QWidget* parent) : QChartView(new QChart, parent) {
    prepareChartView(this, QSize(240, 200), tr("Held-out predictions against measurements"));
    readout_ = new QLabel(this);
    readout_->setAttribute(Qt::WA_TransparentForMouseEvents);
    readout_->setTextFormat(Qt::PlainText);
    readout_->move(8, 4);
    readout_->setAccessibleName(tr("Hover read-out"));
}

QString CvScatterView::heading() const { return heading_; }

void CvScatterView::clear() {
    chart()->removeAllSeries();
    for (QAbstractAxis* a : chart()->axes()) {
        chart()->removeAxis(a);
        delete a;
    }
    points_ = 0;
    heading_.clear();
    chart()->setTitle(QString());
    readout_->clear();
}

void CvScatterView::showCondition(const QString& predictor, const carbon::Probe* probe, int condition) {
    clear();
    if (!probe || condition < 0 || size_t(condition) >= probe->conditions.size()) return;
    const ProbeCondition& c = probe->conditions[size_t(condition)];
    const QString name = QString::fromStdString(c.name);
    heading_ = tr("%1 - %2: %3").arg(predictor, name, QString::fromStdString(probe->held_out(size_t(condition))));
    chart()->setTitle(heading_.toHtmlEscaped());
    auto* points = new QScatterSeries;
    points->setMarkerSize(6);
    QList<QPointF> pts;
    double lo = 0, hi = 0;
    bool first = true;
    for (size_t i = 0; i < c.n && i < c.measured.size() && i < c.predicted.size(); ++i) {
        const double x = c.measured[i], y = c.predicted[i];
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        pts.append(QPointF(x, y));
        if (first) lo = std::min(x, y), hi = std::max(x, y), first = false;
        lo = std::min({lo, x, y});
        hi = std::max({hi, x, y});
    }
    points->replace(pts);
    points_ = int(pts.size());
    if (hi <= lo) hi = lo + 1;
    const double pad = 0.05 * (hi - lo);
    lo -= pad, hi += pad;
    auto* diagonal = new QLineSeries;  // where prediction equals measurement
    diagonal->append(lo, lo);
    diagonal->append(hi, hi);
    QPen pen = diagonal->pen();
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.0);
    diagonal->setPen(pen);
    chart()->addSeries(diagonal);
    chart()->addSeries(points);
    auto* x = new QValueAxis;
    x->setTitleText(tr("Measured %1").arg(name).toHtmlEscaped());
    auto* y = new QValueAxis;
    y->setTitleText(tr("Predicted, held out").toHtmlEscaped());
    chart()->addAxis(x, Qt::AlignBottom);
    chart()->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(diagonal), static_cast<QAbstractSeries*>(points)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    setRoundTicks(x, lo, hi);
    setRoundTicks(y, lo, hi);
    applyChartPalette(chart(), palette());
    // The read-out names the sequence nearest the point hovered.
    struct Point {
        double measured, predicted;
        int fold;
        QString name;
    };
    QList<Point> named;
    for (size_t i = 0; i < c.n && i < c.measured.size() && i < c.predicted.size(); ++i)
        named.append({c.measured[i], c.predicted[i], i < c.fold.size() ? c.fold[i] + 1 : 0,
                      i < c.rows.size() && c.rows[i] < probe->row_names.size() ? QString::fromStdString(probe->row_names[c.rows[i]])
                                                                                : tr("row %1").arg(i + 1)});
    connect(points, &QScatterSeries::hovered, this, [this, named](const QPointF& p, bool on) {
        if (!on || named.isEmpty()) return readout_->clear();
        qsizetype best = 0;
        double d = 1e300;
        for (qsizetype i = 0; i < named.size(); ++i) {
            const double e = std::hypot(named[i].measured - p.x(), named[i].predicted - p.y());
            if (e < d) d = e, best = i;
        }
        const Point& b = named[best];
        readout_->setText(tr("%1: measured %2, predicted %3 (fold %4)").arg(b.name).arg(b.measured, 0, 'g', 4).arg(b.predicted, 0, 'g', 4).arg(b.fold));
        readout_->adjustSize();
    });
}

}  // namespace carbon::ui
