// DesignTableModel: the generated designs as a read-only table (rank, scores, GC%, length,
// bases, the objective and what activity predictors say of them). Numbers are served under
// SortRole so a QSortFilterProxyModel sorts them as numbers. Each row remembers the run and the
// design region it was generated for. The predicted outputs are columns after the fixed ones, one
// per output name the rows carry (in the order first met), each cell with the predictor and its
// held-out accuracy in the tooltip.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <cmath>
#include <memory>

#include "carbon/generation/fns_generate.h"
#include "carbon/generation/synthesis_rules.h"
#include "carbon/scoring/scoring.h"
#include "carbon/storage/project.h"
#include "workers/project_types.h"

namespace carbon::ui {

// A row of the designs table: the engine's Design with what the table shows beside it (its run
// and stored id once stored, the region it replaces, GC, the user's verdict, the lowest per-base
// score, motif hits). Its own type because those columns belong to the view; the design itself is
// the engine's, and a stored one comes from storage's DesignRecord (runs::design_of).
struct DesignRow {
    carbon::Design design;
    double gcPercent = 0;
    quint64 run = 0;  // the stored run's id once stored, else the window's request id
    qsizetype regionStart = 0, regionLength = 0;  // span of the sequence the design replaces
    qint64 sequenceId = 0;  // the stored sequence it was designed for (0: none / not stored)
    qint64 designId = 0;    // id in the project file; 0 until stored
    QString flag;           // "", "starred" or "discarded"
    double minBaseLogp = std::nan("");  // lowest per-base log p; NaN until scored
    bool constraintsActive = false;     // designed under homopolymer / motif / GC constraints
    QVector<int> motifHits;             // hits of each loaded matrix (empty: none loaded)
    double objective = std::nan("");    // the run's objective (generate-and-rank, evolution); NaN: none
    std::vector<carbon::storage::DesignPrediction> predictions;  // what activity predictors said of it
    // The design checked against the table's synthesis rule set (-1: no set chosen): the rules it
    // breaks, their kinds for the cell and every breach for the tooltip.
    int synthesisBreaches = -1;
    QString synthesisKinds, synthesisDetail;
    // The construct its run made it in (no name: none): the synthesis check reads the whole
    // construct, junctions included, as the order will be made.
    ConstructPtr construct;
};

class DesignTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        FlagColumn, RankColumn, DesignScoreColumn, RankingScoreColumn, MinBaseScoreColumn, GcColumn, LengthColumn, RunColumn,
        ConstraintsColumn, SynthesisColumn, MotifHitsColumn, SpecificityColumn, ObjectiveColumn, BasesColumn, ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int FlagRole = Qt::UserRole + 2;  // the flag text, for the view's filter

    explicit DesignTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void addDesign(const carbon::Design& design, quint64 run, qsizetype regionStart, qsizetype regionLength);
    void addRow(DesignRow row);  // a stored design, or one with every field set
    void setRows(QList<DesignRow> rows);  // replaces every row (one model reset: a project's designs)
    void clear();
    // The rows of `run` not yet stored replaced by `rows` (a ranked run: its kept designs, best first).
    void replaceRun(quint64 run, const QList<DesignRow>& rows);
    const DesignRow& row(int r) const { return rows_[r]; }
    // After a run is stored: its rows (those of `request` not yet stored, in rank order) get the
    // stored ids and the stored run's id.
    void attachStored(quint64 request, qint64 runId, const QList<qint64>& designIds);
    // The lowest per-base log p of each design of `run`, in the order they were added.
    void setMinBaseScores(quint64 run, const QList<double>& minima);
    void setFlag(int row, const QString& flag);  // emits flagChanged for stored designs
    // Transcription-factor hits (Edit > Scan Motifs): the loaded matrices' names (a new set clears
    // every row's counts; empty: none loaded), and one row's hits per matrix in that order.
    void setMotifNames(const QStringList& names);
    const QStringList& motifNames() const { return motifNames_; }
    void setMotifHits(int row, QVector<int> hits);
    // The vendor rule set every design is checked against (synthesis_rules.h; null: none), the
    // Synthesis column saying which rules a design breaks and where.
    void setSynthesisRules(std::shared_ptr<const carbon::SynthesisRuleSet> rules);
    const carbon::SynthesisRuleSet* synthesisRules() const { return synthesis_.get(); }
    // The predicted outputs shown, one column each from ColumnCount on, in the order first met:
    // one per (predictor, output), so two predictors of K562 are two columns ("K562 (mpra)",
    // "K562 (mpra 2)"; a name one predictor alone predicts is "K562 (pred.)").
    struct PredictionKey {
        std::string predictor, output;
        bool operator==(const PredictionKey&) const = default;
    };
    const QList<PredictionKey>& predictionKeys() const { return predictionKeys_; }
    QStringList predictionNames() const;  // the outputs of the columns, in order (repeated where shared)
    QString predictionLabel(int k) const;  // column ColumnCount + k's header text
    // The first column of `output` (matched without regard to case), or -1.
    int predictionColumn(const QString& output) const;
    // What a predictor said of rows already in the table (by source row): each replaces the
    // prediction of the same predictor and output; new outputs become columns.
    void setPredictions(const QList<int>& rows, const QList<std::vector<carbon::storage::DesignPrediction>>& predictions);

signals:
    void flagChanged(qint64 designId, const QString& flag);

private:
    // (Predictor, output) pairs the rows carry that are not columns yet.
    QList<PredictionKey> newPredictionKeys(const QList<DesignRow>& rows) const;
    const carbon::storage::DesignPrediction* prediction(const DesignRow& r, int column) const;

    void derive(DesignRow& r) const;  // GC and the synthesis check, from the bases

    QList<DesignRow> rows_;
    QStringList motifNames_;
    std::shared_ptr<const carbon::SynthesisRuleSet> synthesis_;
    QList<PredictionKey> predictionKeys_;
};

}  // namespace carbon::ui
