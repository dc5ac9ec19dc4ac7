// MainWindow's analysis wiring: the background likelihood (band in the editor), the base
// inspector and variant scoring, and the mutagenesis heat map. Request ids come from
// nextAnalysisId(); a result whose id is not the one shown is dropped.
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/base_inspector.h"
#include "controllers/likelihood_controller.h"
#include "main_window.h"
#include "views/mutagenesis_heat_map.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

void MainWindow::setupAnalysis() {
    likelihood_ = new LikelihoodController(doc_, worker_, this);
    connect(worker_, &EngineWorker::modelLoaded, likelihood_, [this] { likelihood_->setModelReady(true); });
    connect(worker_, &EngineWorker::modelFailed, likelihood_, [this] { likelihood_->setModelReady(false); });
    connect(likelihood_, &LikelihoodController::logpChanged, editor_, &SequenceEditor::setLikelihood);
    connect(likelihood_, &LikelihoodController::message, this, [this](const QString& t) { statusBar()->showMessage(t, 5000); });

    // Status-bar progress for the rescoring, with a cancel button beside it.
    analysisProgress_ = new QProgressBar(this);
    analysisProgress_->setMaximumWidth(140);
    analysisProgress_->setFormat(tr("Scoring %p%"));
    analysisProgress_->setVisible(false);
    auto* stop = new QToolButton(this);
    stop->setText(tr("✕"));
    stop->setToolTip(tr("Cancel the likelihood computation"));
    stop->setVisible(false);
    statusBar()->addPermanentWidget(analysisProgress_);
    statusBar()->addPermanentWidget(stop);
    connect(stop, &QToolButton::clicked, likelihood_, &LikelihoodController::cancel);
    connect(likelihood_, &LikelihoodController::busyChanged, this, [this, stop](bool busy) {
        analysisProgress_->setVisible(busy);
        stop->setVisible(busy);
        analysisProgress_->setRange(0, 0);
    });
    connect(likelihood_, &LikelihoodController::progress, this, [this](qint64 done, qint64 total) {
        analysisProgress_->setRange(0, 1000);
        analysisProgress_->setValue(total > 0 ? int(1000 * done / total) : 0);
    });

    inspector_ = new BaseInspector;
    addPanel(inspector_, tr("Base Inspector"), "inspectorDock", Qt::RightDockWidgetArea, true);
    connect(editor_, &SequenceEditor::baseClicked, this, [this](qint64 pos) {
        inspectBase(pos);
        bringForward(QStringLiteral("inspectorDock"));
    });
    connect(likelihood_, &LikelihoodController::trackReady, this, [this] {
        if (inspector_->position() >= 0) inspectBase(inspector_->position());  // refresh after an edit
    });
    connect(inspector_, &BaseInspector::scoreVariantRequested, this, [this](qint64 pos, char alt, qint64 window) {
        if (variantRequest_) worker_->cancelAnalysis(variantRequest_);
        variantRequest_ = nextAnalysisId();
        inspector_->setBusy(true);
        QMetaObject::invokeMethod(worker_, [w = worker_, id = variantRequest_, b = doc_->bases(), pos, alt, window] {
            w->scoreVariant(id, b, pos, alt, window);
        }, Qt::QueuedConnection);
    });
    connect(inspector_, &BaseInspector::cancelRequested, this, [this] {
        worker_->cancelAnalysis(variantRequest_);
        inspector_->setBusy(false);
        inspector_->setMessage(tr("Variant scoring cancelled."));
        variantRequest_ = 0;
    });
    connect(worker_, &EngineWorker::variantScored, this, [this](quint64 id, const VariantAnalysis& v) {
        if (id != variantRequest_) return;
        inspector_->setBusy(false);
        inspector_->showVariant(v);
    });

    // Heat map dock: mode, Scan, Cancel, progress, the map.
    auto* heatPanel = new QWidget;
    auto* heatLayout = new QVBoxLayout(heatPanel);
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
    heatLayout->addLayout(row);
    heatMap_ = new MutagenesisHeatMap;
    heatLayout->addWidget(heatMap_, 1);
    addPanel(heatPanel, tr("Mutagenesis"), "mutagenesisDock", Qt::BottomDockWidgetArea, false);
    connect(scan, &QPushButton::clicked, this, [this, mode] { scanMutagenesis(mode->currentIndex() == 1); });
    auto endScan = [scan, cancelScan, scanProgress] {
        scan->setEnabled(true);
        cancelScan->setEnabled(false);
        scanProgress->setVisible(false);
    };
    connect(cancelScan, &QPushButton::clicked, this, [this, endScan] {
        worker_->cancelAnalysis(ismRequest_);
        ismRequest_ = 0;
        endScan();
    });
    connect(worker_, &EngineWorker::mutagenesisDone, this, [this, endScan](quint64 id, const IsmResult& r) {
        if (id != ismRequest_) return;
        endScan();
        heatMap_->setMatrix(MutagenesisMatrix::fromIsm(r, doc_->bases(), ismStart_, ismEnd_));
    });
    connect(worker_, &EngineWorker::analysisProgress, this, [this, scan, cancelScan, scanProgress](quint64 id, qint64 done, qint64 total) {
        if (id == variantRequest_) inspector_->setProgress(done, total);
        if (id != ismRequest_) return;
        scan->setEnabled(false);
        cancelScan->setEnabled(true);
        scanProgress->setVisible(true);
        scanProgress->setRange(0, 1000);
        scanProgress->setValue(total > 0 ? int(1000 * done / total) : 0);
    });
    connect(worker_, &EngineWorker::analysisFailed, this, [this, endScan](quint64 id, const QString& error) {
        if (id == variantRequest_) {
            inspector_->setBusy(false);
            inspector_->setMessage(error);
        }
        if (id == ismRequest_) {
            endScan();
            statusBar()->showMessage(error, 8000);
        }
    });
    connect(heatMap_, &MutagenesisHeatMap::cellClicked, this, [this](qint64 pos, char alt) {
        inspectBase(pos);
        inspector_->selectAlternative(alt);
    });
}

void MainWindow::addAnalysisActions(QMenu* view) {
    QAction* band = view->addAction(tr("Show Per-Base &Likelihood"));
    band->setCheckable(true);
    band->setChecked(likelihood_->isEnabled());
    band->setShortcut(QKeySequence(tr("Ctrl+L")));
    connect(band, &QAction::toggled, likelihood_, &LikelihoodController::setEnabled);
    setupSpecificity(view);
}

void MainWindow::inspectBase(qint64 position) {
    if (!likelihood_->isCurrent()) {
        statusBar()->showMessage(tr("The likelihood is not computed yet for this sequence."), 4000);
        return;
    }
    inspector_->showBase(position, doc_->bases(), likelihood_->score());
}

void MainWindow::scanMutagenesis(bool exact) {
    qint64 a = editor_->selectionStart(), b = editor_->selectionEnd();
    if (a == b) {  // no selection: 30 bp around the inspected base (or the cursor)
        const qint64 c = inspector_->position() >= 0 ? inspector_->position() : a;
        a = std::max<qint64>(0, c - 15);
        b = std::min<qint64>(doc_->size(), a + 30);
    }
    if (a >= b) return;
    ismStart_ = a;
    ismEnd_ = b;
    bringForward(QStringLiteral("mutagenesisDock"));
    if (!exact) {
        if (!likelihood_->isCurrent()) return statusBar()->showMessage(tr("The likelihood is not computed yet."), 4000);
        heatMap_->setMatrix(MutagenesisMatrix::fromMarginals(*likelihood_->score(), doc_->bases(), a, b));
        return;
    }
    if (ismRequest_) worker_->cancelAnalysis(ismRequest_);
    ismRequest_ = nextAnalysisId();
    QMetaObject::invokeMethod(worker_, [w = worker_, id = ismRequest_, bases = doc_->bases(), a, b] {
        w->mutagenesis(id, bases, a, b, true, 8192);
    }, Qt::QueuedConnection);
}

}  // namespace carbon::ui
