// EngineWorker: owns the carbon::Model and runs every engine call on its own QThread. The GUI
// reaches it only through queued signals; results come back as queued signals tagged with the
// request id, and the GUI drops those whose id is no longer current ("latest request wins").
#pragma once

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QByteArray>
#include <QElapsedTimer>
#include <QMutex>
#include <QSet>
#include <atomic>
#include <memory>

#include "analysis_types.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "project_types.h"

namespace carbon {
class Model;
class IncrementalScorer;
class ActivityPredictor;
class ProbePredictor;
class SequenceRegressor;
}

Q_DECLARE_METATYPE(carbon::DesignRequest)
Q_DECLARE_METATYPE(carbon::Design)

namespace carbon::ui {

// Progress signals a few times a second at most: due() is true at the end (done == total) or when
// 100 ms have passed since the last signal, and then starts the next 100 ms.
class SignalThrottle {
public:
    SignalThrottle() { timer_.start(); }
    bool due(size_t done, size_t total) {
        if (done != total && timer_.elapsed() < 100) return false;
        timer_.restart();
        return true;
    }

private:
    QElapsedTimer timer_;
};

// What the model panel shows about a loaded model (built on the worker, read on the GUI thread).
struct ModelSummary {
    QString dir;
    QList<QPair<QString, QString>> rows;  // label, value; in display order
    QString notice;                       // the engine's one-time backend notice, if any
    QString backend;                      // Backend::describe(): device, threads, precision
    qint64 parameters = 0;
    qint64 contextBases = 0;              // max_position_embeddings * 6
};

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe (called directly from the GUI thread while a run blocks the worker's event
    // loop): every request with an id <= upTo stops at its next progress callback.
    void cancel(quint64 upTo);
    // Thread-safe, for analysis requests (their ids are a separate sequence from runs'): cancels
    // one request; and marks `latest` as the newest rescore so older ones stop or are skipped.
    void cancelAnalysis(quint64 id);
    void supersedeRescores(quint64 latest);

    bool hasDraft() const { return draft_ != nullptr; }

public slots:
    // Where the next loads run: "auto" (the GPU when usable, else the CPU, with the reason in the
    // summary's notice), "cpu" or "cuda" (refused with the reason when there is no usable GPU).
    void setBackend(const QString& kind);
    // `weights`: "" / "native" as stored, "int8" or "q8_0" (ModelOptions::weights).
    void loadModel(const QString& dir, const QString& weights = {});
    // The draft model for speculative decoding (Carbon-500M for the 3B / 8B): refused with the
    // engine's message when its DNA token ids differ from the target's.
    void loadDraft(const QString& dir);
    void clearDraft();
    // A generation run (runs::run_generation: the same as carbon-cli generate, the paired draft
    // included). First its memory plan (runs::generation_run_memory): a run that does not fit is
    // refused (failed() with what it needs and what is available); one that needs more than
    // `askAbove` of the memory available is not started but sent back (confirmationNeeded) for the
    // user to confirm; else planned(), designReady for each design, then, for a run with designs
    // that was not cancelled, generated() with the designs and their per-base tracks (read in
    // their place), then finished(). After a large run, a cancelled or a failed one, the backends
    // give back what they keep for reuse (Backend::release_cached_memory).
    // With an active `ranking` (generate and rank: runs::rank_by_objective, what carbon-cli generate
    // --objective runs), the predictor is checked against the loaded model before generating,
    // the designs are predicted after it (rankingProgress in designs) and generated() carries the
    // best `keep` of them, ranked, with their predicted values; a cancel while predicting ends the
    // run cancelled.
    void generate(quint64 requestId, const carbon::DesignRequest& request, double askAbove = 1.0,
                  const carbon::ui::ObjectiveOrder& ranking = {});
    // Directed evolution of `start` (the design region's bases) by `order` (evolves(): its
    // predictor, objective, budget, rounds, proposals, plausibility weight) under `request`'s
    // template, constraints, context and flank (DesignChecker) and tags (the plausibility term and
    // the proposals), the proposals seeded by the request's seed (engine_worker_evolve.cpp; the
    // engine's evolve(), as carbon-cli evolve runs it). evolutionProgress within each round;
    // evolved() with every round unless cancelled; then finished(), or failed() with the reason
    // (a predictor of another model, a start that breaks a constraint, named with its position).
    void evolve(quint64 requestId, const carbon::DesignRequest& request, const QByteArray& start, const carbon::ui::ObjectiveOrder& order);
    // Analysis (engine_worker_analysis.cpp). Rescoring keeps an IncrementalScorer, so an edit
    // recomputes only from the first changed 6-mer.
    void rescore(quint64 requestId, const QByteArray& bases);
    // With `probe`, the predicted activity change too (predict_variant_activity; its
    // window_bp of predict_variant_activity: `activityWindowBp`, 0 the whole sequence), named
    // `predictor`; a predictor that cannot run on the loaded model leaves the
    // likelihood result standing with the reason in VariantAnalysis::activityError.
    void scoreVariant(quint64 requestId, const QByteArray& bases, qint64 position, char alt, qint64 windowBp,
                      const carbon::ui::PredictorRef& activity = {}, const QString& predictor = {}, qint64 activityWindowBp = 0);
    void mutagenesis(quint64 requestId, const QByteArray& bases, qint64 start, qint64 end, bool exact, qint64 windowBp);
    // Per base, log p under the positive tags minus under the negative ones (scoring.h
    // specificity_track); progress over both scoring passes.
    void specificityTrack(quint64 requestId, const QByteArray& bases, const QString& positiveTags, const QString& negativeTags);
    // Score Variants (engine_worker_vep.cpp): every record of the VCF against the request's
    // sequences, rows written to request.tsvPath record by record; progress in records; a cancel
    // keeps the records done (VepRunDone::cancelled).
    void scoreVcf(quint64 requestId, const carbon::ui::VepRunRequest& request);
    // A predictor fitted to measurements (engine_worker_predict.cpp; runs::fit_predictor, the same
    // as carbon-cli predictor fit): the table's sequences embedded by the loaded model, ridge per
    // condition. Progress: analysisProgress in sequences embedded; predictorFitted, or
    // analysisCancelled / analysisFailed. `pool`: dna-end, dna-mean or both.
    void fitPredictor(quint64 requestId, const carbon::ui::MeasurementTablePtr& table, const QString& pool, bool reverseComplement,
                      int folds);
    // A fitted predictor's outputs for `sequences` (ProbePredictor over the loaded model, which must
    // be the one it was fitted on: refused otherwise by its fingerprint). Progress in sequences;
    // sequencesPredicted, or analysisCancelled / analysisFailed.
    void predictSequences(quint64 requestId, const carbon::ui::PredictorRef& predictor, const QList<QByteArray>& sequences);
    // A fine-tuned sequence-regression checkpoint of Carbon's recipes as a predictor
    // (SequenceRegressor, its run_config.json followed): loaded beside the language model and kept
    // for the calls that name it; checkpointPredictorLoaded with its outputs and recipe, or
    // analysisFailed with the engine's reason (not a regression checkpoint, a classification head,
    // a missing or misshapen score.weight, a run_config.json that is not the recipe's).
    void loadCheckpointPredictor(quint64 requestId, const QString& dir);
    // A map of designs (engine_worker_predict.cpp): `sequences` embedded by the loaded model
    // (dna-end and dna-mean, forward), projected on two principal components and grouped into `k`
    // clusters (carbon/predict/design_map.h). Progress in sequences; designsMapped, or
    // analysisCancelled / analysisFailed. clusterDesigns: the same embeddings into another k.
    void mapDesigns(quint64 requestId, const QList<QByteArray>& sequences, int k);
    void clusterDesigns(quint64 requestId, const carbon::ui::EmbeddingsPtr& embeddings, int k);

signals:
    void modelLoaded(const carbon::ui::ModelSummary& summary);
    // `kept`: the model loaded before is still loaded (the folder was refused before it was freed).
    void modelFailed(const QString& dir, const QString& error, bool kept);
    void draftLoaded(const carbon::ui::ModelSummary& summary);
    void draftFailed(const QString& dir, const QString& error);
    void draftCleared();
    // The run's memory plan, as it starts: bytes its caches need and bytes the backend had available.
    void planned(quint64 requestId, double needBytes, double availableBytes);
    void confirmationNeeded(quint64 requestId, const carbon::DesignRequest& request, double needBytes, double availableBytes);
    void progress(quint64 requestId, qint64 basesDone, qint64 basesTotal, double basesPerSecond);
    void designReady(quint64 requestId, const carbon::Design& design);
    void rankingProgress(quint64 requestId, qint64 designsDone, qint64 designsTotal);
    // Evolution: round (1-based), candidates predicted of the round's.
    void evolutionProgress(quint64 requestId, qint64 round, qint64 done, qint64 total);
    void evolved(quint64 requestId, const carbon::ui::EvolutionRunPtr& run);
    void generated(quint64 requestId, const carbon::ui::GenerationRunPtr& run);
    void finished(quint64 requestId, bool cancelled, const QStringList& notices);
    void failed(quint64 requestId, const QString& error);
    // Analysis results; a cancelled or superseded request ends with analysisCancelled instead.
    void analysisProgress(quint64 requestId, qint64 done, qint64 total);
    void rescored(quint64 requestId, const carbon::ui::ScoreTrack& track, qint64 recomputedTokens);
    void variantScored(quint64 requestId, const carbon::ui::VariantAnalysis& result);
    void mutagenesisDone(quint64 requestId, const carbon::IsmResult& result);
    void specificityReady(quint64 requestId, const QVector<float>& values);
    void vcfScored(quint64 requestId, const carbon::ui::VepRunDone& done);
    void predictorFitted(quint64 requestId, const carbon::ui::ProbePtr& probe, double embeddingSeconds, double fittingSeconds);
    // Per sequence, per output (the probe's conditions), in the order asked.
    void sequencesPredicted(quint64 requestId, const QList<QList<double>>& values);
    void designsMapped(quint64 requestId, const carbon::ui::DesignMapPtr& map);
    void checkpointPredictorLoaded(quint64 requestId, const carbon::ui::StoredPredictor& predictor);
    void designsClustered(quint64 requestId, const QList<int>& clusters);
    void analysisCancelled(quint64 requestId);
    void analysisFailed(quint64 requestId, const QString& error);

private:
    carbon::ScoreOptions scoreOptions() const;
    // The progress callback for analysis request `id`: throttled signals, false once cancelled.
    carbon::ScoreProgress analysisCallback(quint64 id, bool isRescore);
    bool isAnalysisCancelled(quint64 id, bool isRescore);
    // A run (generate, rank, evolve) goes on: not cancelled (cancel(upTo)) and the thread not stopping.
    bool runGoesOn(quint64 id) const;

    ModelSummary summarize(const QString& dir, carbon::Model& model) const;
    // The predictor `ref` names: the fitted one over the loaded model (made in `holder`), or the
    // checkpoint, loaded now unless it is the one kept. Error when it cannot run.
    carbon::ActivityPredictor& activityPredictor(const PredictorRef& ref, std::unique_ptr<carbon::ProbePredictor>& holder);
    void releaseCachedMemory();

    carbon::BackendKind backend_ = carbon::BackendKind::Auto;
    std::unique_ptr<carbon::Model> model_;
    std::unique_ptr<carbon::Model> draft_;
    std::unique_ptr<carbon::Model> regressorModel_;  // the fine-tuned checkpoint predicting, when one was asked for
    std::unique_ptr<carbon::SequenceRegressor> regressor_;
    QString regressorDir_;
    QString draftDir_;
    std::unique_ptr<carbon::IncrementalScorer> scorer_;  // created on the first rescore
    std::atomic<quint64> cancelledUpTo_{0};
    std::atomic<quint64> latestRescore_{0};
    QMutex cancelMutex_;
    QSet<quint64> cancelledAnalyses_;
};

// Registers the engine types used in queued signals (call once before connecting).
void registerEngineMetaTypes();

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::ui::ModelSummary)
