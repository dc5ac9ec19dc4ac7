// Reading a vep result and the table model over it (see vep_result.h).
#include "vep_result.h"

#include <QFile>
#include <cmath>
#include <limits>

#include "carbon/common.h"

namespace carbon::ui {

namespace {

const QStringList kColumns = {"chrom", "pos", "id", "ref", "alt", "status", "window_start", "window_end",
                              "site_log_odds", "window_delta", "window_delta_rc", "window_delta_mean"};

double number(const QString& s, bool& ok) {
    if (s == QLatin1String("NA")) {
        ok = true;
        return std::numeric_limits<double>::quiet_NaN();
    }
    return s.toDouble(&ok);
}

}  // namespace

bool looksLikeVepResult(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(17) == "##carbon-cli vep ";
}

VepResult readVepResult(const QString& path, const std::atomic<bool>* cancel) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) throw Error(path.toStdString() + ": cannot open: " + f.errorString().toStdString());
    VepResult r;
    r.path = path;
    qint64 line_no = 0;
    bool saw_columns = false;
    auto fail = [&](const QString& why) { return Error(QStringLiteral("%1:%2: %3").arg(path).arg(line_no).arg(why).toStdString()); };
    while (!f.atEnd()) {
        if (cancel && cancel->load()) return VepResult{};
        QString line = QString::fromUtf8(f.readLine());
        if (line.endsWith('\n')) line.chop(1);
        if (line.endsWith('\r')) line.chop(1);
        ++line_no;
        if (line_no == 1 && !line.startsWith(QLatin1String("##carbon-cli vep ")))
            throw fail(QStringLiteral("not a carbon-cli vep result (its first line is not '##carbon-cli vep VERSION')"));
        if (line.isEmpty()) continue;
        if (line.startsWith(QLatin1String("##"))) {
            const int eq = line.indexOf('=');
            const QString key = line.mid(2, eq - 2), value = eq < 0 ? QString() : line.mid(eq + 1);
            if (key == QLatin1String("reference")) r.reference = value;
            if (key == QLatin1String("model")) r.model = value;
            if (key == QLatin1String("window_bp")) r.windowBp = value.toLongLong();
            continue;
        }
        if (line.startsWith('#')) {
            if (line.mid(1).split('\t') != kColumns) throw fail(QStringLiteral("the column line is not vep's: %1").arg(line.left(120)));
            saw_columns = true;
            continue;
        }
        if (!saw_columns) throw fail(QStringLiteral("a row before the #chrom column line"));
        const QStringList c = line.split('\t');
        if (c.size() != kColumns.size())
            throw fail(QStringLiteral("%1 columns, a vep row has %2").arg(c.size()).arg(kColumns.size()));
        VepRow row;
        bool ok = true, all = true;
        row.chrom = c[0];
        row.pos = c[1].toLongLong(&ok);
        all &= ok && row.pos > 0;
        row.id = c[2];
        row.ref = c[3];
        row.alt = c[4];
        row.status = c[5];
        if (c[6] != QLatin1String("NA")) {
            row.windowStart = c[6].toLongLong(&ok);
            all &= ok;
            row.windowEnd = c[7].toLongLong(&ok);
            all &= ok && row.windowStart >= 1 && row.windowEnd >= row.windowStart;
        }
        row.siteLogOdds = number(c[8], ok);
        all &= ok;
        row.delta = number(c[9], ok);
        all &= ok;
        row.deltaRc = number(c[10], ok);
        all &= ok;
        row.deltaMean = number(c[11], ok);
        all &= ok;
        if (!all) throw fail(QStringLiteral("a field that is not a number where vep writes one"));
        if (!r.statuses.contains(row.status)) r.statuses.append(row.status);
        r.rows.append(std::move(row));
    }
    if (!saw_columns) throw Error(path.toStdString() + ": no #chrom column line (is this a vep result?)");
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
        return tr("Not scored: %1 (see docs/vep.md)").arg(r.status);
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (index.column()) {
        case Chrom: return r.chrom;
        case Pos: return role == SortRole ? QVariant(double(r.pos)) : QVariant(r.pos);
        case Id: return r.id;
        case Ref: return r.ref;
        case Alt: return r.alt;
        case Status: return r.status;
        case SiteLogOdds: return num(r.siteLogOdds);
        case Delta: return num(r.delta);
        case DeltaRc: return num(r.deltaRc);
        case DeltaMean: return num(r.deltaMean);
        case WindowStart: return r.scored() ? QVariant(r.windowStart) : QVariant(QStringLiteral("NA"));
        case WindowEnd: return r.scored() ? QVariant(r.windowEnd) : QVariant(QStringLiteral("NA"));
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
    if (status_ == QLatin1String("scored") ? !r.scored() : (!status_.isEmpty() && r.status != status_)) return false;
    if (text_.isEmpty()) return true;
    const QString locus = r.chrom + ':' + QString::number(r.pos);
    for (const QString* s : {&r.chrom, &r.id, &r.ref, &r.alt})
        if (s->contains(text_, Qt::CaseInsensitive)) return true;
    return locus.startsWith(text_, Qt::CaseInsensitive);
}

}  // namespace carbon::ui
