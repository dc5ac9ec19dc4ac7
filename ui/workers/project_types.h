// Value types that carry project contents between the project store's thread and the GUI in
// queued signals (the GUI never touches SQLite itself, so a large write cannot freeze it). The
// project's rows travel as storage's own records (SequenceRecord listed without its bases, Run,
// DesignRecord, VariantRecord): one type per concept across the layers.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>
#include <cmath>
#include <memory>
#include <vector>

#include "carbon/generation/fns_generate.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/evolution.h"
#include "carbon/runs/evolution_record.h"
#include "carbon/runs/generation_run.h"
#include "carbon/runs/run_settings.h"
#include "carbon/scoring/scoring.h"
#include "carbon/storage/measurements.h"
#include "carbon/storage/project.h"
#include "document/sequence_document.h"

namespace carbon::ui {

// What predictors said of designs, per design (storage's own record).
using DesignPredictionList = QList<std::vector<carbon::storage::DesignPrediction>>;

// A fitted predictor as it crosses threads (the engine's, shared: never copied).
using ProbePtr = std::shared_ptr<const carbon::Probe>;

// Which activity predictor an engine call uses: a fitted one (over the loaded model's embeddings)
// or a fine-tuned checkpoint (its folder; the engine loads it once and keeps it).
struct PredictorRef {
    ProbePtr probe;
    QString checkpoint;
    bool active() const { return probe != nullptr || !checkpoint.isEmpty(); }
};

// An activity predictor the window offers: one fitted to measurements and stored in the project
// (read on the project store's thread, runs::probe_of: the predictor, or why its stored definition
// could not be read, a project being someone else's file too), or a fine-tuned sequence-regression
// checkpoint loaded for this session (its folder, its outputs, what its recipe file says).
struct StoredPredictor {
    qint64 id = 0;
    QString name;
    ProbePtr probe;  // null when unreadable, and for a checkpoint
    QString error;
    QString checkpoint;   // a fine-tuned checkpoint's folder; empty for a fitted predictor
    QStringList labels;   // a checkpoint's outputs (id2label)
    QString note;         // a checkpoint's recipe in words (run_config.json followed, units)
    bool usable() const { return probe != nullptr || !checkpoint.isEmpty(); }
    PredictorRef ref() const { return {probe, checkpoint}; }
    QStringList outputs() const {
        if (!probe) return labels;
        QStringList out;
        for (const carbon::ProbeCondition& c : probe->conditions) out << QString::fromStdString(c.name);
        return out;
    }
    // Output k's held-out accuracy in words; empty for a checkpoint (its recipe's test figures are not in it).
    QString heldOut(int k) const {
        return probe && k >= 0 && size_t(k) < probe->conditions.size() ? QString::fromStdString(probe->held_out(size_t(k))) : QString();
    }
};

// How runs and stored predictions name a predictor, the same from every path (Predict Designs,
// generate and rank, evolve): a checkpoint by its folder; a fitted one as "'NAME' in FILE.carbon"
// when a project is open (`projectPath`), else by its name.
inline QString predictorIdentity(const QString& name, const QString& checkpoint, const QString& projectPath) {
    if (!checkpoint.isEmpty()) return checkpoint;
    if (projectPath.isEmpty()) return name;
    const qsizetype slash = projectPath.lastIndexOf(QLatin1Char('/'));
    return QStringLiteral("'%1' in %2").arg(name, slash < 0 ? projectPath : projectPath.mid(slash + 1));
}

// What the Generation panel's objective section asks of a Run: with no probe, a plain generation.
// Rank: the run's designs predicted by `probe` and ranked by `objective` (Objective::parse syntax),
// the best `keep` kept (0: all), `plausibility` x design_logp added (runs::rank_by_objective).
// Evolve: directed evolution of the design region's bases (carbon/predict/evolution.h) under the
// run's constraints, at most `budget` positions changed, `rounds` at most (0: until the budget or
// no edit helps), every allowed edit a candidate or `proposals` drawn from the model's per-base
// probabilities (seeded), the plausibility term `plausibility` x S under the run's tags.
struct ObjectiveOrder {
    enum class Optimiser { Rank, Evolve };
    ProbePtr probe;
    QString checkpoint;  // or a fine-tuned checkpoint's folder
    QString predictor;   // the predictor's name, stored with the run and each design's values
    QString objective;
    Optimiser optimiser = Optimiser::Rank;
    int keep = 0;
    double plausibility = 0;
    int budget = 10, rounds = 0, proposals = 0;
    bool active() const { return probe != nullptr || !checkpoint.isEmpty(); }
    bool evolves() const { return active() && optimiser == Optimiser::Evolve; }
    PredictorRef ref() const { return {probe, checkpoint}; }
};

// A measurement table read for fitting, its rows' sequences resolved (from the table itself, or
// by name from the open project's sequences), and where it came from.
using MeasurementTablePtr = std::shared_ptr<const carbon::storage::MeasurementTable>;

// What the project browser and the designs table show of an open project.
// The project's constructs and selections of designs, by name (storage's records); a run's
// construct shared by its rows (null: made in none).
using ConstructList = QList<carbon::storage::ConstructRecord>;
using ConstructPtr = std::shared_ptr<const carbon::storage::ConstructRecord>;
using SelectionList = QList<carbon::storage::SelectionRecord>;

struct ProjectSnapshot {
    QString path;
    QList<carbon::storage::SequenceRecord> sequences;  // without their bases (length set)
    QList<carbon::storage::Run> runs;
    QHash<qint64, int> designsPerRun;
    QList<carbon::storage::DesignRecord> designs;
    QList<carbon::storage::VariantRecord> importedVariants;  // the first kMaxListedVariants of each sequence
    qint64 variants = 0;                                     // every variant row, scored ones included
    QList<StoredPredictor> predictors;                       // by name
    ConstructList constructs;                                // by name
    SelectionList selections;                                // by name, with their design ids
};
inline constexpr int kMaxListedVariants = 1000;

// A finished generation run (the engine thread's, shared: it crosses threads without a copy).
using GenerationRunPtr = std::shared_ptr<const carbon::runs::GenerationRun>;

// A finished generation to store (runs::write_generation_run, one transaction): the run, and
// where in the edited sequence its designs go.
struct RunToStore {
    quint64 number = 0;  // the run as the window numbers it (runStored echoes it)
    qint64 sequenceId = 0;  // the edited sequence the designs were made for (0: none stored)
    qint64 regionStart = 0, regionLength = 0;
    // The window's count of sequences opened when the run started: the same count when it ends is
    // the same sequence, stored meanwhile or not (its stored id may arrive during the run).
    quint64 documentOpening = 0;
    // The construct the designs were made in (its parts the run's context and flank; null: none),
    // recorded with the run (storage's construct_settings).
    ConstructPtr construct;
    GenerationRunPtr run;
};

// A directed evolution of a design region made in the window (EngineWorker::evolve), to show and
// store (runs::write_evolution for a region): the rounds, what predicted them, the run's identity
// and settings, and where in the edited sequence its designs go.
struct EvolutionRun {
    carbon::EvolutionResult result;
    carbon::runs::EvolutionRecord record;
    std::string modelDir, backend;
    carbon::runs::RunSettings settings;
};
using EvolutionRunPtr = std::shared_ptr<const EvolutionRun>;

struct EvolutionToStore {
    quint64 number = 0;     // the run as the window numbers it (evolutionStored echoes it)
    qint64 sequenceId = 0;  // the edited sequence (0: none stored)
    qint64 regionStart = 0;
    ConstructPtr construct;  // the construct it was evolved in (null: none), recorded with the run
    EvolutionRunPtr run;
};

// Export formats offered by File > Export.
enum class ExportFormat {
    DesignsFasta, DesignsTsv, DesignsCsv, GenBank, BedGraph, Wig, BigWig, SequencesFasta,
    TwistCsv, IdtXlsx, ConstructsFasta, ConstructsGenBank  // orders: the designs as constructs (order_files.h)
};

struct ExportRequest {
    ExportFormat format = ExportFormat::DesignsFasta;
    QString path;
    QList<qint64> designIds;  // designs to export (empty: all); GenBank/bedGraph/WIG/bigWig use the first
    qint64 sequenceId = 0;    // bedGraph/WIG/bigWig of a stored sequence's track instead of a design's
    QString trackKind = QStringLiteral("logp");
    QString upstream, downstream;  // orders: the flanks of every construct
    bool runConstructs = false;    // orders: each design in its run's construct instead (order_constructs)
    int plateWells = 96;           // IDT: 96 or 384
    bool fillRows = false;         // IDT: wells filled A1, A2, ... (else A1, B1, ...)
};

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::ProjectSnapshot)
Q_DECLARE_METATYPE(carbon::storage::SequenceRecord)
Q_DECLARE_METATYPE(carbon::storage::Run)
Q_DECLARE_METATYPE(carbon::storage::DesignRecord)
Q_DECLARE_METATYPE(carbon::storage::VariantRecord)
Q_DECLARE_METATYPE(carbon::ui::RunToStore)
Q_DECLARE_METATYPE(carbon::ui::GenerationRunPtr)
Q_DECLARE_METATYPE(carbon::ui::EvolutionRunPtr)
Q_DECLARE_METATYPE(carbon::ui::ExportRequest)
Q_DECLARE_METATYPE(carbon::ui::StoredPredictor)
Q_DECLARE_METATYPE(carbon::ui::MeasurementTablePtr)
Q_DECLARE_METATYPE(carbon::ui::ProbePtr)
Q_DECLARE_METATYPE(carbon::ui::DesignPredictionList)
Q_DECLARE_METATYPE(carbon::storage::ConstructRecord)
Q_DECLARE_METATYPE(carbon::storage::SelectionRecord)
Q_DECLARE_METATYPE(carbon::ui::ConstructList)
Q_DECLARE_METATYPE(carbon::ui::SelectionList)
