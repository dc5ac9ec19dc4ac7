// SpecificityController: the specificity track on the engine thread (see specificity_controller.h).
#include "specificity_controller.h"

#include <QAction>
#include <QMenu>

#include "controllers/likelihood_controller.h"
#include "controllers/window_services.h"
#include "document/sequence_document.h"
#include "views/generation_panel.h"
#include "views/track_chart_view.h"

namespace carbon::ui {

SpecificityController::SpecificityController(SequenceDocument* doc, WorkerThread<EngineWorker>* engine, GenerationPanel* panel,
                                             TrackChartView* chart, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), engine_(engine), panel_(panel), chart_(chart), services_(services) {
    EngineWorker* worker = engine_->worker();
    // The track of the sequence shown before goes with it (the designs' overlay, not the
    // document's, stays); a track still being computed for it is cancelled.
    connect(doc_, &SequenceDocument::opened, this, [this] {
        if (request_) cancelSpecificityTrack();
        if (drawn_ && chart_->revision() == drawn_) chart_->clear();
        drawn_ = 0;
    });
    connect(worker, &EngineWorker::specificityReady, this, [this](quint64 id, const QVector<float>& values) {
        if (id != request_) return;
        done();
        const QString name = tr("%1: %2 vs %3").arg(doc_->displayName(), panel_->tagsText(), panel_->negativeTagsText());
        chart_->setTracks({{name, values, false}}, 1, tr("log p(tags) − log p(negative tags) per base"));
        drawn_ = chart_->revision();
        services_->raiseDock(QStringLiteral("designTracksDock"));
        services_->message(tr("Specificity track of %n base(s) ready", nullptr, int(values.size())), 5000);
    });
    connect(worker, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 d, qint64 total) {
        if (id == request_ && total > 0) services_->message(tr("Specificity track: %1%").arg(100 * d / total), 2000);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id != request_) return;
        done();
        services_->message(tr("Specificity track: %1").arg(error), 10000);
    });
    connect(worker, &EngineWorker::analysisCancelled, this, [this](quint64 id) {
        if (id != request_) return;
        done();
        services_->message(tr("Specificity track cancelled."), 5000);
    });
}

void SpecificityController::addViewActions(QMenu* view) {
    QAction* run = view->addAction(tr("&Specificity Track (Tags vs Negative Tags)"));
    run->setToolTip(tr("Per base, log p under the generation panel's tags minus under its negative tags"));
    connect(run, &QAction::triggered, this, &SpecificityController::runSpecificityTrack);
    cancel_ = view->addAction(tr("Cancel Specificity Track"));
    cancel_->setEnabled(false);
    connect(cancel_, &QAction::triggered, this, &SpecificityController::cancelSpecificityTrack);
}

void SpecificityController::done() {
    request_ = 0;
    if (cancel_) cancel_->setEnabled(false);
}

void SpecificityController::runSpecificityTrack() {
    const QString pos = panel_->tagsText(), neg = panel_->negativeTagsText();
    if (pos.isEmpty() || neg.isEmpty() || pos == neg)
        return services_->message(tr("Specificity track: check the tags in the generation panel and write different negative "
                                     "tags there (e.g. <promoter><fungi>)."), 10000);
    if (doc_->size() == 0) return services_->message(tr("Specificity track: the editor holds no sequence."), 5000);
    if (request_) engine_->worker()->cancelAnalysis(request_);
    request_ = nextAnalysisId();
    if (cancel_) cancel_->setEnabled(true);
    services_->message(tr("Specificity track: scoring under both tag sets…"), 5000);
    engine_->post([id = request_, b = doc_->bases(), pos, neg](EngineWorker* w) { w->specificityTrack(id, b, pos, neg); });
}

void SpecificityController::cancelSpecificityTrack() {
    if (!request_) return;
    engine_->worker()->cancelAnalysis(request_);
}

}  // namespace carbon::ui
