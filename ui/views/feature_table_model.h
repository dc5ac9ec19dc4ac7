// FeatureTableModel: the features of the document in the editor, one row per feature (an imported
// feature's parts together; each of the user's annotations on its own): type, name, start, end,
// strand, length, parts. Rebuilt whenever the document's regions change, so it never shows another
// sequence's features. Sorting through a QSortFilterProxyModel reads Qt::UserRole (numbers as
// numbers).
#pragma once

#include <QAbstractTableModel>
#include <QVector>

namespace carbon::ui {

class SequenceDocument;

class FeatureTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Type, Name, Start, End, Strand, Length, Parts, ColumnCount };
    struct Row {
        QVector<int> regions;  // indexes into the document's regions, by part
        int feature = -1;      // its place in the stored feature table (-1: the user's annotation)
        qsizetype start = 0, end = 0;  // 0-based, half-open, over every part
    };

    explicit FeatureTableModel(SequenceDocument* doc, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    const Row& row(int r) const { return rows_.at(r); }

public slots:
    void rebuild();

private:
    SequenceDocument* doc_;
    QVector<Row> rows_;
};

}  // namespace carbon::ui
