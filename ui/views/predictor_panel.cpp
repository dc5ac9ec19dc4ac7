// PredictorPanel: the list, the fit controls and the cross-validation report (see predictor_panel.h).
#include "predictor_panel.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>

#include "views/cv_scatter_view.h"

namespace carbon::ui {

PredictorPanel::PredictorPanel(QWidget* parent) : QWidget(parent) {
    where_ = new QLabel(this);
    where_->setWordWrap(true);
    list_ = new QTreeWidget(this);
    list_->setColumnCount(3);
    list_->setHeaderLabels({tr("Predictor"), tr("Conditions"), tr("Held-out r")});
    list_->setRootIsDecorated(false);
    list_->setAccessibleName(tr("Predictors"));
    list_->header()->setStretchLastSection(true);
    list_->setMinimumHeight(70);
    fit_ = new QPushButton(tr("Fit from Measurements…"), this);
    fit_->setToolTip(tr("Fit a predictor to a table of measurements (CSV/TSV: a sequence name from the project or the "
                        "sequence itself, one column per condition, optional CONDITION_se columns) on the loaded model's "
                        "embeddings; the held-out accuracy of each condition is reported"));
    load_ = new QPushButton(tr("Load Checkpoint…"), this);
    load_->setToolTip(tr("A sequence-regression checkpoint fine-tuned by Carbon's recipes (malinois, deepstarr, promoter_activity: "
                         "LlamaForSequenceClassification with problem_type regression), its run_config.json followed; kept for "
                         "this session"));
    predict_ = new QPushButton(tr("Predict Designs"), this);
    predict_->setToolTip(tr("The selected predictor's values for the designs in the Designs table (the selected rows, or "
                            "all): a column per condition, stored with the designs"));
    predict_->setEnabled(false);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    progress_->setAccessibleName(tr("Fit progress"));
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    condition_ = new QComboBox(this);
    condition_->setAccessibleName(tr("Condition"));
    plot_ = new CvScatterView(this);
    warnings_ = new QLabel(this);
    warnings_->setWordWrap(true);
    warnings_->setTextFormat(Qt::PlainText);

    auto* buttons = new QGridLayout;
    buttons->addWidget(fit_, 0, 0);
    buttons->addWidget(load_, 0, 1);
    buttons->addWidget(predict_, 1, 0);
    buttons->addWidget(cancel_, 1, 1);
    buttons->setColumnStretch(2, 1);
    auto* conditionRow = new QHBoxLayout;
    conditionRow->addWidget(new QLabel(tr("Condition:"), this));
    conditionRow->addWidget(condition_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(where_);
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(message_);
    layout->addLayout(conditionRow);
    layout->addWidget(plot_, 3);
    layout->addWidget(warnings_);

    connect(fit_, &QPushButton::clicked, this, &PredictorPanel::fitRequested);
    connect(load_, &QPushButton::clicked, this, &PredictorPanel::loadCheckpointRequested);
    connect(predict_, &QPushButton::clicked, this, &PredictorPanel::predictRequested);
    connect(cancel_, &QPushButton::clicked, this, &PredictorPanel::cancelRequested);
    connect(list_, &QTreeWidget::currentItemChanged, this, [this] {
        // The conditions of the predictor now selected; the plot follows.
        const QSignalBlocker block(condition_);
        condition_->clear();
        const int row = list_->currentItem() ? list_->indexOfTopLevelItem(list_->currentItem()) : -1;
        if (row >= 0 && row < predictors_.size()) condition_->addItems(predictors_[row].outputs());
        showSelected();
    });
    connect(condition_, &QComboBox::currentIndexChanged, this, [this] { showSelected(); });
    setPredictors({}, tr("No project is open: a predictor fitted now is kept until the window closes."));
}

namespace {

QTreeWidgetItem* itemFor(const StoredPredictor& p) {
    QStringList conditions, rs;
    if (p.probe)
        for (size_t c = 0; c < p.probe->conditions.size(); ++c) {
            conditions << QString::fromStdString(p.probe->conditions[c].name);
            rs << QString::number(p.probe->conditions[c].pearson, 'f', 2);
        }
    if (!p.checkpoint.isEmpty()) {  // a fine-tuned checkpoint: its outputs, no held-out figures of its own
        auto* item = new QTreeWidgetItem({p.name, p.labels.join(QStringLiteral(", ")), QObject::tr("checkpoint")});
        item->setToolTip(0, QObject::tr("Fine-tuned checkpoint %1. %2").arg(p.checkpoint, p.note));
        return item;
    }
    auto* item = new QTreeWidgetItem({p.name, p.probe ? conditions.join(QStringLiteral(", ")) : QObject::tr("unreadable"),
                                      rs.join(QStringLiteral(", "))});
    item->setToolTip(0, p.probe ? QObject::tr("Fitted %1 to %2 on %3 (%4)")
                                      .arg(QString::fromStdString(p.probe->created), QString::fromStdString(p.probe->table_path),
                                           QString::fromStdString(p.probe->model_path), QString::fromStdString(p.probe->embedding.describe()))
                                : p.error);
    return item;
}

}  // namespace

void PredictorPanel::setPredictors(const QList<StoredPredictor>& predictors, const QString& where) {
    predictors_ = predictors;
    where_->setText(where);
    list_->clear();
    for (const StoredPredictor& p : predictors_) list_->addTopLevelItem(itemFor(p));
    if (!predictors_.isEmpty()) list_->setCurrentItem(list_->topLevelItem(0));
    else showSelected();
    emit predictorsChanged(predictors_);
}

void PredictorPanel::addPredictor(const StoredPredictor& predictor) {
    predictors_.append(predictor);
    QTreeWidgetItem* item = itemFor(predictor);
    list_->addTopLevelItem(item);
    list_->setCurrentItem(item);
    emit predictorsChanged(predictors_);
}

QString PredictorPanel::whereText() const { return where_->text(); }

int PredictorPanel::count() const { return int(predictors_.size()); }

bool PredictorPanel::contains(const QString& name) const {
    for (const StoredPredictor& p : predictors_)
        if (p.name == name) return true;
    return false;
}

QString PredictorPanel::selectedName() const { return list_->currentItem() ? list_->currentItem()->text(0) : QString(); }

void PredictorPanel::select(const QString& name) {
    for (int i = 0; i < list_->topLevelItemCount(); ++i)
        if (list_->topLevelItem(i)->text(0) == name) list_->setCurrentItem(list_->topLevelItem(i));
}

const StoredPredictor* PredictorPanel::selected() const {
    const int row = list_->currentItem() ? list_->indexOfTopLevelItem(list_->currentItem()) : -1;
    return row >= 0 && row < predictors_.size() && predictors_[row].usable() ? &predictors_[row] : nullptr;
}

void PredictorPanel::showSelected() {
    predict_->setEnabled(!running_ && selected());
    const int row = list_->currentItem() ? list_->indexOfTopLevelItem(list_->currentItem()) : -1;
    if (row < 0 || row >= predictors_.size()) {
        plot_->showCondition(QString(), nullptr, -1);
        warnings_->setText(predictors_.isEmpty() ? tr("No predictor yet: fit one to your measurements.") : QString());
        return;
    }
    const StoredPredictor& p = predictors_[row];
    if (!p.checkpoint.isEmpty()) {
        plot_->showCondition(QString(), nullptr, -1);
        warnings_->setText(tr("'%1' is a fine-tuned checkpoint (%2). %3 Its accuracy is what its recipe's test set reported; it "
                              "carries no held-out figures of its own.")
                               .arg(p.name, p.checkpoint, p.note));
        return;
    }
    if (!p.probe) {
        plot_->showCondition(QString(), nullptr, -1);
        warnings_->setText(tr("'%1' cannot be read: %2").arg(p.name, p.error));
        return;
    }
    const int c = condition_->currentIndex();
    plot_->showCondition(p.name, p.probe.get(), c);
    QStringList lines;
    if (c >= 0 && size_t(c) < p.probe->conditions.size()) {
        const ProbeCondition& k = p.probe->conditions[size_t(c)];
        if (k.noise_ceiling) lines << tr("The standard errors allow at most r %1.").arg(*k.noise_ceiling, 0, 'f', 2);
        for (const std::string& w : k.warnings) lines << tr("Warning: %1").arg(QString::fromStdString(w));
    }
    warnings_->setText(lines.join(QLatin1Char('\n')));
}

void PredictorPanel::setRunning(bool running) {
    running_ = running;
    fit_->setEnabled(!running);
    load_->setEnabled(!running);
    predict_->setEnabled(!running && selected());
    cancel_->setEnabled(running);
    progress_->setVisible(running);
    if (running) progress_->setRange(0, 0);
}

void PredictorPanel::setProgress(qint64 done, qint64 total, const QString& what) {
    if (total <= 0) return;
    progress_->setRange(0, int(std::min<qint64>(total, 1 << 30)));
    progress_->setValue(int(std::min(done, total)));
    progress_->setFormat(tr("%1 of %2 %3").arg(done).arg(total).arg(what));
}

void PredictorPanel::setMessage(const QString& text) { message_->setText(text); }

QString PredictorPanel::message() const { return message_->text(); }

}  // namespace carbon::ui
