// A `carbon-cli vep` / `carbon-cluster vep` result read back for the desktop application: the rows
// (one per variant and alternative), the settings from its '#' header (the reference it was
// scored against), a table model over the rows and a proxy that filters them by status and text
// and sorts numbers as numbers (NA last).
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>

#include "carbon/storage/project.h"


namespace carbon::ui {

// A row is storage's VepRow (carbon/storage/project.h), as the TSV and the project hold it.
using VepRow = carbon::storage::VepRow;

struct VepResult {
    QString path;       // the TSV read, or the project of runId
    qint64 runId = 0;   // a vep run stored in the open project; 0 for a TSV
    QString reference;  // ##reference= as written (resolved by the caller)
    QString model;
    qint64 windowBp = 0;
    QVector<VepRow> rows;
    QStringList statuses;  // the statuses present, in order of first appearance
    void add(VepRow row);  // keeps statuses up to date
};

// Reads a vep TSV (through storage's VepResultReader). Throws carbon::Error naming the file and
// line for anything that is not one (no '##carbon-cli vep' first line, other columns, a row with a
// wrong field). `cancel`, when set from another thread, stops the read (the result is then empty).
VepResult readVepResult(const QString& path, const std::atomic<bool>* cancel = nullptr);
// Whether the file starts like a vep result (for drops and the command line).
bool looksLikeVepResult(const QString& path);

class VepTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Chrom, Pos, Id, Ref, Alt, Status, SiteLogOdds, Delta, DeltaRc, DeltaMean, WindowStart, WindowEnd, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(VepResult result);
    const VepResult& result() const { return result_; }
    const VepRow& row(int r) const { return result_.rows[r]; }
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(result_.rows.size()); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    static constexpr int SortRole = Qt::UserRole + 1;  // numbers as doubles (NA: +inf, sorted last)

private:
    VepResult result_;
};

class VepFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit VepFilterProxy(QObject* parent = nullptr);
    // "" for every status; "scored" for ok and window_clipped; else one status.
    void setStatus(const QString& status);
    void setText(const QString& text);  // in chrom, id, ref, alt or chrom:pos

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    QString status_, text_;
};

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::VepResult)
