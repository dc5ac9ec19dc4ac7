// DesignMapView: layout, colours and the scatter (see design_map_view.h).
#include "design_map_view.h"

#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "round_ticks.h"
#include "views/chart_palette.h"

namespace carbon::ui {

namespace {
// Distinguishable colours for runs and clusters (Okabe-Ito, readable by colour-blind users).
const QColor kCategorical[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                               QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00), QColor(0xf0, 0xe4, 0x42), QColor(0x00, 0x00, 0x00)};
QColor categorical(int i) { return kCategorical[size_t(std::max(0, i)) % std::size(kCategorical)]; }
// Low to high: blue to yellow (viridis' ends and middle).
QColor ramp(double t) {
    t = std::clamp(t, 0.0, 1.0);
    const QColor a(0x44, 0x01, 0x54), b(0x21, 0x91, 0x8c), c(0xfd, 0xe7, 0x25);
    const QColor& lo = t < 0.5 ? a : b;
    const QColor& hi = t < 0.5 ? b : c;
    const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    return QColor::fromRgbF(float(lo.redF() + u * (hi.redF() - lo.redF())), float(lo.greenF() + u * (hi.greenF() - lo.greenF())),
                            float(lo.blueF() + u * (hi.blueF() - lo.blueF())));
}
}  // namespace

DesignMapView::DesignMapView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    heading_ = new QLabel(this);
    heading_->setWordWrap(true);
    heading_->setTextFormat(Qt::PlainText);
    heading_->setAccessibleName(tr("Design map"));
    layout->addWidget(heading_);
    auto* row = new QHBoxLayout;
    map_ = new QPushButton(tr("Map Designs"), this);
    map_->setToolTip(tr("Embed the designs of the table (the selected ones, or all) with the loaded model and project them "
                        "on their first two principal components"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    row->addWidget(map_);
    row->addWidget(cancel_);
    row->addWidget(new QLabel(tr("Colour by:"), this));
    colour_ = new QComboBox(this);
    colour_->setAccessibleName(tr("Colour the map by"));
    colour_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    colour_->setMinimumContentsLength(10);
    row->addWidget(colour_, 1);
    k_ = new QSpinBox(this);
    k_->setRange(2, 50);
    k_->setValue(4);
    k_->setPrefix(tr("k = "));
    k_->setAccessibleName(tr("Clusters"));
    k_->setToolTip(tr("Clusters: k-means of the designs' embeddings into k groups"));
    row->addWidget(k_);
    layout->addLayout(row);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    layout->addWidget(progress_);
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(message_);
    plot_ = new QChartView(new QChart, this);
    prepareChartView(plot_, QSize(240, 180), tr("Designs on their first two principal components"));
    layout->addWidget(plot_, 1);
    connect(map_, &QPushButton::clicked, this, &DesignMapView::mapRequested);
    connect(cancel_, &QPushButton::clicked, this, &DesignMapView::cancelRequested);
    connect(colour_, &QComboBox::currentIndexChanged, this, [this] {
        k_->setEnabled(colour_->currentData().toInt() == int(Colouring::Cluster));
        redraw();
    });
    connect(k_, &QSpinBox::valueChanged, this, [this](int k) {
        if (colour_->currentData().toInt() == int(Colouring::Cluster) && !points_.isEmpty()) emit clustersRequested(k);
    });
    clear(tr("Map Designs embeds the designs of the table and shows them on their first two principal components."));
}

QString DesignMapView::heading() const { return heading_->text(); }
QString DesignMapView::message() const { return message_->text(); }

void DesignMapView::clear(const QString& why) {
    points_.clear();
    outputs_.clear();
    selected_.clear();
    heading_->setText(why);
    colour_->clear();
    colour_->addItem(tr("Run"), int(Colouring::Run));
    colour_->addItem(tr("Cluster"), int(Colouring::Cluster));
    k_->setEnabled(false);
    redraw();
}

void DesignMapView::setMap(const QList<Point>& points, const QStringList& outputs, std::array<double, 2> explained, const QString& embedding) {
    const QString was = colour_->currentText();
    points_ = points;
    outputs_ = outputs;
    rangeOf_ = -1;
    runIndex_.clear();  // runs in order of first appearance
    for (const Point& p : points_)
        if (!runIndex_.contains(p.run)) runIndex_.insert(p.run, int(runIndex_.size()));
    explained_ = explained;
    embedding_ = embedding;
    {
        const QSignalBlocker block(colour_);
        colour_->clear();
        colour_->addItem(tr("Run"), int(Colouring::Run));
        colour_->addItem(tr("Cluster"), int(Colouring::Cluster));
        for (qsizetype k = 0; k < outputs.size(); ++k) colour_->addItem(outputs[k], int(Colouring::Output) + int(k));
        colour_->setCurrentIndex(std::max(0, colour_->findText(was)));
    }
    k_->setEnabled(colour_->currentData().toInt() == int(Colouring::Cluster));
    heading_->setText(tr("%n design(s) on their first two principal components (%1): PC1 %2%, PC2 %3% of the variance", nullptr,
                         int(points.size()))
                          .arg(embedding).arg(100 * explained[0], 0, 'f', 1).arg(100 * explained[1], 0, 'f', 1));
    redraw();
}

void DesignMapView::setClusters(const QList<int>& clusterOfPoint) {
    for (qsizetype i = 0; i < points_.size() && i < clusterOfPoint.size(); ++i) points_[i].cluster = clusterOfPoint[i];
    redraw();
}

void DesignMapView::setSelectedRows(const QList<int>& rows) {
    selected_ = rows;
    redraw();
}

void DesignMapView::setRunning(bool running) {
    map_->setEnabled(!running);
    cancel_->setEnabled(running);
    progress_->setVisible(running);
    if (running) progress_->setRange(0, 0);
}

void DesignMapView::setProgress(qint64 done, qint64 total) {
    progress_->setRange(0, int(std::min<qint64>(total, 1 << 30)));
    progress_->setValue(int(std::min(done, total)));
    message_->setText(tr("Embedding: %1 of %2 design(s)").arg(done).arg(total));
}

void DesignMapView::setMessage(const QString& text) { message_->setText(text); }

QColor DesignMapView::colourOf(int point) const {
    if (point < 0 || point >= points_.size()) return {};
    const int mode = colour_->currentData().toInt();
    const Point& p = points_[point];
    if (mode == int(Colouring::Run)) return categorical(runIndex_.value(p.run));
    if (mode == int(Colouring::Cluster)) return categorical(p.cluster);
    const int k = mode - int(Colouring::Output);
    if (rangeOf_ != k) {  // the output's range over the map, once per output chosen
        bool any = false;
        for (const Point& q : points_) {
            if (k >= q.values.size() || !std::isfinite(q.values[k])) continue;
            range_[0] = any ? std::min(range_[0], q.values[k]) : q.values[k];
            range_[1] = any ? std::max(range_[1], q.values[k]) : q.values[k];
            any = true;
        }
        rangeOf_ = k;
    }
    if (k >= p.values.size() || !std::isfinite(p.values[k])) return QColor(0xa0, 0xa0, 0xa0);  // not predicted: grey
    const double lo = range_[0], hi = range_[1];
    return ramp(hi > lo ? (p.values[k] - lo) / (hi - lo) : 0.5);
}

void DesignMapView::redraw() {
    QChart* chart = plot_->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    if (points_.isEmpty()) return;
    auto* all = new QScatterSeries;
    all->setMarkerSize(8);
    all->setBorderColor(Qt::transparent);
    auto* ring = new QScatterSeries;  // the designs selected in the table
    ring->setMarkerSize(14);
    ring->setColor(Qt::transparent);
    ring->setBorderColor(palette().color(QPalette::Highlight));
    double x0 = points_[0].x, x1 = x0, y0 = points_[0].y, y1 = y0;
    for (qsizetype i = 0; i < points_.size(); ++i) {
        const Point& p = points_[i];
        all->append(p.x, p.y);
        if (selected_.contains(p.row)) ring->append(p.x, p.y);
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
    }
    chart->addSeries(all);
    chart->addSeries(ring);
    for (qsizetype i = 0; i < points_.size(); ++i) all->setPointConfiguration(int(i), {{QXYSeries::PointConfiguration::Color, colourOf(int(i))}});
    auto* x = new QValueAxis;
    x->setTitleText(tr("PC1 (%1%)").arg(100 * explained_[0], 0, 'f', 1));
    auto* y = new QValueAxis;
    y->setTitleText(tr("PC2 (%1%)").arg(100 * explained_[1], 0, 'f', 1));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(all), static_cast<QAbstractSeries*>(ring)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    const double px = std::max(1e-9, 0.06 * (x1 - x0)), py = std::max(1e-9, 0.06 * (y1 - y0));
    setRoundTicks(x, x0 - px, x1 + px);
    setRoundTicks(y, y0 - py, y1 + py);
    applyChartPalette(chart, palette());
    // A click selects the design nearest the point clicked.
    connect(all, &QScatterSeries::clicked, this, [this](const QPointF& at) {
        int best = -1;
        double d = 1e300;
        for (const Point& p : points_) {
            const double e = std::hypot(p.x - at.x(), p.y - at.y());
            if (e < d) d = e, best = p.row;
        }
        // Later, not now: selecting the row redraws the map, which deletes the series emitting this.
        if (best >= 0) QTimer::singleShot(0, this, [this, best] { emit rowsClicked({best}); });
    });
}

}  // namespace carbon::ui
