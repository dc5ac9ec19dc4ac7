// EngineWorker's analysis requests: incremental rescoring of the edited sequence (latest request
// wins), one variant with its ref/alt tracks, and saturation mutagenesis. All run on the engine
// thread; cancellation is read from atomics / a mutex-guarded set the GUI thread writes.
#include <QElapsedTimer>
#include <QMutexLocker>
#include <QThread>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/regressor.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/scoring/scoring.h"
#include "carbon/scoring/variants.h"
#include "engine_worker.h"

namespace carbon::ui {

void EngineWorker::cancelAnalysis(quint64 id) {
    QMutexLocker lock(&cancelMutex_);
    cancelledAnalyses_.insert(id);
}

void EngineWorker::supersedeRescores(quint64 latest) {
    quint64 cur = latestRescore_.load();
    while (cur < latest && !latestRescore_.compare_exchange_weak(cur, latest)) {
    }
}

bool EngineWorker::isAnalysisCancelled(quint64 id, bool isRescore) {
    if (isRescore && id < latestRescore_.load()) return true;
    if (QThread::currentThread()->isInterruptionRequested()) return true;
    QMutexLocker lock(&cancelMutex_);
    return cancelledAnalyses_.contains(id);
}

ScoreOptions EngineWorker::scoreOptions() const {
    ScoreOptions o;
    o.token_score = false;  // the GUI shows base-level numbers only; skips the full-vocabulary head
    o.context_tokens = size_t(model_->config().max_position_embeddings);
    return o;
}

ScoreProgress EngineWorker::analysisCallback(quint64 id, bool isRescore) {
    auto throttle = std::make_shared<SignalThrottle>();
    return [this, id, isRescore, throttle](size_t done, size_t total) {
        if (throttle->due(done, total)) emit analysisProgress(id, qint64(done), qint64(total));
        return !isAnalysisCancelled(id, isRescore);
    };
}

void EngineWorker::rescore(quint64 requestId, const QByteArray& bases) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open a model folder first."));
    if (isAnalysisCancelled(requestId, true)) return emit analysisCancelled(requestId);  // superseded while queued
    try {
        if (!scorer_) scorer_ = std::make_unique<IncrementalScorer>(model_->backend(), model_->tokenizer(), scoreOptions());
        const SequenceScore& r = scorer_->rescore(std::string_view(bases.constData(), size_t(bases.size())),
                                                  analysisCallback(requestId, true));
        if (r.cancelled) {
            scorer_->reset();  // a half-updated cache is not worth reasoning about; start clean next time
            return emit analysisCancelled(requestId);
        }
        emit rescored(requestId, std::make_shared<const SequenceScore>(r), qint64(scorer_->recomputed_tokens()));
    } catch (const std::exception& e) {
        scorer_.reset();
        emit analysisFailed(requestId, QString::fromStdString(e.what()));
    }
}

void EngineWorker::scoreVariant(quint64 requestId, const QByteArray& bases, qint64 position, char alt, qint64 windowBp,
                                const PredictorRef& activity, const QString& predictor, qint64 activityWindowBp) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open a model folder first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        const std::string_view seq(bases.constData(), size_t(bases.size()));
        VariantOptions o;
        o.scoring = scoreOptions();
        o.window_bp = size_t(std::max<qint64>(1, windowBp));
        VariantAnalysis out;
        out.score = score_variant(model_->backend(), model_->tokenizer(), seq, size_t(position), 0, alt, o,
                                  analysisCallback(requestId, false));
        if (out.score.cancelled) return emit analysisCancelled(requestId);
        // The tracks behind window_delta: the same window scored alone, reference and mutant.
        const ScoringWindow w = out.score.window;
        std::string ref(seq.substr(w.start, w.end - w.start));
        std::string mut = ref;
        mut[size_t(position) - w.start] = alt;
        for (auto [text, track] : {std::pair{&ref, &out.refLogp}, std::pair{&mut, &out.altLogp}}) {
            const SequenceScore s = score_sequence(model_->backend(), model_->tokenizer(), *text, o.scoring,
                                                   analysisCallback(requestId, false));
            if (s.cancelled) return emit analysisCancelled(requestId);
            track->reserve(s.track.size());
            for (const BaseScore& b : s.track) track->push_back(b.logp);
        }
        if (activity.active()) {
            out.predictor = predictor;
            try {
                std::unique_ptr<ProbePredictor> fitted;
                ActivityPredictor& p = activityPredictor(activity, fitted);
                const BaseVariant v{size_t(position), 0, alt};
                out.activity = predict_variant_activity(p, seq, std::span(&v, 1), "the sequence", size_t(std::max<qint64>(0, activityWindowBp)), 16,
                                                        analysisCallback(requestId, false));
                if (out.activity.cancelled) return emit analysisCancelled(requestId);
            } catch (const std::exception& e) {
                out.activityError = QString::fromUtf8(e.what());
            }
        }
        emit variantScored(requestId, out);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromStdString(e.what()));
    }
}

void EngineWorker::mutagenesis(quint64 requestId, const QByteArray& bases, qint64 start, qint64 end, bool exact,
                               qint64 windowBp) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open a model folder first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        IsmOptions o;
        o.scoring = scoreOptions();
        o.window_bp = size_t(std::max<qint64>(1, windowBp));
        o.exact = exact;
        IsmResult r = saturation_mutagenesis(model_->backend(), model_->tokenizer(),
                                             std::string_view(bases.constData(), size_t(bases.size())), size_t(start),
                                             size_t(end), o, analysisCallback(requestId, false));
        if (r.cancelled) return emit analysisCancelled(requestId);
        emit mutagenesisDone(requestId, r);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromStdString(e.what()));
    }
}

void EngineWorker::specificityTrack(quint64 requestId, const QByteArray& bases, const QString& positiveTags,
                                    const QString& negativeTags) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open a model folder first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        const std::vector<float> t =
            specificity_track(model_->backend(), model_->tokenizer(), std::string_view(bases.constData(), size_t(bases.size())),
                              positiveTags.toStdString(), negativeTags.toStdString(), scoreOptions(), analysisCallback(requestId, false));
        if (t.empty() && !bases.isEmpty()) return emit analysisCancelled(requestId);
        emit specificityReady(requestId, QVector<float>(t.begin(), t.end()));
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromStdString(e.what()));
    }
}

}  // namespace carbon::ui
