// AnalysisController: likelihood band, base inspector, variant scoring and the mutagenesis heat map
// (see analysis_controller.h). Request ids come from nextAnalysisId(); a result whose id is not
// the one shown is dropped.
#include "analysis_controller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <utility>

#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/window_services.h"
#include "document/sequence_document.h"
#include "views/base_inspector.h"
#include "views/mutagenesis_heat_map.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

AnalysisController::AnalysisController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<EngineWorker>* engine,
                                       ModelController* models, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), engine_(engine), models_(models), services_(services) {
    likelihood_ = new LikelihoodController(doc_, engine_->worker(), this);
    connect(models_, &ModelController::loaded, likelihood_, [this] { likelihood_->setModelReady(true); });
    connect(models_, &ModelController::failed, likelihood_, [this](const QString&, const QString&, bool kept) {
        if (!kept) likelihood_->setModelReady(false);
    });
    connect(likelihood_, &LikelihoodController::logpChanged, editor_, &SequenceEditor::setLikelihood);
    connect(likelihood_, &LikelihoodController::message, this, [this](const QString& t) { services_->message(t, 5000); });
    connect(likelihood_, &LikelihoodController::trackReady, this, &AnalysisController::showPendingVariant);
    connect(doc_, &SequenceDocument::opened, this, &AnalysisController::onDocumentOpened);
    connect(doc_, &SequenceDocument::identityChanged, this, [this] {
        inspector_->setSubject(doc_->displayName());
        showMutagenesisSubject();
    });
    setupInspector();
    setupMutagenesis();
    showMutagenesisSubject();
}

void AnalysisController::addStatusWidgets(QStatusBar* bar) {
    // Status-bar progress for the rescoring, with a cancel button beside it.
    auto* progress = new QProgressBar(bar);
    progress->setMaximumWidth(140);
    progress->setFormat(tr("Scoring %p%"));
    progress->setVisible(false);
    auto* stop = new QToolButton(bar);
    stop->setText(tr("✕"));
    stop->setToolTip(tr("Cancel the likelihood computation"));
    stop->setVisible(false);
    bar->addPermanentWidget(progress);
    bar->addPermanentWidget(stop);
    connect(stop, &QToolButton::clicked, likelihood_, &LikelihoodController::cancel);
    connect(likelihood_, &LikelihoodController::busyChanged, progress, [progress, stop](bool busy) {
        progress->setVisible(busy);
        stop->setVisible(busy);
        progress->setRange(0, 0);
    });
    connect(likelihood_, &LikelihoodController::progress, progress, [progress](qint64 done, qint64 total) {
        progress->setRange(0, 1000);
        progress->setValue(total > 0 ? int(1000 * done / total) : 0);
    });
}

void AnalysisController::addViewActions(QMenu* view) {
    QAction* band = view->addAction(tr("Show Per-Base &Likelihood"));
    band->setCheckable(true);
    band->setChecked(likelihood_->isEnabled());
    band->setShortcut(QKeySequence(tr("Ctrl+L")));
    connect(band, &QAction::toggled, likelihood_, &LikelihoodController::setEnabled);
}

void AnalysisController::setupInspector() {
    inspector_ = new BaseInspector;
    inspectorDock_ = makeDock(inspector_, tr("Base Inspector"), "inspectorDock", Qt::RightDockWidgetArea, true);
    EngineWorker* worker = engine_->worker();
    connect(editor_, &SequenceEditor::baseClicked, this, [this](qint64 pos) {
        inspectBase(pos);
        services_->raiseDock(QStringLiteral("inspectorDock"));
    });
    connect(likelihood_, &LikelihoodController::trackReady, this, [this] {
        if (inspector_->position() >= 0) inspectBase(inspector_->position());  // refresh after an edit
    });
    connect(inspector_, &BaseInspector::scoreVariantRequested, this, [this](qint64 pos, char alt, qint64 window) {
        if (variantRequest_) engine_->worker()->cancelAnalysis(variantRequest_);
        variantRequest_ = nextAnalysisId();
        inspector_->setBusy(true);
        // With a predictor chosen in the inspector, the predicted activity change comes with it.
        const StoredPredictor* p = inspector_->chosenPredictor();
        engine_->post([id = variantRequest_, b = doc_->bases(), pos, alt, window, probe = p ? p->probe : ProbePtr(),
                       checkpoint = p ? p->checkpoint : QString(), name = p ? p->name : QString(),
                       activityWindow = inspector_->activityWindow()](EngineWorker* w) {
            w->scoreVariant(id, b, pos, alt, window, {probe, checkpoint}, name, activityWindow);
        });
    });
    connect(inspector_, &BaseInspector::cancelRequested, this, [this] {
        engine_->worker()->cancelAnalysis(variantRequest_);
        inspector_->setBusy(false);
        inspector_->setMessage(tr("Variant scoring cancelled."));
        variantRequest_ = 0;
    });
    connect(worker, &EngineWorker::variantScored, this, [this](quint64 id, const VariantAnalysis& v) {
        if (id != variantRequest_) return;
        inspector_->setBusy(false);
        inspector_->showVariant(v);
    });
    connect(worker, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == variantRequest_) inspector_->setProgress(done, total);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id != variantRequest_) return;
        inspector_->setBusy(false);
        inspector_->setMessage(error);
    });
}

void AnalysisController::setupMutagenesis() {
    // The dock: mode, Scan, Cancel, progress, the map.
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* row = new QHBoxLayout;
    auto* mode = new QComboBox;
    mode->addItem(tr("Fast (marginals)"));
    mode->addItem(tr("Exact (rescore every mutant)"));
    auto* scan = new QPushButton(tr("Scan Selection"));
    auto* cancelScan = new QPushButton(tr("Cancel"));
    cancelScan->setEnabled(false);
    auto* scanProgress = new QProgressBar;
    scanProgress->setVisible(false);
    row->addWidget(mode);
    row->addWidget(scan);
    row->addWidget(cancelScan);
    row->addWidget(scanProgress, 1);
    layout->addLayout(row);
    mutagenesisSubject_ = new QLabel;
    mutagenesisSubject_->setTextFormat(Qt::PlainText);
    layout->addWidget(mutagenesisSubject_);
    heatMap_ = new MutagenesisHeatMap;
    layout->addWidget(heatMap_, 1);
    mutagenesisDock_ = makeDock(panel, tr("Mutagenesis"), "mutagenesisDock", Qt::BottomDockWidgetArea, false);
    connect(scan, &QPushButton::clicked, this, [this, mode] { scanMutagenesis(mode->currentIndex() == 1); });
    auto endScan = [scan, cancelScan, scanProgress] {
        scan->setEnabled(true);
        cancelScan->setEnabled(false);
        scanProgress->setVisible(false);
    };
    connect(this, &AnalysisController::mutagenesisIdle, this, endScan);
    EngineWorker* worker = engine_->worker();
    connect(cancelScan, &QPushButton::clicked, this, [this, endScan] {
        engine_->worker()->cancelAnalysis(ismRequest_);
        ismRequest_ = 0;
        endScan();
    });
    connect(worker, &EngineWorker::mutagenesisDone, this, [this, endScan](quint64 id, const IsmResult& r) {
        if (id != ismRequest_) return;
        endScan();
        heatMap_->setMatrix(MutagenesisMatrix::fromIsm(r, doc_->bases(), ismStart_, ismEnd_));
        showMutagenesisSubject();
    });
    connect(worker, &EngineWorker::analysisProgress, this, [this, scan, cancelScan, scanProgress](quint64 id, qint64 done, qint64 total) {
        if (id != ismRequest_) return;
        scan->setEnabled(false);
        cancelScan->setEnabled(true);
        scanProgress->setVisible(true);
        scanProgress->setRange(0, 1000);
        scanProgress->setValue(total > 0 ? int(1000 * done / total) : 0);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this, endScan](quint64 id, const QString& error) {
        if (id != ismRequest_) return;
        endScan();
        services_->message(error, 8000);
    });
    connect(heatMap_, &MutagenesisHeatMap::cellClicked, this, [this](qint64 pos, char alt) {
        inspectBase(pos);
        inspector_->selectAlternative(alt);
    });
}

void AnalysisController::onDocumentOpened() {
    for (quint64* request : {&variantRequest_, &ismRequest_})
        if (*request) engine_->worker()->cancelAnalysis(std::exchange(*request, 0));
    inspector_->setSubject(doc_->displayName());
    inspector_->clear();
    heatMap_->setMatrix({});
    showMutagenesisSubject();
    emit mutagenesisIdle();
    pendingAfterOpen_ = false;
    showPendingVariant();
}

void AnalysisController::showMutagenesisSubject() {
    const MutagenesisMatrix& m = heatMap_->matrix();
    mutagenesisSubject_->setText(m.length == 0 ? tr("%1: nothing scanned yet").arg(doc_->displayName())
                                               : tr("%1, bases %2–%3 (%4)")
                                                     .arg(doc_->displayName())
                                                     .arg(m.start + 1)
                                                     .arg(m.start + m.length)
                                                     .arg(m.exact ? tr("exact") : tr("from the marginals")));
}

void AnalysisController::inspectBase(qint64 position) {
    if (!likelihood_->isCurrent()) {
        services_->message(tr("The likelihood is not computed yet for this sequence."), 4000);
        return;
    }
    inspector_->showBase(position, doc_->bases(), likelihood_->score());
}

void AnalysisController::scanMutagenesis(bool exact) {
    qint64 a = editor_->selectionStart(), b = editor_->selectionEnd();
    if (a == b) {  // no selection: 30 bp around the inspected base (or the cursor)
        const qint64 c = inspector_->position() >= 0 ? inspector_->position() : a;
        a = std::max<qint64>(0, c - 15);
        b = std::min<qint64>(doc_->size(), a + 30);
    }
    if (a >= b) return;
    ismStart_ = a;
    ismEnd_ = b;
    services_->raiseDock(QStringLiteral("mutagenesisDock"));
    if (!exact) {
        if (!likelihood_->isCurrent()) return services_->message(tr("The likelihood is not computed yet."), 4000);
        heatMap_->setMatrix(MutagenesisMatrix::fromMarginals(*likelihood_->score(), doc_->bases(), a, b));
        showMutagenesisSubject();
        return;
    }
    if (ismRequest_) engine_->worker()->cancelAnalysis(ismRequest_);
    ismRequest_ = nextAnalysisId();
    engine_->post([id = ismRequest_, bases = doc_->bases(), a, b](EngineWorker* w) { w->mutagenesis(id, bases, a, b, true, 8192); });
}

void AnalysisController::showVariant(qint64 position, char alt, bool afterOpen) {
    pendingVariantPos_ = position;
    pendingVariantAlt_ = alt;
    pendingAfterOpen_ = afterOpen;
    showPendingVariant();
}

void AnalysisController::showPendingVariant() {
    if (pendingAfterOpen_ || pendingVariantPos_ < 0 || pendingVariantPos_ >= doc_->size()) return;
    const qint64 pos = pendingVariantPos_;
    editor_->setSelection(pos, pos + 1);
    editor_->scrollToPosition(pos);
    if (!models_->isReady()) {
        services_->message(tr("Load a model to compare this variant (File > Open Model Folder)."), 8000);
        pendingVariantPos_ = -1;
        return;
    }
    if (!likelihood_->isCurrent()) return;  // shown when the track arrives (trackReady)
    pendingVariantPos_ = -1;
    inspectBase(pos);
    inspector_->selectAlternative(pendingVariantAlt_);
    services_->raiseDock(QStringLiteral("inspectorDock"));
}

}  // namespace carbon::ui
