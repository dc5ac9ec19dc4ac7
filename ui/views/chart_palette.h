// Charts in the window's palette: Qt Charts draws its own white background and black axes
// whatever the application palette, so in the dark palette a chart would be a white hole with
// unreadable labels. applyChartPalette colours the chart's background, plot area, axes, grid and
// legend from the palette; each chart view calls it after building its axes and when the palette
// changes (ChartPaletteFollower does the latter).
#pragma once

#include <QObject>
#include <QPalette>
#include <QSize>
#include <QString>

class QChart;
class QChartView;
class QWidget;

namespace carbon::ui {

void applyChartPalette(QChart* chart, const QPalette& palette);

// A chart view as the window's charts are set up: antialiased, no legend, small margins, at least
// `minimum` large, named `name` for screen readers, its chart following the palette.
void prepareChartView(QChartView* view, QSize minimum, const QString& name);

// Re-applies the palette to `chart` whenever `view` receives a palette change.
class ChartPaletteFollower : public QObject {
public:
    ChartPaletteFollower(QWidget* view, QChart* chart);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* view_;
    QChart* chart_;
};

}  // namespace carbon::ui
