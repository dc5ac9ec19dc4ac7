// FeatureList (see feature_list.h).
#include "feature_list.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "views/feature_table_model.h"

namespace carbon::ui {

FeatureList::FeatureList(FeatureTableModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    header_ = new QLabel(this);
    header_->setTextFormat(Qt::PlainText);  // a sequence's name is the user's text
    header_->setWordWrap(true);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    proxy_->setSortCaseSensitivity(Qt::CaseInsensitive);
    view_ = new QTableView(this);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(FeatureTableModel::Start, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->verticalHeader()->setVisible(false);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setSectionResizeMode(FeatureTableModel::Name, QHeaderView::Stretch);
    view_->setAccessibleName(tr("Features"));
    edit_ = new QPushButton(tr("Edit &Qualifiers…"), this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(header_);
    layout->addWidget(view_, 1);
    layout->addWidget(edit_, 0, Qt::AlignLeft);
    connect(view_, &QTableView::clicked, this, [this](const QModelIndex& i) { emit featureActivated(proxy_->mapToSource(i).row()); });
    connect(view_, &QTableView::activated, this, [this](const QModelIndex& i) { emit featureActivated(proxy_->mapToSource(i).row()); });
    connect(edit_, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0) emit editRequested(currentRow());
    });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &FeatureList::updateButtons);
    connect(model_, &QAbstractItemModel::modelReset, this, &FeatureList::updateButtons);
    setSequenceName(QString());
    updateButtons();
}

void FeatureList::setSequenceName(const QString& name) {
    header_->setText(name.isEmpty() ? tr("No sequence open") : tr("Features of %1: %n", nullptr, model_->rowCount()).arg(name));
}

int FeatureList::currentRow() const {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : proxy_->mapToSource(rows.first()).row();
}

void FeatureList::updateButtons() {
    const int r = currentRow();
    const bool imported = r >= 0 && model_->row(r).feature >= 0;
    edit_->setEnabled(imported);
    edit_->setToolTip(r >= 0 && !imported ? tr("Your own annotations have a name only; imported features have qualifiers.") : QString());
}

}  // namespace carbon::ui
