// EvolutionView: the objective per round and the rounds of one evolution run (see evolution_view.h).
#include "evolution_view.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "round_ticks.h"
#include "views/chart_palette.h"

namespace carbon::ui {

namespace {
QString number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("NA"); }
}  // namespace

EvolutionView::EvolutionView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    heading_ = new QLabel(this);
    heading_->setWordWrap(true);
    heading_->setTextFormat(Qt::PlainText);  // sequence names are text
    heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    heading_->setAccessibleName(tr("Evolution run"));
    layout->addWidget(heading_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    plot_ = new QChartView(new QChart, split);
    prepareChartView(plot_, QSize(220, 160), tr("Objective per round"));
    table_ = new QTreeWidget(split);
    table_->setRootIsDecorated(false);
    table_->setUniformRowHeights(true);
    table_->setAccessibleName(tr("Evolution rounds"));
    table_->setToolTip(tr("Double-click a round to open it in the editor, its edits marked"));
    split->addWidget(plot_);
    split->addWidget(table_);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    connect(table_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (item && run_) emit openRound(run_, item->data(0, Qt::UserRole).toInt());
    });
    clear();
}

QString EvolutionView::heading() const { return heading_->text(); }

void EvolutionView::clear(const QString& why) {
    run_ = 0;
    rounds_.clear();
    plotted_ = 0;
    heading_->setText(why.isEmpty() ? tr("No evolution yet: tick the Generation panel's objective, choose Evolve the design region and Run.")
                                    : why);
    plot_->chart()->removeAllSeries();
    for (QAbstractAxis* a : plot_->chart()->axes()) {
        plot_->chart()->removeAxis(a);
        delete a;
    }
    table_->clear();
    table_->setHeaderLabels({tr("Round"), tr("Edit"), tr("Objective")});
}

void EvolutionView::showRun(quint64 run, const QString& heading, const QStringList& outputs, const QList<Round>& rounds) {
    clear();
    run_ = run;
    rounds_ = rounds;
    heading_->setText(heading);
    table_->setHeaderLabels(QStringList{tr("Round"), tr("Edit"), tr("Objective")} + outputs);
    auto* line = new QLineSeries;
    auto* points = new QScatterSeries;
    points->setMarkerSize(7);
    double lo = 0, hi = 0;
    bool first = true;
    for (const Round& r : rounds) {
        auto* item = new QTreeWidgetItem(table_);
        item->setData(0, Qt::UserRole, r.round);
        item->setText(0, QString::number(r.round));
        item->setText(1, r.round == 0 ? tr("start") : r.edit);
        item->setText(2, number(r.objective));
        for (qsizetype k = 0; k < r.values.size() && k < outputs.size(); ++k) item->setText(int(3 + k), number(r.values[k]));
        if (!std::isfinite(r.objective)) continue;
        line->append(r.round, r.objective);
        points->append(r.round, r.objective);
        ++plotted_;
        if (first) lo = hi = r.objective, first = false;
        lo = std::min(lo, r.objective);
        hi = std::max(hi, r.objective);
    }
    for (int c = 0; c < table_->columnCount(); ++c) table_->resizeColumnToContents(c);
    QChart* chart = plot_->chart();
    chart->addSeries(line);
    chart->addSeries(points);
    auto* x = new QValueAxis;
    x->setTitleText(tr("Round"));
    x->setLabelFormat(QStringLiteral("%d"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("Objective"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(points)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    const int last = rounds.isEmpty() ? 1 : std::max(1, rounds.back().round);
    x->setRange(0, last);
    x->setTickCount(std::min(last, 10) + 1);
    if (hi <= lo) hi = lo + 1;
    const double pad = 0.05 * (hi - lo);
    setRoundTicks(y, lo - pad, hi + pad);
    applyChartPalette(chart, palette());
}

}  // namespace carbon::ui
