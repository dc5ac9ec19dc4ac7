// BaseInspector: layout, the numbers from the track, and the variant result (tracks and delta).
#include "base_inspector.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "track_chart_view.h"

namespace carbon::ui {

BaseInspector::BaseInspector(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    header_ = new QLabel(tr("Click a base in the editor (the likelihood must be computed)."));
    header_->setTextFormat(Qt::PlainText);  // a sequence name is text
    header_->setWordWrap(true);
    layout->addWidget(header_);
    auto* grid = new QGridLayout;
    for (int k = 0; k < 4; ++k) {
        grid->addWidget(new QLabel(QString(QLatin1Char(kAcgt[k]))), k, 0);
        bars_[size_t(k)] = new QProgressBar;
        bars_[size_t(k)]->setRange(0, 1000);
        bars_[size_t(k)]->setFormat(QStringLiteral("%p%"));
        bars_[size_t(k)]->setAccessibleName(tr("p(%1)").arg(QLatin1Char(kAcgt[k])));
        grid->addWidget(bars_[size_t(k)], k, 1);
        odds_[size_t(k)] = new QLabel;
        odds_[size_t(k)]->setToolTip(tr("Site log-odds: log p(ref) − log p(alt); positive: the model prefers the reference"));
        grid->addWidget(odds_[size_t(k)], k, 2);
    }
    layout->addLayout(grid);
    entropyLabel_ = new QLabel;
    layout->addWidget(entropyLabel_);

    auto* form = new QFormLayout;
    alt_ = new QComboBox;
    for (char b : kAcgt) alt_->addItem(QString(QLatin1Char(b)), QVariant::fromValue(int(b)));
    window_ = new QSpinBox;
    window_->setRange(12, 1 << 20);
    window_->setValue(8192);
    window_->setSuffix(tr(" bp"));
    window_->setToolTip(tr("The window the variant's mean log p is computed over, centred on the site"));
    form->addRow(tr("Alternative"), alt_);
    form->addRow(tr("Window"), window_);
    predictor_ = new QComboBox;
    predictor_->setAccessibleName(tr("Activity predictor for the variant"));
    predictor_->setToolTip(tr("An activity predictor of the project: Score Variant also predicts the change in activity "
                              "(alternative minus reference) per condition"));
    predictor_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    predictor_->setMinimumContentsLength(10);
    form->addRow(tr("Predictor"), predictor_);
    activityWindow_ = new QSpinBox;
    activityWindow_->setRange(0, 1 << 20);
    activityWindow_->setValue(0);
    activityWindow_->setSuffix(tr(" bp"));
    activityWindow_->setSpecialValueText(tr("whole sequence"));
    activityWindow_->setAccessibleName(tr("Activity window"));
    activityWindow_->setToolTip(tr("The bases the predictor sees, the variant in the middle (moved inward at the ends); "
                                   "set it to the length of the elements the predictor was fitted on"));
    form->addRow(tr("Activity window"), activityWindow_);
    setPredictors({});
    layout->addLayout(form);
    auto* buttons = new QHBoxLayout;
    score_ = new QPushButton(tr("Score Variant"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    buttons->addWidget(score_);
    buttons->addWidget(cancel_);
    layout->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setVisible(false);
    layout->addWidget(progress_);
    result_ = new QLabel;
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(result_);
    chart_ = new TrackChartView;
    layout->addWidget(chart_, 1);

    connect(score_, &QPushButton::clicked, this, [this] {
        if (position_ < 0) return;
        const char alt = char(alt_->currentData().toInt());
        if (alt == ref_) return setMessage(tr("Pick an alternative different from the reference %1.").arg(QLatin1Char(ref_)));
        emit scoreVariantRequested(position_, alt, window_->value());
    });
    connect(cancel_, &QPushButton::clicked, this, &BaseInspector::cancelRequested);
    score_->setEnabled(false);
}

void BaseInspector::showBase(qint64 position, const QByteArray& bases, const ScoreTrack& score) {
    if (!score || position < 0 || position >= qint64(score->track.size()) || position >= bases.size()) return;
    position_ = position;
    ref_ = char(std::toupper(static_cast<unsigned char>(bases[position])));
    const carbon::BaseScore& s = score->track[size_t(position)];
    entropy_ = s.entropy_bits;
    header_->setText((subject_.isEmpty() ? QString() : subject_ + QStringLiteral(", ")) +
                     tr("position %1, reference %2, log p %3").arg(position + 1).arg(QLatin1Char(ref_)).arg(s.logp, 0, 'f', 4));
    const int r = acgtIndex(ref_);
    for (int k = 0; k < 4; ++k) p_[size_t(k)] = marginalAcgt(s, k);  // all four before any log-odds
    for (int k = 0; k < 4; ++k) {
        bars_[size_t(k)]->setValue(int(std::lround(p_[size_t(k)] * 1000)));
        odds_[size_t(k)]->setText(k == r || r < 0 ? QStringLiteral("ref") : tr("log-odds %1").arg(siteLogOdds(kAcgt[k]), 0, 'f', 3));
    }
    entropyLabel_->setText(tr("Entropy %1 bits (of 2)").arg(entropy_, 0, 'f', 3));
    score_->setEnabled(r >= 0);
    if (alt_->currentIndex() == r) alt_->setCurrentIndex((r + 1) % 4);
}

void BaseInspector::setSubject(const QString& sequence) { subject_ = sequence; }

void BaseInspector::clear() {
    position_ = -1;
    ref_ = 0;
    p_ = {};
    entropy_ = 0;
    header_->setText(subject_.isEmpty() ? tr("Click a base in the editor (the likelihood must be computed).")
                                        : tr("%1: click a base in the editor (the likelihood must be computed).").arg(subject_));
    for (int k = 0; k < 4; ++k) {
        bars_[size_t(k)]->setValue(0);
        odds_[size_t(k)]->clear();
    }
    entropyLabel_->clear();
    result_->clear();
    chart_->clear();
    setBusy(false);
}

void BaseInspector::selectAlternative(char alt) {
    const int k = acgtIndex(alt);
    if (k >= 0) alt_->setCurrentIndex(k);
}

char BaseInspector::selectedAlternative() const { return char(alt_->currentData().toInt()); }

double BaseInspector::siteLogOdds(char alt) const {
    const int r = acgtIndex(ref_), a = acgtIndex(alt);
    if (r < 0 || a < 0 || a == r) return std::numeric_limits<double>::quiet_NaN();
    return std::log(p_[size_t(r)]) - std::log(p_[size_t(a)]);
}

void BaseInspector::showVariant(const VariantAnalysis& v) {
    const carbon::VariantScore& s = v.score;
    result_->setText(tr("%1%2>%3: site log-odds %4, window %5–%6, Δ mean log p (alt − ref) %7")
                         .arg(s.position + 1).arg(QLatin1Char(s.ref)).arg(QLatin1Char(s.alt))
                         .arg(s.site_log_odds, 0, 'f', 4).arg(s.window.start + 1).arg(s.window.end)
                         .arg(s.window_delta, 0, 'f', 5));
    QVector<float> ref(v.refLogp.begin(), v.refLogp.end()), alt(v.altLogp.begin(), v.altLogp.end()), delta(ref.size());
    for (qsizetype i = 0; i < ref.size() && i < alt.size(); ++i) delta[i] = alt[i] - ref[i];
    if (!v.predictor.isEmpty()) {
        QString line;
        if (!v.activityError.isEmpty()) {
            line = tr("Predicted activity (%1): none, %2").arg(v.predictor, v.activityError);
        } else if (!v.activity.variants.empty()) {
            const carbon::VariantActivity& a = v.activity.variants.front();
            QStringList parts;
            for (size_t k = 0; k < v.activity.outputs.size() && k < a.change.size(); ++k)
                parts << tr("%1 %2 (ref %3, alt %4; %5)")
                             .arg(QString::fromStdString(v.activity.outputs[k]))
                             .arg(a.change[k], 0, 'f', 4)
                             .arg(a.reference[k], 0, 'f', 4)
                             .arg(a.alternative[k], 0, 'f', 4)
                             .arg(k < v.activity.held_out.size() && !v.activity.held_out[k].empty()
                                      ? QString::fromStdString(v.activity.held_out[k])
                                      : tr("held-out accuracy not known"));
            line = tr("Predicted activity change, alt − ref (%1, bases %2–%3): %4")
                       .arg(v.predictor).arg(a.window.start + 1).arg(a.window.end).arg(parts.join(QStringLiteral("; ")));
        }
        result_->setText(result_->text() + QLatin1Char('\n') + line);
    }
    chart_->setTracks({{tr("ref log p"), ref, false}, {tr("alt log p"), alt, false}, {tr("Δ alt − ref"), delta, true}},
                      qint64(s.window.start) + 1, tr("log p"), tr("Δ log p"));
}

void BaseInspector::setPredictors(const QList<StoredPredictor>& predictors) {
    const QString was = predictor_->currentText();
    predictors_.clear();
    for (const StoredPredictor& p : predictors)
        if (p.usable()) predictors_.append(p);
    predictor_->clear();
    predictor_->addItem(tr("none"));
    for (const StoredPredictor& p : predictors_) predictor_->addItem(p.name);
    predictor_->setCurrentIndex(std::max(0, predictor_->findText(was)));
    predictor_->setEnabled(!predictors_.isEmpty());
}

const StoredPredictor* BaseInspector::chosenPredictor() const {
    const int i = predictor_->currentIndex() - 1;
    return i >= 0 && i < predictors_.size() ? &predictors_[i] : nullptr;
}

qint64 BaseInspector::activityWindow() const { return activityWindow_->value(); }

QString BaseInspector::resultText() const { return result_->text(); }

void BaseInspector::setBusy(bool busy) {
    cancel_->setEnabled(busy);
    score_->setEnabled(!busy && position_ >= 0);
    progress_->setVisible(busy);
    if (busy) progress_->setRange(0, 0);
}

void BaseInspector::setProgress(qint64 done, qint64 total) {
    progress_->setRange(0, 1000);
    progress_->setValue(total > 0 ? int(1000 * done / total) : 0);
}

void BaseInspector::setMessage(const QString& text) { result_->setText(text); }

}  // namespace carbon::ui
