// DesignsView: the designs table (DesignTableModel behind a sorting / filtering proxy), a filter
// over the bases and one over the user's verdict (all, starred, hide discarded), multi-row
// selection, star / discard, "open" on double-click or Enter, and export / overlay of the
// selected designs.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace carbon::ui {

class DesignTableModel;

class DesignsView : public QWidget {
    Q_OBJECT
public:
    enum class FlagFilter { All, Starred, HideDiscarded };

    DesignsView(DesignTableModel* model, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    // Source-model rows of the selected designs, in view order.
    QList<int> selectedSourceRows() const;
    // Selects these source rows (those the filter hides stay unselected) and scrolls to the first.
    void selectSourceRows(const QList<int>& rows);
    void setFlagFilter(FlagFilter f);
    void setRunFilter(qint64 run);  // only the designs of one run; 0: every run
    // Checks every design against a built-in synthesis rule set by id ("" or an unknown id: none).
    void setSynthesisRules(const QString& id);
    QComboBox* synthesisCombo() const { return synthesis_; }

public slots:
    void starSelection();     // toggles: starred rows become unflagged
    void discardSelection();  // toggles likewise

signals:
    void openDesign(int sourceRow);
    void selectionChanged();  // the selected rows changed (selectedSourceRows)
    void exportSelection();
    void overlaySelection();

private:
    void flagSelection(const QString& flag);

    DesignTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QComboBox* flagFilter_;
    QComboBox* synthesis_;
    QLabel* runFilterLabel_;
    QTableView* table_;
};

}  // namespace carbon::ui
