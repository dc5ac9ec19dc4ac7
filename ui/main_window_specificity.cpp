// MainWindow's specificity track: the edited sequence scored under the generation panel's tags
// and under its negative tags (EngineWorker::specificityTrack, on the engine thread, progress in
// the status bar, View > Cancel Specificity Track stops it), drawn per base in the Design Tracks
// dock: log p(base | tags) - log p(base | negative tags), the quantity tag guidance raises.
#include <QAction>
#include <QMenu>
#include <QStatusBar>

#include "workers/engine_worker.h"
#include "views/generation_panel.h"
#include "controllers/likelihood_controller.h"
#include "main_window.h"
#include "document/sequence_document.h"
#include "views/track_chart_view.h"

namespace carbon::ui {

void MainWindow::setupSpecificity(QMenu* view) {
    QAction* run = view->addAction(tr("&Specificity Track (Tags vs Negative Tags)"));
    run->setToolTip(tr("Per base, log p under the generation panel's tags minus under its negative tags"));
    connect(run, &QAction::triggered, this, &MainWindow::runSpecificityTrack);
    cancelSpecificity_ = view->addAction(tr("Cancel Specificity Track"));
    cancelSpecificity_->setEnabled(false);
    connect(cancelSpecificity_, &QAction::triggered, this, &MainWindow::cancelSpecificityTrack);
    auto done = [this] {
        specificityRequest_ = 0;
        cancelSpecificity_->setEnabled(false);
    };
    connect(worker_, &EngineWorker::specificityReady, this, [this, done](quint64 id, const QVector<float>& values) {
        if (id != specificityRequest_) return;
        done();
        const QString name = tr("%1 vs %2").arg(generation_->tagsText(), generation_->negativeTagsText());
        designChart_->setTracks({{name, values, false}}, 1, tr("log p(tags) − log p(negative tags) per base"));
        bringForward(QStringLiteral("designTracksDock"));
        statusBar()->showMessage(tr("Specificity track of %n base(s) ready", nullptr, int(values.size())), 5000);
    });
    connect(worker_, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 d, qint64 total) {
        if (id == specificityRequest_ && total > 0)
            statusBar()->showMessage(tr("Specificity track: %1%").arg(100 * d / total), 2000);
    });
    connect(worker_, &EngineWorker::analysisFailed, this, [this, done](quint64 id, const QString& error) {
        if (id != specificityRequest_) return;
        done();
        statusBar()->showMessage(tr("Specificity track: %1").arg(error), 10000);
    });
    connect(worker_, &EngineWorker::analysisCancelled, this, [this, done](quint64 id) {
        if (id != specificityRequest_) return;
        done();
        statusBar()->showMessage(tr("Specificity track cancelled."), 5000);
    });
}

void MainWindow::runSpecificityTrack() {
    const QString pos = generation_->tagsText(), neg = generation_->negativeTagsText();
    if (pos.isEmpty() || neg.isEmpty() || pos == neg) {
        statusBar()->showMessage(tr("Specificity track: check the tags in the generation panel and write different negative "
                                    "tags there (e.g. <promoter><fungi>)."), 10000);
        return;
    }
    if (doc_->size() == 0) return statusBar()->showMessage(tr("Specificity track: the editor holds no sequence."), 5000);
    if (specificityRequest_) worker_->cancelAnalysis(specificityRequest_);
    specificityRequest_ = nextAnalysisId();
    cancelSpecificity_->setEnabled(true);
    statusBar()->showMessage(tr("Specificity track: scoring under both tag sets…"), 5000);
    QMetaObject::invokeMethod(worker_, [w = worker_, id = specificityRequest_, b = doc_->bases(), pos, neg] {
        w->specificityTrack(id, b, pos, neg);
    }, Qt::QueuedConnection);
}

void MainWindow::cancelSpecificityTrack() {
    if (!specificityRequest_) return;
    worker_->cancelAnalysis(specificityRequest_);
}

}  // namespace carbon::ui
