// ModelPanel: recent folders live in QSettings under models/recent (most recent first, 8 kept).
#include "model_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace carbon::ui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "models/recent";
}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    recent_ = new QComboBox(this);
    recent_->setAccessibleName(tr("Recent model folders"));
    recent_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    recent_->setMinimumContentsLength(18);
    recent_->addItems(QSettings().value(kRecentKey).toStringList());
    open_ = new QPushButton(tr("&Open model folder…"), this);
    open_->setAccessibleName(tr("Open model folder"));
    load_ = new QPushButton(tr("Load"), this);
    load_->setAccessibleName(tr("Load the selected recent model folder"));
    load_->setEnabled(recent_->count() > 0);
    auto* row = new QHBoxLayout;
    row->addWidget(recent_, 1);
    row->addWidget(load_);
    layout->addWidget(open_);
    layout->addLayout(row);
    status_ = new QLabel(tr("No model loaded."), this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setAccessibleName(tr("Model status"));
    layout->addWidget(status_);
    details_ = new QFormLayout;
    details_->setLabelAlignment(Qt::AlignRight);
    layout->addLayout(details_);
    layout->addStretch(1);

    connect(open_, &QPushButton::clicked, this, &ModelPanel::chooseFolder);
    connect(load_, &QPushButton::clicked, this, [this] {
        if (recent_->currentIndex() >= 0) emit loadRequested(recent_->currentText());
    });
}

QStringList ModelPanel::recentFolders() const { return QSettings().value(kRecentKey).toStringList(); }

void ModelPanel::chooseFolder() {
    const QString start = recent_->count() ? recent_->itemText(0) : QString();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a model folder (config.json, safetensors, tokenizer)"), start);
    if (!dir.isEmpty()) emit loadRequested(dir);
}

void ModelPanel::setLoading(const QString& dir) {
    clearDetails();
    status_->setStyleSheet({});
    status_->setText(tr("Loading %1…").arg(dir));
    open_->setEnabled(false);
    load_->setEnabled(false);
}

void ModelPanel::showSummary(const ModelSummary& summary) {
    clearDetails();
    rememberFolder(summary.dir);
    status_->setStyleSheet({});
    QString text = tr("Loaded %1").arg(summary.dir);
    if (!summary.notice.isEmpty()) text += QStringLiteral("\n") + summary.notice;
    status_->setText(text);
    for (const auto& [label, value] : summary.rows) {
        auto* v = new QLabel(value, this);
        v->setWordWrap(true);
        v->setTextInteractionFlags(Qt::TextSelectableByMouse);
        details_->addRow(label + QLatin1Char(':'), v);
    }
    open_->setEnabled(true);
    load_->setEnabled(true);
}

void ModelPanel::showError(const QString& dir, const QString& error) {
    clearDetails();
    status_->setStyleSheet(QStringLiteral("color: #b00020"));
    status_->setText(tr("Could not load %1:\n%2").arg(dir, error));
    open_->setEnabled(true);
    load_->setEnabled(recent_->count() > 0);
}

void ModelPanel::rememberFolder(const QString& dir) {
    QStringList list = recentFolders();
    list.removeAll(dir);
    list.prepend(dir);
    while (list.size() > kMaxRecent) list.removeLast();
    QSettings().setValue(kRecentKey, list);
    recent_->clear();
    recent_->addItems(list);
}

void ModelPanel::clearDetails() {
    while (details_->rowCount() > 0) details_->removeRow(0);
}

}  // namespace carbon::ui
