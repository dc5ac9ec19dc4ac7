// TrackChartView: builds one QLineSeries per track (NaN splits a track into segments by being
// skipped, which Qt draws as a straight join; acceptable for rare non-ACGT bases).
#include "track_chart_view.h"

#include "views/chart_palette.h"

#include <QChart>
#include <QLabel>
#include <QLineSeries>
#include <QValueAxis>

#include "round_ticks.h"
#include <QWheelEvent>
#include <cmath>

namespace carbon::ui {

TrackChartView::TrackChartView(QWidget* parent) : QChartView(new QChart, parent) {
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::HorizontalRubberBand);
    setFocusPolicy(Qt::StrongFocus);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setMargins(QMargins(4, 4, 4, 4));
    readout_ = new QLabel(this);
    readout_->setAttribute(Qt::WA_TransparentForMouseEvents);
    readout_->setTextFormat(Qt::PlainText);
    readout_->move(8, 4);
    readout_->setAccessibleName(tr("Hover read-out"));
    // Below this a chart's axis labels are elided to "…": the dock it is in tabs or scrolls instead.
    setMinimumSize(260, 160);
    new ChartPaletteFollower(this, chart());
}

int TrackChartView::seriesCount() const { return int(chart()->series().size()); }

void TrackChartView::setTracks(const QList<Track>& tracks, qint64 firstPosition, const QString& yTitle,
                               const QString& y2Title) {
    clear();
    QChart* c = chart();
    auto* x = new QValueAxis;
    x->setTitleText(tr("Position (bp)"));
    auto* y = new QValueAxis;
    y->setTitleText(yTitle);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    QValueAxis* y2 = nullptr;
    double lo = 0, hi = 0, lo2 = 0, hi2 = 0;
    qsizetype longest = 1;
    for (const Track& t : tracks) {
        auto* s = new QLineSeries;
        s->setName(t.name.toHtmlEscaped());  // the legend reads names as rich text
        QList<QPointF> pts;
        pts.reserve(t.values.size());
        double& tlo = t.secondaryAxis ? lo2 : lo;
        double& thi = t.secondaryAxis ? hi2 : hi;
        for (qsizetype i = 0; i < t.values.size(); ++i) {
            const float v = t.values[i];
            if (std::isnan(v)) continue;
            pts.append(QPointF(double(firstPosition + i), double(v)));
            tlo = std::min(tlo, double(v));
            thi = std::max(thi, double(v));
        }
        s->replace(pts);
        longest = std::max(longest, t.values.size());
        c->addSeries(s);
        s->attachAxis(x);
        if (t.secondaryAxis) {
            if (!y2) {
                y2 = new QValueAxis;
                y2->setTitleText(y2Title);
                c->addAxis(y2, Qt::AlignRight);
            }
            s->attachAxis(y2);
        } else {
            s->attachAxis(y);
        }
        connect(s, &QLineSeries::hovered, this, [this, name = t.name](const QPointF& p, bool on) {
            readout_->setText(on ? tr("%1  position %2: %3").arg(name).arg(qRound64(p.x())).arg(p.y(), 0, 'f', 3) : QString());
            readout_->adjustSize();
        });
    }
    setRoundTicks(x, double(firstPosition), double(firstPosition + longest - 1));
    setRoundTicks(y, lo - 0.1, hi + 0.1);
    if (y2) setRoundTicks(y2, std::min(lo2, -0.01) * 1.1, std::max(hi2, 0.01) * 1.1);
    applyChartPalette(c, palette());
}

void TrackChartView::clear() {
    ++revision_;
    QChart* c = chart();
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) {
        c->removeAxis(a);
        delete a;
    }
    readout_->clear();
}

void TrackChartView::wheelEvent(QWheelEvent* e) {
    // Zoom about the x axis only, so the y scale stays comparable while browsing.
    const double factor = e->angleDelta().y() > 0 ? 1.25 : 0.8;
    QRectF area = chart()->plotArea();
    const double cx = std::clamp(e->position().x(), area.left(), area.right());
    const double w = area.width() / factor;
    area.setLeft(cx - (cx - area.left()) / factor);
    area.setWidth(w);
    chart()->zoomIn(area);
    e->accept();
}

void TrackChartView::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::MiddleButton || e->button() == Qt::RightButton) {
        panning_ = true;
        panFrom_ = e->pos();
        return e->accept();
    }
    QChartView::mousePressEvent(e);
}

void TrackChartView::mouseMoveEvent(QMouseEvent* e) {
    if (panning_) {
        const QPoint d = e->pos() - panFrom_;
        chart()->scroll(-d.x(), 0);
        panFrom_ = e->pos();
        return e->accept();
    }
    QChartView::mouseMoveEvent(e);
}

void TrackChartView::mouseReleaseEvent(QMouseEvent* e) {
    if (panning_) {
        panning_ = false;
        return e->accept();
    }
    // A right click would zoom out in QChartView; right is our pan button, so it never gets here.
    QChartView::mouseReleaseEvent(e);
}

void TrackChartView::keyPressEvent(QKeyEvent* e) {
    switch (e->key()) {
        case Qt::Key_Left: chart()->scroll(-30, 0); break;
        case Qt::Key_Right: chart()->scroll(30, 0); break;
        case Qt::Key_Home: chart()->zoomReset(); break;
        default: return QChartView::keyPressEvent(e);
    }
    e->accept();
}

}  // namespace carbon::ui
