// DesignsView: the designs table (DesignTableModel behind a sorting / filtering proxy), a filter
// over the bases and one over the user's verdict (all, starred, hide discarded), multi-row
// selection, star / discard, "open" on double-click or Enter, export / overlay of the selected
// designs, the synthesis check (a vendor's rules or a file of the user's), and the project's stored
// selections (shown one at a time; Choose Diverse… asks for a new one).
#pragma once

#include <QWidget>

#include "views/synthesis_rules_combo.h"
#include "workers/project_types.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
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
    // Checks every design against a synthesis rule set: a built-in id or a rules file's path ("":
    // none); the error when it cannot be read (the check is then none).
    QString setSynthesisRules(const QString& id);
    SynthesisRulesCombo* synthesisCombo() const { return synthesis_; }
    // Reads a rules file of the user's and checks the designs against it; the error, or empty.
    QString addRulesFile(const QString& path);
    // The project's stored selections, offered to show; showing one ("" : every design) filters
    // the table to its designs and selects them in its order.
    void setSelections(const SelectionList& selections);
    void showSelection(const QString& name);
    QString shownSelection() const;
    // The stored ids of the selected designs, in view order; the shown selection's own order when
    // exactly its designs are selected (Order Selected Designs orders them so).
    QList<qint64> selectedDesignIds() const;
    QComboBox* selectionCombo() const { return selection_; }
    QPushButton* chooseDiverseButton() const { return chooseDiverse_; }
    // Source rows the filters let through, in view order.
    QList<int> shownSourceRows() const;

public slots:
    void starSelection();     // toggles: starred rows become unflagged
    void discardSelection();  // toggles likewise

signals:
    void openDesign(int sourceRow);
    void selectionChanged();  // the selected rows changed (selectedSourceRows)
    void exportSelection();
    void overlaySelection();
    void rulesFileRequested();      // the synthesis choice's "Rules File…"
    void synthesisRulesFailed(const QString& error);  // a rules file chosen could not be read
    void chooseDiverseRequested();  // Choose Diverse…

private:
    void flagSelection(const QString& flag);

    DesignTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QComboBox* flagFilter_;
    SynthesisRulesCombo* synthesis_;
    QComboBox* selection_;
    QPushButton* chooseDiverse_;
    SelectionList selections_;
    QLabel* runFilterLabel_;
    QTableView* table_;
};

}  // namespace carbon::ui
