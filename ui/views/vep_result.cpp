// Reading a vep result and the table model over it (see vep_result.h).
#include "vep_result.h"

#include <QFile>
#include <cmath>
#include <limits>

#include "carbon/storage/vep_result.h"
#include "carbon/support/common.h"

namespace carbon::ui {

void VepResult::add(VepRow row) {
    const QString status = QString::fromStdString(row.status);
    if (!statuses.contains(status)) statuses.append(status);
    rows.append(std::move(row));
}

bool looksLikeVepResult(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(17) == "##carbon-cli vep ";
}

VepResult readVepResult(const QString& path, const std::atomic<bool>* cancel) {
    storage::VepResultReader in(path.toStdString());
    VepResult r;
    r.path = path;
    r.reference = QString::fromStdString(in.setting("reference").value_or(""));
    r.model = QString::fromStdString(in.setting("model").value_or(""));
    r.windowBp = QString::fromStdString(in.setting("window_bp").value_or("0")).toLongLong();
    storage::VepRow row;
    while (in.next(row)) {
        if (cancel && cancel->load()) return VepResult{};
        r.add(row);
    }
    return r;
}

void VepTableModel::setResult(VepResult result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

QVariant VepTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(result_.rows.size())) return {};
    const VepRow& r = result_.rows[index.row()];
    auto num = [&](double v) -> QVariant {
        if (role == SortRole) return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
        if (role == Qt::DisplayRole) return std::isnan(v) ? QStringLiteral("NA") : QString::number(v, 'g', 6);
        return {};
    };
    if (role == Qt::TextAlignmentRole)
        return index.column() >= SiteLogOdds || index.column() == Pos ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Status && !r.scored())
        return tr("Not scored: %1 (see docs/vep.md)").arg(QString::fromStdString(r.status));
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (index.column()) {
        case Chrom: return QString::fromStdString(r.chrom);
        case Pos: return role == SortRole ? QVariant(double(r.pos)) : QVariant(qint64(r.pos));
        case Id: return QString::fromStdString(r.id);
        case Ref: return QString::fromStdString(r.ref);
        case Alt: return QString::fromStdString(r.alt);
        case Status: return QString::fromStdString(r.status);
        case SiteLogOdds: return num(r.site_log_odds);
        case Delta: return num(r.window_delta);
        case DeltaRc: return num(r.window_delta_rc);
        case DeltaMean: return num(r.window_delta_mean);
        case WindowStart: return r.scored() ? QVariant(qint64(r.window_start)) : QVariant(QStringLiteral("NA"));
        case WindowEnd: return r.scored() ? QVariant(qint64(r.window_end)) : QVariant(QStringLiteral("NA"));
        default: return {};
    }
}

QVariant VepTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Chrom", "Pos", "ID", "Ref", "Alt", "Status", "Site log-odds", "Δ window",
                                         "Δ window (rc)", "Δ mean", "Window start", "Window end"};
    return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

VepFilterProxy::VepFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) { setSortRole(VepTableModel::SortRole); }

void VepFilterProxy::setStatus(const QString& status) {
    status_ = status;
    invalidateFilter();
}

void VepFilterProxy::setText(const QString& text) {
    text_ = text.trimmed();
    invalidateFilter();
}

bool VepFilterProxy::filterAcceptsRow(int row, const QModelIndex&) const {
    const auto* m = static_cast<const VepTableModel*>(sourceModel());
    const VepRow& r = m->row(row);
    if (status_ == QLatin1String("scored") ? !r.scored() : (!status_.isEmpty() && QString::fromStdString(r.status) != status_)) return false;
    if (text_.isEmpty()) return true;
    const QString chrom = QString::fromStdString(r.chrom);
    const QString locus = chrom + ':' + QString::number(r.pos);
    for (const std::string* s : {&r.chrom, &r.id, &r.ref, &r.alt})
        if (QString::fromStdString(*s).contains(text_, Qt::CaseInsensitive)) return true;
    return locus.startsWith(text_, Qt::CaseInsensitive);
}

}  // namespace carbon::ui
