// LikelihoodController: debounce, request ids and the stale-result filter for background rescoring.
#include "likelihood_controller.h"

#include "document/sequence_document.h"
#include "workers/engine_worker.h"

namespace carbon::ui {

quint64 nextAnalysisId() {
    static quint64 id = 0;  // GUI thread only
    return ++id;
}

LikelihoodController::LikelihoodController(SequenceDocument* doc, EngineWorker* worker, QObject* parent)
    : QObject(parent), doc_(doc), worker_(worker) {
    debounce_.setSingleShot(true);
    debounce_.setInterval(250);
    connect(&debounce_, &QTimer::timeout, this, &LikelihoodController::requestNow);
    connect(doc_, &SequenceDocument::changed, this, &LikelihoodController::onDocumentChanged);
    connect(worker_, &EngineWorker::rescored, this, &LikelihoodController::onRescored);
    connect(worker_, &EngineWorker::analysisCancelled, this, &LikelihoodController::onEnded);
    connect(worker_, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id == latest_) emit message(error);
        onEnded(id);
    });
    connect(worker_, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == latest_ && pending_ == id) emit progress(done, total);
    });
}

void LikelihoodController::setEnabled(bool on) {
    enabled_ = on;
    if (!on) {
        cancel();
        emit logpChanged({});
    } else {
        requestNow();
    }
}

void LikelihoodController::setModelReady(bool ready) {
    modelReady_ = ready;
    score_.reset();
    current_ = false;
    if (ready && enabled_) requestNow();
}

void LikelihoodController::onDocumentChanged() {
    current_ = false;
    if (enabled_ && modelReady_) debounce_.start();
}

void LikelihoodController::requestNow() {
    debounce_.stop();
    if (!enabled_ || !modelReady_ || doc_->size() == 0) return;
    const bool wasBusy = isBusy();
    latest_ = nextAnalysisId();
    pending_ = latest_;
    // Mark older rescores superseded before queuing, so the worker skips them if still queued
    // and stops the running one at its next progress callback.
    worker_->supersedeRescores(latest_);
    QMetaObject::invokeMethod(worker_, [w = worker_, id = latest_, bases = doc_->bases()] { w->rescore(id, bases); },
                              Qt::QueuedConnection);
    if (!wasBusy) emit busyChanged(true);
}

void LikelihoodController::cancel() {
    debounce_.stop();
    if (pending_ == 0) return;
    worker_->cancelAnalysis(pending_);
    pending_ = 0;
    emit busyChanged(false);
}

void LikelihoodController::onRescored(quint64 id, const ScoreTrack& track, qint64 recomputedTokens) {
    if (id != latest_ || id != pending_) return;  // stale: a newer edit is on its way
    pending_ = 0;
    delivered_ = id;
    score_ = track;
    current_ = true;
    QVector<float> logp;
    logp.reserve(qsizetype(track->track.size()));
    for (const carbon::BaseScore& b : track->track) logp.append(b.logp);
    emit busyChanged(false);
    emit logpChanged(logp);
    emit message(tr("Likelihood: mean log p %1 over %2 bases (%3 tokens recomputed)")
                     .arg(track->base_mean_logp, 0, 'f', 4).arg(track->bases_scored).arg(recomputedTokens));
    emit trackReady(id);
}

void LikelihoodController::onEnded(quint64 id) {
    if (id != pending_) return;
    pending_ = 0;
    emit busyChanged(false);
}

}  // namespace carbon::ui
