// DesignsView: wiring of the proxy (numeric sort role, filter on the bases column) and the view.
#include "designs_view.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "design_table_model.h"

namespace carbon::ui {

DesignsView::DesignsView(DesignTableModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter designs by bases (e.g. TATA)"));
    filter_->setAccessibleName(tr("Filter designs"));
    filter_->setClearButtonEnabled(true);
    layout->addWidget(filter_);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(DesignTableModel::SortRole);
    proxy_->setFilterRole(DesignTableModel::SortRole);  // full bases, not the shortened cell text
    proxy_->setFilterKeyColumn(DesignTableModel::BasesColumn);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_ = new QTableView(this);
    table_->setAccessibleName(tr("Designs"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(DesignTableModel::RankColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table_);

    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& index) { emit openDesign(proxy_->mapToSource(index).row()); });
}

QList<int> DesignsView::selectedSourceRows() const {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << proxy_->mapToSource(i).row();
    return rows;
}

}  // namespace carbon::ui
