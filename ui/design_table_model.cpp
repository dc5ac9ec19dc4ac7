// DesignTableModel: display and numeric sort data for the designs table.
#include "design_table_model.h"

#include <QFont>
#include <QFontDatabase>

namespace carbon::ui {

DesignTableModel::DesignTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int DesignTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int DesignTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DesignTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const DesignRow& r = rows_[index.row()];
    const Design& d = r.design;
    if (role == SortRole) {
        switch (index.column()) {
            case RankColumn: return d.rank;
            case DesignScoreColumn: return d.design_logp;
            case RankingScoreColumn: return d.ranking_logp;
            case GcColumn: return r.gcPercent;
            case LengthColumn: return qulonglong(d.bases.size());
            case RunColumn: return r.run;
            case BasesColumn: return QString::fromStdString(d.bases);
        }
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case RankColumn: return d.rank;
            case DesignScoreColumn: return QString::number(d.design_logp, 'f', 4);
            case RankingScoreColumn: return QString::number(d.ranking_logp, 'f', 4);
            case GcColumn: return QString::number(r.gcPercent, 'f', 1);
            case LengthColumn: return qulonglong(d.bases.size());
            case RunColumn: return r.run;
            case BasesColumn: {
                // The full sequence in the tooltip; the cell shows the start of long designs.
                const QString s = QString::fromStdString(d.bases);
                return role == Qt::ToolTipRole || s.size() <= 80 ? s : s.left(80) + QChar(0x2026);
            }
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != BasesColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && index.column() == BasesColumn) return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    return {};
}

QVariant DesignTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case RankColumn: return tr("Rank");
            case DesignScoreColumn: return tr("Design score");
            case RankingScoreColumn: return tr("Ranking score");
            case GcColumn: return tr("GC %");
            case LengthColumn: return tr("Length");
            case RunColumn: return tr("Run");
            case BasesColumn: return tr("Bases");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case DesignScoreColumn: return tr("Mean base-level log p over the design's bases");
            case RankingScoreColumn: return tr("Mean base-level log p over the design and the right flank");
            default: break;
        }
    }
    return {};
}

void DesignTableModel::addDesign(const carbon::Design& design, quint64 run, qsizetype regionStart, qsizetype regionLength) {
    DesignRow r{design, 0.0, run, regionStart, regionLength};
    qsizetype gc = 0;
    for (char c : design.bases) gc += (c == 'G' || c == 'C');
    r.gcPercent = design.bases.empty() ? 0.0 : 100.0 * double(gc) / double(design.bases.size());
    beginInsertRows({}, int(rows_.size()), int(rows_.size()));
    rows_.append(std::move(r));
    endInsertRows();
}

void DesignTableModel::clear() {
    beginResetModel();
    rows_.clear();
    endResetModel();
}

}  // namespace carbon::ui
