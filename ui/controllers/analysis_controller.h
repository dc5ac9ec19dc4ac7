// AnalysisController: the model's view of the edited sequence. It keeps the per-base likelihood up
// to date (LikelihoodController: the band under the letters, progress and Cancel in the status
// bar), owns the Base Inspector dock (one base's distribution; Score Variant with its window,
// progress and Cancel) and the Mutagenesis dock (fast from the likelihood, exact on the engine
// thread), and shows a variant asked for by another panel once the likelihood is current.
#pragma once

#include <QObject>

#include "controllers/dock.h"
#include "workers/engine_worker.h"
#include "workers/worker_thread.h"

class QLabel;
class QMenu;
class QProgressBar;
class QStatusBar;

namespace carbon::ui {

class BaseInspector;
class LikelihoodController;
class ModelController;
class MutagenesisHeatMap;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class AnalysisController : public QObject {
    Q_OBJECT
public:
    AnalysisController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<EngineWorker>* engine, ModelController* models,
                       WindowServices* services, QObject* parent = nullptr);

    LikelihoodController* likelihood() const { return likelihood_; }
    BaseInspector* inspector() const { return inspector_; }
    MutagenesisHeatMap* heatMap() const { return heatMap_; }
    QList<Dock> docks() const { return {inspectorDock_, mutagenesisDock_}; }
    // The rescoring's progress bar and its cancel button.
    void addStatusWidgets(QStatusBar* bar);
    // View > Show Per-Base Likelihood (Ctrl+L).
    void addViewActions(QMenu* view);

public slots:
    void inspectBase(qint64 position);
    void scanMutagenesis(bool exact);  // the selection, or the inspected base's neighbourhood
    // Selects base `position` and, once the likelihood of the document is current, inspects it
    // with `alt` chosen for Score Variant. With `afterOpen`, waits for the next document to open.
    void showVariant(qint64 position, char alt, bool afterOpen = false);
    void clearPendingVariant() { pendingVariantPos_ = -1; }

signals:
    void mutagenesisIdle();  // no scan in flight (its buttons back to Scan)

private:
    void setupInspector();
    void setupMutagenesis();
    void showPendingVariant();
    // Another sequence in the document: what the panels showed of the one before goes (its
    // requests in flight cancelled), and they name the new one.
    void onDocumentOpened();
    void showMutagenesisSubject();

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    WorkerThread<EngineWorker>* engine_;
    ModelController* models_;
    WindowServices* services_;
    LikelihoodController* likelihood_;
    BaseInspector* inspector_ = nullptr;
    MutagenesisHeatMap* heatMap_ = nullptr;
    Dock inspectorDock_, mutagenesisDock_;
    QLabel* mutagenesisSubject_ = nullptr;  // which sequence and bases the heat map shows
    quint64 variantRequest_ = 0, ismRequest_ = 0;  // the ones whose results are shown
    qint64 ismStart_ = 0, ismEnd_ = 0;
    qint64 pendingVariantPos_ = -1;
    char pendingVariantAlt_ = 0;
    bool pendingAfterOpen_ = false;
};

}  // namespace carbon::ui
