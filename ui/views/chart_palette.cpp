// applyChartPalette and its follower (see chart_palette.h).
#include "chart_palette.h"

#include <QEvent>
#include <QWidget>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>

namespace carbon::ui {

void applyChartPalette(QChart* chart, const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base), text = palette.color(QPalette::Text);
    const bool dark = base.lightness() < 128;
    QColor grid = text;
    grid.setAlpha(dark ? 50 : 40);
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(palette.color(QPalette::Disabled, QPalette::Text));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
}

ChartPaletteFollower::ChartPaletteFollower(QWidget* view, QChart* chart) : QObject(view), view_(view), chart_(chart) {
    view_->installEventFilter(this);
    applyChartPalette(chart_, view_->palette());
}

bool ChartPaletteFollower::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_ && event->type() == QEvent::PaletteChange) applyChartPalette(chart_, view_->palette());
    return QObject::eventFilter(watched, event);
}

void prepareChartView(QChartView* view, QSize minimum, const QString& name) {
    view->setRenderHint(QPainter::Antialiasing);
    view->chart()->legend()->hide();
    view->chart()->setMargins(QMargins(4, 4, 4, 4));
    view->setMinimumSize(minimum);
    view->setAccessibleName(name);
    new ChartPaletteFollower(view, view->chart());
}

}  // namespace carbon::ui
