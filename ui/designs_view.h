// DesignsView: the designs table (DesignTableModel behind a QSortFilterProxyModel), a filter
// box over the bases, multi-row selection, and "open" on double-click or Enter.
#pragma once

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace carbon::ui {

class DesignTableModel;

class DesignsView : public QWidget {
    Q_OBJECT
public:
    DesignsView(DesignTableModel* model, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    // Source-model rows of the selected designs, in view order.
    QList<int> selectedSourceRows() const;

signals:
    void openDesign(int sourceRow);

private:
    DesignTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QTableView* table_;
};

}  // namespace carbon::ui
