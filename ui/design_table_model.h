// DesignTableModel: the generated designs as a read-only table (rank, scores, GC%, length,
// bases). Numbers are served under SortRole so a QSortFilterProxyModel sorts them as numbers.
// Each row remembers the run and the design region it was generated for.
#pragma once

#include <QAbstractTableModel>
#include <QList>

#include "carbon/fns_generate.h"

namespace carbon::ui {

struct DesignRow {
    carbon::Design design;
    double gcPercent = 0;
    quint64 run = 0;
    qsizetype regionStart = 0, regionLength = 0;  // span of the sequence the design replaces
};

class DesignTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RankColumn, DesignScoreColumn, RankingScoreColumn, GcColumn, LengthColumn, RunColumn, BasesColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit DesignTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void addDesign(const carbon::Design& design, quint64 run, qsizetype regionStart, qsizetype regionLength);
    void clear();
    const DesignRow& row(int r) const { return rows_[r]; }

private:
    QList<DesignRow> rows_;
};

}  // namespace carbon::ui
