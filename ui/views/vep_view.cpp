// VepView (see vep_view.h).
#include "vep_view.h"

#include "views/chart_palette.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>

#include "round_ticks.h"
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <cmath>

namespace carbon::ui {

VepView::VepView(QWidget* parent) : QWidget(parent) {
    model_ = new VepTableModel(this);
    proxy_ = new VepFilterProxy(this);
    proxy_->setSourceModel(model_);

    text_ = new QLineEdit;
    text_->setPlaceholderText(tr("Filter: contig, ID, allele or chr:pos"));
    text_->setClearButtonEnabled(true);
    status_ = new QComboBox;
    status_->setToolTip(tr("Show the variants with this status"));
    summary_ = new QLabel(tr("Open a variant effect result (File > Open Variant Effects) made by carbon-cli vep."));
    summary_->setWordWrap(true);
    message_ = new QLabel;
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // a path to copy
    message_->setVisible(false);
    runRow_ = new QWidget;
    runProgress_ = new QProgressBar;
    runProgress_->setFormat(tr("%v of %m variant records"));
    stop_ = new QPushButton(tr("Stop"));
    stop_->setToolTip(tr("Stop scoring: the records scored so far are kept as a cancelled run"));
    auto* runLayout = new QHBoxLayout(runRow_);
    runLayout->setContentsMargins(0, 0, 0, 0);
    runLayout->addWidget(runProgress_, 1);
    runLayout->addWidget(stop_);
    runRow_->setVisible(false);
    connect(stop_, &QPushButton::clicked, this, &VepView::stopRequested);
    browser_ = new QPushButton(tr("Genome Browser…"));
    browser_->setEnabled(false);
    browser_->setToolTip(tr("Open a stored run in a genome browser first"));
    connect(browser_, &QPushButton::clicked, this, [this] {
        if (runId_) emit browserExportRequested(runId_);
    });
    auto* filters = new QHBoxLayout;
    filters->addWidget(text_, 2);
    filters->addWidget(status_, 1);
    filters->addWidget(browser_);

    table_ = new QTableView;
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the VCF's order until a header is clicked

    chart_ = new QChartView(new QChart);
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->chart()->legend()->setVisible(false);
    chart_->setMinimumSize(260, 140);  // axis labels readable, never "…"
    new ChartPaletteFollower(chart_, chart_->chart());

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(message_);
    layout->addWidget(runRow_);
    layout->addLayout(filters);
    layout->addWidget(split, 1);

    connect(text_, &QLineEdit::textChanged, proxy_, &VepFilterProxy::setText);
    connect(status_, &QComboBox::currentIndexChanged, this, [this] { proxy_->setStatus(status_->currentData().toString()); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &VepView::onCurrentChanged);
    connect(table_, &QTableView::activated, this, [this](const QModelIndex& i) {
        if (i.isValid()) emit variantActivated(model_->row(proxy_->mapToSource(i).row()));
    });
}

void VepView::setMessage(const QString& text) {
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

QString VepView::summary() const { return summary_->text(); }
QString VepView::message() const { return message_->text(); }

void VepView::setRunning(bool running) {
    runRow_->setVisible(running);
    stop_->setEnabled(running);
    if (running) runProgress_->setRange(0, 0);  // busy until the records are counted
}

bool VepView::isRunning() const { return !runRow_->isHidden(); }

void VepView::setProgress(qint64 done, qint64 total) {
    // QProgressBar counts in int: a VCF of more than 2^31 records shows in thousands.
    const qint64 scale = total > INT32_MAX ? 1000 : 1;
    runProgress_->setRange(0, int(std::max<qint64>(1, total / scale)));
    runProgress_->setValue(int(done / scale));
}

void VepView::setResult(VepResult result) {
    const int n = int(result.rows.size());
    int scored = 0;
    for (const VepRow& r : result.rows) scored += r.scored() ? 1 : 0;
    summary_->setText(tr("%1: %2 variant(s), %3 scored, window %4 bp; reference %5")
                          .arg(result.path)
                          .arg(n)
                          .arg(scored)
                          .arg(result.windowBp)
                          .arg(result.reference));
    setMessage(QString());
    runId_ = result.runId;
    browser_->setEnabled(runId_ != 0);
    browser_->setToolTip(runId_ ? tr("Write run %1's scores as a bigWig and an IGV session that opens them with the reference and the VCF")
                                      .arg(runId_)
                                : tr("Only a run stored in the project can be exported for a genome browser (carbon-cli project import "
                                     "--vep stores a result file)"));
    status_->blockSignals(true);
    status_->clear();
    status_->addItem(tr("All statuses"), QString());
    status_->addItem(tr("Scored (ok, window_clipped)"), QStringLiteral("scored"));
    for (const QString& s : result.statuses) status_->addItem(s, s);
    status_->blockSignals(false);
    proxy_->setStatus(QString());
    model_->setResult(std::move(result));
    table_->resizeColumnsToContents();
    plotted_.clear();
    if (n > 0) selectRow(0);
    else plotContig(QString());
}

void VepView::selectRow(int sourceRow) {
    const QModelIndex p = proxy_->mapFromSource(model_->index(sourceRow, 0));
    if (!p.isValid()) return;
    table_->setCurrentIndex(p);
    table_->scrollTo(p);
}

int VepView::plottedPoints() const { return points_ ? int(points_->count()) : 0; }

void VepView::onCurrentChanged() {
    const QModelIndex i = table_->currentIndex();
    if (!i.isValid()) return;
    const int src = proxy_->mapToSource(i).row();
    const VepRow& r = model_->row(src);
    if (QString::fromStdString(r.chrom) != plotted_) plotContig(QString::fromStdString(r.chrom));
    if (current_) {
        current_->clear();
        if (r.scored() && !std::isnan(r.window_delta_mean)) current_->append(double(r.pos), r.window_delta_mean);
    }
}

void VepView::plotContig(const QString& contig) {
    QChart* c = chart_->chart();
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) c->removeAxis(a);
    points_ = new QScatterSeries;
    points_->setMarkerSize(6);
    current_ = new QScatterSeries;
    current_->setMarkerSize(12);
    current_->setColor(QColor(220, 60, 40));
    pointRows_.clear();
    plotted_ = contig;
    const std::string name = contig.toStdString();
    double lo = 0, hi = 0, xmin = 1, xmax = 2;
    bool first = true;
    const VepResult& res = model_->result();
    for (int i = 0; i < int(res.rows.size()); ++i) {
        const VepRow& r = res.rows[i];
        if (r.chrom != name || !r.scored() || std::isnan(r.window_delta_mean)) continue;
        points_->append(double(r.pos), r.window_delta_mean);
        pointRows_.append(i);
        lo = first ? r.window_delta_mean : std::min(lo, r.window_delta_mean);
        hi = first ? r.window_delta_mean : std::max(hi, r.window_delta_mean);
        xmin = first ? double(r.pos) : std::min(xmin, double(r.pos));
        xmax = first ? double(r.pos) : std::max(xmax, double(r.pos));
        first = false;
    }
    c->addSeries(points_);
    c->addSeries(current_);
    auto* x = new QValueAxis;
    x->setTitleText(tr("position on %1").arg(contig.isEmpty() ? tr("(none)") : contig));
    const double pad = std::max(1.0, (xmax - xmin) * 0.02);
    setRoundTicks(x, xmin - pad, xmax + pad);
    auto* y = new QValueAxis;
    y->setTitleText(tr("Δ mean log p (alt - ref)"));
    const double ypad = std::max(1e-6, (hi - lo) * 0.1);
    setRoundTicks(y, lo - ypad, hi + ypad, 5);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    applyChartPalette(c, chart_->palette());
    for (QScatterSeries* s : {points_, current_}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    connect(points_, &QScatterSeries::clicked, this, [this](const QPointF& p) {
        // The nearest point (in screen terms, positions and deltas scaled by the axes).
        int best = -1;
        double bestD = 0;
        const QPointF at = chart_->chart()->mapToPosition(p, points_);
        for (int k = 0; k < int(points_->count()); ++k) {
            const QPointF q = chart_->chart()->mapToPosition(points_->at(k), points_);
            const double d = std::hypot(q.x() - at.x(), q.y() - at.y());
            if (best < 0 || d < bestD) best = k, bestD = d;
        }
        if (best < 0) return;
        selectRow(pointRows_[best]);
        emit variantActivated(model_->row(pointRows_[best]));
    });
}

}  // namespace carbon::ui
