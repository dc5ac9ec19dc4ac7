// FeatureTableModel (see feature_table_model.h).
#include "feature_table_model.h"

#include <QBrush>
#include <QLocale>
#include <map>

#include "carbon/storage/flatfile.h"
#include "document/sequence_document.h"
#include "views/feature_style.h"

namespace carbon::ui {

FeatureTableModel::FeatureTableModel(SequenceDocument* doc, QObject* parent) : QAbstractTableModel(parent), doc_(doc) {
    connect(doc_, &SequenceDocument::regionsChanged, this, &FeatureTableModel::rebuild);
    connect(doc_, &SequenceDocument::opened, this, &FeatureTableModel::rebuild);
    rebuild();
}

void FeatureTableModel::rebuild() {
    beginResetModel();
    rows_.clear();
    std::map<int, int> rowOfFeature;
    const QList<Region>& rs = doc_->regions();
    for (int i = 0; i < rs.size(); ++i) {
        const Region& r = rs[i];
        if (r.kind != Region::Kind::Annotation) continue;
        if (r.feature >= 0) {
            auto [it, added] = rowOfFeature.emplace(r.feature, int(rows_.size()));
            if (added) rows_.append(Row{{}, r.feature, r.start, r.end});
            Row& row = rows_[it->second];
            row.regions.append(i);
            row.start = std::min(row.start, r.start);
            row.end = std::max(row.end, r.end);
        } else {
            rows_.append(Row{{i}, -1, r.start, r.end});
        }
    }
    for (Row& row : rows_)
        std::sort(row.regions.begin(), row.regions.end(), [&](int a, int b) { return rs[a].part < rs[b].part; });
    endResetModel();
}

int FeatureTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int FeatureTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FeatureTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const Row& row = rows_[index.row()];
    const Region& first = doc_->regions().at(row.regions.first());
    qsizetype length = 0;
    for (int i : row.regions) length += doc_->regions().at(i).end - doc_->regions().at(i).start;
    const QString name = first.feature >= 0 ? QString::fromStdString(carbon::storage::feature_name(first.qualifiers)) : first.label;
    const bool sortKey = role == Qt::UserRole;
    if (role == Qt::DisplayRole || sortKey) {
        switch (index.column()) {
            case Type: return first.key.isEmpty() ? tr("annotation") : first.key;
            case Name: return name;
            case Start: return sortKey ? QVariant(qlonglong(row.start + 1)) : QVariant(QLocale().toString(qlonglong(row.start + 1)));
            case End: return sortKey ? QVariant(qlonglong(row.end)) : QVariant(QLocale().toString(qlonglong(row.end)));
            case Strand: return first.reverse ? QStringLiteral("−") : QStringLiteral("+");
            case Length: return sortKey ? QVariant(qlonglong(length)) : QVariant(QLocale().toString(qlonglong(length)));
            case Parts: return sortKey ? QVariant(int(row.regions.size())) : QVariant(QString::number(row.regions.size()));
        }
    }
    if (role == Qt::DecorationRole && index.column() == Type) return featureColor(first.key);
    if (role == Qt::ToolTipRole) return featureTooltip(first).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    if (role == Qt::TextAlignmentRole && index.column() >= Start && index.column() != Strand)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant FeatureTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case Type: return tr("Type");
        case Name: return tr("Name");
        case Start: return tr("Start");
        case End: return tr("End");
        case Strand: return tr("Strand");
        case Length: return tr("Length");
        case Parts: return tr("Parts");
    }
    return {};
}

}  // namespace carbon::ui
