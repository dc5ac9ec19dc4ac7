// FeatureList: the Features dock's panel. A header naming the sequence whose features these are,
// a sortable table (FeatureTableModel through a proxy), and Edit Qualifiers… for the feature
// selected. A click on a row asks to go to that feature (featureActivated with the model's row).
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace carbon::ui {

class FeatureTableModel;

class FeatureList : public QWidget {
    Q_OBJECT
public:
    explicit FeatureList(FeatureTableModel* model, QWidget* parent = nullptr);

    QTableView* view() const { return view_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QPushButton* editButton() const { return edit_; }
    QLabel* header() const { return header_; }
    void setSequenceName(const QString& name);
    // The model row of the selected feature, -1 when none.
    int currentRow() const;

signals:
    void featureActivated(int modelRow);
    void editRequested(int modelRow);

private:
    void updateButtons();

    FeatureTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QLabel* header_;
    QPushButton* edit_;
};

}  // namespace carbon::ui
