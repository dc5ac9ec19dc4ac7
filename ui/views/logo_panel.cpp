// LogoPanel (see logo_panel.h).
#include "logo_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace carbon::ui {

LogoPanel::LogoPanel(QWidget* parent) : QWidget(parent) {
    view_ = new SequenceLogoView;
    summary_ = new QLabel(tr("Select bases in the editor (with a model loaded) or designs in the designs table."));
    summary_->setWordWrap(true);
    auto* fromSelection = new QPushButton(tr("Selection"));
    fromSelection->setToolTip(tr("The model's base distributions over the editor's selection (follows it)"));
    auto* fromDesigns = new QPushButton(tr("Selected designs"));
    fromDesigns->setToolTip(tr("The base frequencies of the designs selected in the designs table"));
    exportSvg_ = new QPushButton(tr("Export SVG…"));
    exportPng_ = new QPushButton(tr("Export PNG…"));
    exportSvg_->setEnabled(false);
    exportPng_->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(fromSelection);
    row->addWidget(fromDesigns);
    row->addStretch(1);
    row->addWidget(exportSvg_);
    row->addWidget(exportPng_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(summary_);
    layout->addWidget(view_, 1);
    connect(fromSelection, &QPushButton::clicked, this, [this] {
        followSelection_ = true;
        emit fromSelectionRequested();
    });
    connect(fromDesigns, &QPushButton::clicked, this, [this] {
        followSelection_ = false;
        emit fromDesignsRequested();
    });
    connect(exportSvg_, &QPushButton::clicked, this, [this] { emit exportRequested(true); });
    connect(exportPng_, &QPushButton::clicked, this, [this] { emit exportRequested(false); });
}

void LogoPanel::setLogo(SequenceLogo logo, const QString& summary) {
    const bool any = !logo.columns.isEmpty();
    view_->setLogo(std::move(logo));
    summary_->setText(summary);
    exportSvg_->setEnabled(any);
    exportPng_->setEnabled(any);
}

void LogoPanel::setMessage(const QString& text) { summary_->setText(text); }

void LogoPanel::clear(const QString& text) {
    view_->setLogo({});
    setMessage(text);
}

}  // namespace carbon::ui
