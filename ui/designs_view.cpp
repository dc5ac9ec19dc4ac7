// DesignsView: wiring of the proxy (numeric sort role, bases and verdict filters) and the view.
#include "designs_view.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "design_table_model.h"

namespace carbon::ui {

namespace {

// Bases contain the filter text (case-insensitive) and the verdict passes the flag filter.
class DesignFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setBases(const QString& text) {
        bases_ = text;
        invalidateFilter();
    }
    void setFlagFilter(DesignsView::FlagFilter f) {
        flag_ = f;
        invalidateFilter();
    }
    void setRun(qint64 run) {
        run_ = run;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        const QAbstractItemModel* m = sourceModel();
        const QString flag = m->index(row, 0, parent).data(DesignTableModel::FlagRole).toString();
        if (flag_ == DesignsView::FlagFilter::Starred && flag != QLatin1String("starred")) return false;
        if (flag_ == DesignsView::FlagFilter::HideDiscarded && flag == QLatin1String("discarded")) return false;
        if (run_ && m->index(row, DesignTableModel::RunColumn, parent).data(DesignTableModel::SortRole).toLongLong() != run_) return false;
        if (bases_.isEmpty()) return true;
        return m->index(row, DesignTableModel::BasesColumn, parent)
            .data(DesignTableModel::SortRole).toString().contains(bases_, Qt::CaseInsensitive);
    }

private:
    QString bases_;
    DesignsView::FlagFilter flag_ = DesignsView::FlagFilter::All;
    qint64 run_ = 0;
};

}  // namespace

DesignsView::DesignsView(DesignTableModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* top = new QHBoxLayout;
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter designs by bases (e.g. TATA)"));
    filter_->setAccessibleName(tr("Filter designs"));
    filter_->setClearButtonEnabled(true);
    flagFilter_ = new QComboBox(this);
    flagFilter_->addItems({tr("All designs"), tr("Starred only"), tr("Hide discarded")});
    flagFilter_->setAccessibleName(tr("Show designs by verdict"));
    auto button = [this, top](const QString& text, const QString& accessible, const QString& tip) {
        auto* b = new QPushButton(text, this);
        b->setAccessibleName(accessible);
        b->setToolTip(tip);
        top->addWidget(b);
        return b;
    };
    top->addWidget(filter_, 1);
    top->addWidget(flagFilter_);
    QPushButton* star = button(tr("Star"), tr("Star the selected designs"), tr("Star or unstar the selected designs (S)"));
    QPushButton* discard = button(tr("Discard"), tr("Discard the selected designs"), tr("Discard or restore the selected designs (D)"));
    QPushButton* overlay = button(tr("Overlay tracks"), tr("Overlay the selected designs' tracks"),
                                  tr("Show the per-base log p of the selected designs together in the track view"));
    QPushButton* exportButton = button(tr("Export…"), tr("Export the selected designs"), tr("Export the selected designs (Ctrl+E)"));
    layout->addLayout(top);
    runFilterLabel_ = new QLabel(this);
    runFilterLabel_->setVisible(false);
    layout->addWidget(runFilterLabel_);
    connect(runFilterLabel_, &QLabel::linkActivated, this, [this] { setRunFilter(0); });

    auto* proxy = new DesignFilterProxy(this);
    proxy_ = proxy;
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(DesignTableModel::SortRole);
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

    // S / D act on the table's selection when the table has focus.
    auto* starAction = new QAction(tr("Star"), table_);
    starAction->setShortcut(QKeySequence(Qt::Key_S));
    starAction->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(starAction);
    auto* discardAction = new QAction(tr("Discard"), table_);
    discardAction->setShortcut(QKeySequence(Qt::Key_D));
    discardAction->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(discardAction);

    connect(filter_, &QLineEdit::textChanged, this, [proxy](const QString& t) { proxy->setBases(t); });
    connect(flagFilter_, &QComboBox::currentIndexChanged, this, [this](int i) { setFlagFilter(FlagFilter(i)); });
    connect(star, &QPushButton::clicked, this, &DesignsView::starSelection);
    connect(discard, &QPushButton::clicked, this, &DesignsView::discardSelection);
    connect(starAction, &QAction::triggered, this, &DesignsView::starSelection);
    connect(discardAction, &QAction::triggered, this, &DesignsView::discardSelection);
    connect(overlay, &QPushButton::clicked, this, &DesignsView::overlaySelection);
    connect(exportButton, &QPushButton::clicked, this, &DesignsView::exportSelection);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& index) { emit openDesign(proxy_->mapToSource(index).row()); });
}

void DesignsView::setFlagFilter(FlagFilter f) {
    if (flagFilter_->currentIndex() != int(f)) flagFilter_->setCurrentIndex(int(f));
    static_cast<DesignFilterProxy*>(proxy_)->setFlagFilter(f);
}

void DesignsView::setRunFilter(qint64 run) {
    static_cast<DesignFilterProxy*>(proxy_)->setRun(run);
    runFilterLabel_->setVisible(run != 0);
    runFilterLabel_->setText(tr("Showing the designs of run %1. <a href=\"all\">Show every run</a>").arg(run));
}

QList<int> DesignsView::selectedSourceRows() const {
    QList<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows << proxy_->mapToSource(i).row();
    return rows;
}

void DesignsView::flagSelection(const QString& flag) {
    const QList<int> rows = selectedSourceRows();
    // Toggle: when every selected design already has the flag, clear it instead.
    bool all = !rows.isEmpty();
    for (int r : rows) all = all && model_->row(r).flag == flag;
    for (int r : rows) model_->setFlag(r, all ? QString() : flag);
}

void DesignsView::starSelection() { flagSelection(QStringLiteral("starred")); }
void DesignsView::discardSelection() { flagSelection(QStringLiteral("discarded")); }

}  // namespace carbon::ui
