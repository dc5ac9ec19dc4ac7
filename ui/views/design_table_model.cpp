// DesignTableModel: display and numeric sort data for the designs table.
#include "design_table_model.h"

#include <QColor>
#include <QFont>
#include <QFontDatabase>
#include <algorithm>

namespace carbon::ui {

DesignTableModel::DesignTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int DesignTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int DesignTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount + int(predictionKeys_.size());
}

int DesignTableModel::predictionColumn(const QString& output) const {
    for (qsizetype i = 0; i < predictionKeys_.size(); ++i)
        if (QString::fromStdString(predictionKeys_[i].output).compare(output, Qt::CaseInsensitive) == 0) return ColumnCount + int(i);
    return -1;
}

QStringList DesignTableModel::predictionNames() const {
    QStringList names;
    for (const PredictionKey& k : predictionKeys_) names << QString::fromStdString(k.output);
    return names;
}

QString DesignTableModel::predictionLabel(int k) const {
    if (k < 0 || k >= predictionKeys_.size()) return {};
    const PredictionKey& key = predictionKeys_[k];
    int sharing = 0;
    for (const PredictionKey& other : predictionKeys_) sharing += other.output == key.output;
    return sharing > 1 ? tr("%1 (%2)").arg(QString::fromStdString(key.output), QString::fromStdString(key.predictor))
                       : tr("%1 (pred.)").arg(QString::fromStdString(key.output));
}

const carbon::storage::DesignPrediction* DesignTableModel::prediction(const DesignRow& r, int column) const {
    const qsizetype k = column - ColumnCount;
    if (k < 0 || k >= predictionKeys_.size()) return nullptr;
    const PredictionKey& key = predictionKeys_[k];
    for (const carbon::storage::DesignPrediction& v : r.predictions)
        if (v.output == key.output && v.predictor == key.predictor) return &v;
    return nullptr;
}

QList<DesignTableModel::PredictionKey> DesignTableModel::newPredictionKeys(const QList<DesignRow>& rows) const {
    QList<PredictionKey> out;
    for (const DesignRow& r : rows)
        for (const carbon::storage::DesignPrediction& v : r.predictions) {
            const PredictionKey key{v.predictor, v.output};
            if (!predictionKeys_.contains(key) && !out.contains(key)) out << key;
        }
    return out;
}

void DesignTableModel::setPredictions(const QList<int>& rows, const QList<std::vector<carbon::storage::DesignPrediction>>& predictions) {
    QList<DesignRow> incoming;
    for (qsizetype i = 0; i < rows.size() && i < predictions.size(); ++i) {
        DesignRow r;
        r.predictions = predictions[i];
        incoming.append(std::move(r));
    }
    const QList<PredictionKey> added = newPredictionKeys(incoming);
    if (!added.isEmpty()) {
        const int first = columnCount();
        beginInsertColumns({}, first, first + int(added.size()) - 1);
        predictionKeys_ += added;
        endInsertColumns();
    }
    for (qsizetype i = 0; i < rows.size() && i < predictions.size(); ++i) {
        const int row = rows[i];
        if (row < 0 || row >= rows_.size()) continue;
        auto& mine = rows_[row].predictions;
        for (const carbon::storage::DesignPrediction& v : predictions[i]) {
            auto same = std::find_if(mine.begin(), mine.end(), [&](const auto& m) { return m.predictor == v.predictor && m.output == v.output; });
            if (same != mine.end()) *same = v;
            else mine.push_back(v);
        }
        emit dataChanged(index(row, ColumnCount), index(row, columnCount() - 1));
    }
}

QVariant DesignTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const DesignRow& r = rows_[index.row()];
    const Design& d = r.design;
    if (role == FlagRole) return r.flag;
    auto minScore = [&]() -> QVariant {
        if (std::isnan(r.minBaseLogp)) return role == SortRole ? QVariant(-1e300) : QVariant(QString());
        return role == SortRole ? QVariant(r.minBaseLogp) : QVariant(QString::number(r.minBaseLogp, 'f', 3));
    };
    const QString constraints = r.constraintsActive ? tr("met") : tr("none");
    int hits = 0;
    for (int h : r.motifHits) hits += h;
    const bool scanned = !r.motifHits.isEmpty();
    if (index.column() >= ColumnCount) {  // a predicted output
        const carbon::storage::DesignPrediction* v = prediction(r, index.column());
        const bool known = v && !std::isnan(v->value);
        if (role == SortRole) return known ? v->value : -1e300;
        if (role == Qt::DisplayRole) return known ? QString::number(v->value, 'g', 5) : QString();
        if (role == Qt::ToolTipRole) {
            if (!v) return tr("Not predicted for this design");
            const QString t = tr("%1 = %2, predicted by %3")
                                  .arg(QString::fromStdString(v->output), known ? QString::number(v->value, 'g', 8) : tr("not predicted"),
                                       QString::fromStdString(v->predictor));
            return t + QLatin1Char('\n') + (v->held_out.empty() ? tr("Held-out accuracy not known (the predictor does not carry it)")
                                                                : tr("Held-out accuracy: %1").arg(QString::fromStdString(v->held_out)));
        }
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
            case FlagColumn: return r.flag == QLatin1String("starred") ? 2 : r.flag.isEmpty() ? 1 : 0;
            case MinBaseScoreColumn: return minScore();
            case ConstraintsColumn: return constraints;
            case SynthesisColumn: return r.synthesisBreaches;
            case MotifHitsColumn: return scanned ? hits : -1;
            case SpecificityColumn: return std::isnan(d.specificity) ? -1e300 : d.specificity;
            case ObjectiveColumn: return std::isnan(r.objective) ? -1e300 : r.objective;
            case RankColumn: return d.rank;
            case DesignScoreColumn: return std::isnan(d.design_logp) ? -1e300 : d.design_logp;
            case RankingScoreColumn: return std::isnan(d.ranking_logp) ? -1e300 : d.ranking_logp;
            case GcColumn: return r.gcPercent;
            case LengthColumn: return qulonglong(d.bases.size());
            case RunColumn: return r.run;
            case BasesColumn: return QString::fromStdString(d.bases);
        }
    }
    if (role == Qt::AccessibleTextRole && index.column() == FlagColumn)
        return r.flag.isEmpty() ? tr("not flagged") : r.flag;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case FlagColumn:
                if (role == Qt::ToolTipRole) return r.flag.isEmpty() ? tr("Not flagged (S: star, D: discard)") : r.flag;
                return r.flag == QLatin1String("starred") ? QStringLiteral("\u2605") : r.flag.isEmpty() ? QString() : QStringLiteral("\u2717");
            case MinBaseScoreColumn: return minScore();
            case ConstraintsColumn:
                if (role == Qt::ToolTipRole && r.constraintsActive)
                    return tr("Designed under constraints, which generation enforces (%n token(s) revisited)", nullptr, int(d.backtracks));
                return constraints;
            case SynthesisColumn:
                if (r.synthesisBreaches < 0)
                    return role == Qt::ToolTipRole ? tr("Choose a vendor's rule set above the table to check the designs against it")
                                                   : QString();
                if (role == Qt::ToolTipRole) return r.synthesisDetail;
                return r.synthesisBreaches == 0 ? tr("ok") : QStringLiteral("\u2717 ") + r.synthesisKinds;
            case MotifHitsColumn: {
                if (!scanned) return QString();
                if (role == Qt::DisplayRole) return hits;
                QStringList lines;
                for (qsizetype i = 0; i < r.motifHits.size() && i < motifNames_.size(); ++i)
                    if (r.motifHits[i] > 0) lines << tr("%1: %n hit(s)", nullptr, r.motifHits[i]).arg(motifNames_[i]);
                return lines.isEmpty() ? tr("No hit of the %n loaded matrices", nullptr, int(motifNames_.size())) : lines.join(QLatin1Char('\n'));
            }
            case SpecificityColumn:
                if (std::isnan(d.specificity)) return QString();
                return role == Qt::DisplayRole ? QString::number(d.specificity, 'f', 4)
                                               : tr("Mean log p(base | tags) - log p(base | the guidance's other stream): %1")
                                                     .arg(d.specificity, 0, 'f', 4);
            case ObjectiveColumn:
                if (std::isnan(r.objective)) return QString();
                return role == Qt::DisplayRole ? QString::number(r.objective, 'g', 5)
                                               : tr("The run's objective for this design: %1").arg(r.objective, 0, 'g', 8);
            case RankColumn: return d.rank;
            case DesignScoreColumn: return std::isnan(d.design_logp) ? QString() : QString::number(d.design_logp, 'f', 4);  // NaN: not scored
            case RankingScoreColumn: return std::isnan(d.ranking_logp) ? QString() : QString::number(d.ranking_logp, 'f', 4);
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
    if (role == Qt::ForegroundRole && index.column() == SynthesisColumn && r.synthesisBreaches > 0) return QColor(0xb0, 0x00, 0x20);
    if (role == Qt::TextAlignmentRole && index.column() != BasesColumn && index.column() != ConstraintsColumn &&
        index.column() != SynthesisColumn)
        return int(index.column() == FlagColumn ? Qt::AlignCenter : Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && index.column() == BasesColumn) return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    return {};
}

QVariant DesignTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (section >= ColumnCount && section - ColumnCount < predictionKeys_.size()) {
        const PredictionKey& key = predictionKeys_[section - ColumnCount];
        const QString name = QString::fromStdString(key.output);
        if (role == Qt::DisplayRole) return predictionLabel(section - ColumnCount);
        if (role == Qt::ToolTipRole)
            return tr("%1 as predictor %2 predicts it for each design (hover a cell for its held-out accuracy); filter with %3>VALUE "
                      "(the first column of that name)").arg(name, QString::fromStdString(key.predictor), name.toLower());
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
            case FlagColumn: return QStringLiteral("\u2605");
            case MinBaseScoreColumn: return tr("Min base score");
            case ConstraintsColumn: return tr("Constraints");
            case SynthesisColumn: return tr("Synthesis");
            case MotifHitsColumn: return tr("Motif hits");
            case SpecificityColumn: return tr("Specificity");
            case ObjectiveColumn: return tr("Objective");
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
            case MinBaseScoreColumn: return tr("Lowest per-base log p in the design (its weakest base), read in context");
            case FlagColumn: return tr("Starred or discarded");
            case MotifHitsColumn: return tr("Hits of the loaded transcription-factor matrices in the design, both strands (Edit > Scan Motifs)");
            case SynthesisColumn:
                return synthesis_ ? tr("The rules of %1 each design breaks (hover a cell for where); filter with synthesis=0")
                                        .arg(QString::fromStdString(synthesis_->name))
                                  : tr("Choose a vendor's rule set above the table to check the designs against it");
            case SpecificityColumn:
                return tr("Designs made with tag guidance: mean per-base log p under the design's tags minus under the other "
                          "stream (no tags, or the negative tags)");
            case ObjectiveColumn:
                return tr("Designs ranked or evolved under an activity predictor: the run's objective (an output, a MinGap "
                          "specificity or a weighted sum; the run's settings say which); filter with objective>VALUE");
            default: break;
        }
    }
    return {};
}

void DesignTableModel::addDesign(const carbon::Design& design, quint64 run, qsizetype regionStart, qsizetype regionLength) {
    DesignRow r;
    r.design = design;
    r.run = run;
    r.regionStart = regionStart;
    r.regionLength = regionLength;
    addRow(std::move(r));
}

void DesignTableModel::derive(DesignRow& r) const {
    qsizetype gc = 0;
    for (char c : r.design.bases) gc += (c == 'G' || c == 'C');
    r.gcPercent = r.design.bases.empty() ? 0.0 : 100.0 * double(gc) / double(r.design.bases.size());
    r.synthesisBreaches = -1;
    r.synthesisKinds.clear();
    r.synthesisDetail.clear();
    if (!synthesis_) return;
    const carbon::SynthesisRuleSet& set = *synthesis_;
    try {
        static const carbon::storage::ConstructRecord kNone;
        const carbon::storage::ConstructRecord& c = r.construct ? *r.construct : kNone;
        const std::vector<carbon::SynthesisBreach> breaches = carbon::check_synthesis(set, c.upstream + r.design.bases + c.downstream);
        r.synthesisBreaches = int(breaches.size());
        QStringList kinds, lines;
        for (const carbon::SynthesisBreach& b : breaches) {
            const carbon::SynthesisRule& rule = set.rules[b.rule];
            kinds << QString::fromLatin1(carbon::synthesis_rule_kind_name(rule.kind));
            lines << tr("%1 (line %2): %3").arg(QString::fromStdString(rule.describe())).arg(rule.line).arg(QString::fromStdString(b.what));
        }
        kinds.removeDuplicates();
        r.synthesisKinds = kinds.join(QStringLiteral(", "));
        const QString what = c.name.empty() ? tr("the design alone: its run was made in no construct")
                                            : tr("construct '%1': %2 bp upstream, the design, %3 bp downstream, junctions included; "
                                                 "positions are the construct's")
                                                  .arg(QString::fromStdString(c.name)).arg(c.upstream.size()).arg(c.downstream.size());
        r.synthesisDetail = breaches.empty() ? tr("Keeps every rule of %1 (%2)").arg(QString::fromStdString(set.name), what)
                                             : tr("Breaks %n rule(s) of %1 (%2):", nullptr, int(breaches.size()))
                                                       .arg(QString::fromStdString(set.name), what) +
                                                   QLatin1Char('\n') + lines.join(QLatin1Char('\n'));
    } catch (const std::exception& e) {  // bases other than A, C, G, T (or none): not something to order
        r.synthesisBreaches = 1;
        r.synthesisKinds = r.design.bases.empty() ? tr("empty") : tr("not A/C/G/T");
        r.synthesisDetail = QString::fromUtf8(e.what());
    }
}

void DesignTableModel::setSynthesisRules(std::shared_ptr<const carbon::SynthesisRuleSet> rules) {
    synthesis_ = std::move(rules);
    for (DesignRow& r : rows_) derive(r);
    if (!rows_.isEmpty()) emit dataChanged(index(0, SynthesisColumn), index(int(rows_.size()) - 1, SynthesisColumn));
}

void DesignTableModel::addRow(DesignRow r) {
    derive(r);
    const QList<PredictionKey> added = newPredictionKeys({r});
    if (!added.isEmpty()) {
        const int first = columnCount();
        beginInsertColumns({}, first, first + int(added.size()) - 1);
        predictionKeys_ += added;
        endInsertColumns();
    }
    beginInsertRows({}, int(rows_.size()), int(rows_.size()));
    rows_.append(std::move(r));
    endInsertRows();
}

void DesignTableModel::setRows(QList<DesignRow> rows) {
    for (DesignRow& r : rows) derive(r);
    beginResetModel();
    rows_ = std::move(rows);
    predictionKeys_.clear();
    predictionKeys_ = newPredictionKeys(rows_);
    endResetModel();
}

void DesignTableModel::replaceRun(quint64 run, const QList<DesignRow>& rows) {
    for (qsizetype i = rows_.size() - 1; i >= 0; --i) {
        if (rows_[i].run != run || rows_[i].designId != 0) continue;
        beginRemoveRows({}, int(i), int(i));
        rows_.removeAt(i);
        endRemoveRows();
    }
    for (const DesignRow& r : rows) addRow(r);
}

void DesignTableModel::attachStored(quint64 request, qint64 runId, const QList<qint64>& designIds) {
    qsizetype next = 0;
    for (qsizetype i = 0; i < rows_.size() && next < designIds.size(); ++i) {
        DesignRow& r = rows_[i];
        if (r.run != request || r.designId != 0) continue;
        r.designId = designIds[next++];
        r.run = quint64(runId);
        emit dataChanged(index(int(i), 0), index(int(i), columnCount() - 1));
    }
}

void DesignTableModel::setMinBaseScores(quint64 run, const QList<double>& minima) {
    qsizetype next = 0;
    for (qsizetype i = 0; i < rows_.size() && next < minima.size(); ++i) {
        if (rows_[i].run != run || rows_[i].designId != 0) continue;
        rows_[i].minBaseLogp = minima[next++];
        emit dataChanged(index(int(i), MinBaseScoreColumn), index(int(i), MinBaseScoreColumn));
    }
}

void DesignTableModel::setFlag(int row, const QString& flag) {
    if (row < 0 || row >= rows_.size() || rows_[row].flag == flag) return;
    rows_[row].flag = flag;
    emit dataChanged(index(row, FlagColumn), index(row, FlagColumn));
    if (rows_[row].designId) emit flagChanged(rows_[row].designId, flag);
}

void DesignTableModel::clear() {
    beginResetModel();
    rows_.clear();
    predictionKeys_.clear();
    endResetModel();
}

void DesignTableModel::setMotifNames(const QStringList& names) {
    motifNames_ = names;
    for (DesignRow& r : rows_) r.motifHits.clear();
    if (!rows_.isEmpty()) emit dataChanged(index(0, MotifHitsColumn), index(int(rows_.size()) - 1, MotifHitsColumn));
}

void DesignTableModel::setMotifHits(int row, QVector<int> hits) {
    if (row < 0 || row >= rows_.size()) return;
    rows_[row].motifHits = std::move(hits);
    emit dataChanged(index(row, MotifHitsColumn), index(row, MotifHitsColumn));
}

}  // namespace carbon::ui
