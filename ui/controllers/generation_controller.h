// GenerationController: designing in the window. It owns the Generation dock (GenerationPanel) and
// the Generate menu's Run / Cancel; Run takes the design region (a marked one, else the selection,
// else the end of the sequence) and its context from the document and sends the request to the
// engine thread, where the generation run is the one carbon-cli generate runs (runs::
// run_generation). Designs stream into the designs table; the finished run comes back once, with
// every design's per-base track, and is stored in the open project. The engine plans the run's
// memory first: a run that cannot fit is refused, one that takes most of what is free is asked
// about, and the Run Log says what each run takes. The latest run wins: a new
// Run cancels the one before. The panel's template follows the pinned motifs inside the design
// region. With the panel's objective ticked the run is generate-and-rank (runs::rank_by_objective,
// as carbon-cli generate --objective): when the designs are made the project's predictor predicts
// them, the streamed rows give way to the best kept ones with their objective and predicted values,
// and those are what is stored. With Evolve chosen, Run evolves the design region's bases
// (EngineWorker::evolve): each round a design in the table and the Evolution dock (objective per
// round, the rounds and their edits), stored as an evolve run; opening a round (from either)
// marks its edits in the editor.
#pragma once

#include <QHash>
#include <QObject>

#include "controllers/dock.h"
#include "views/design_table_model.h"
#include "workers/engine_worker.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QAction;
class QMenu;

namespace carbon::ui {

class DesignsController;
class EvolutionView;
class GenerationPanel;
class ModelController;
class ProjectController;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class GenerationController : public QObject {
    Q_OBJECT
public:
    GenerationController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<EngineWorker>* engine,
                         ModelController* models, ProjectController* project, DesignsController* designs,
                         WindowServices* services, QObject* parent = nullptr);

    GenerationPanel* panel() const { return panel_; }
    QList<Dock> docks() const { return {dock_, evolutionDock_}; }
    EvolutionView* evolutionView() const { return evolution_; }
    // Generate > Run (Ctrl+R, F5) and Cancel (Ctrl+., Shift+F5).
    void addGenerateActions(QMenu* menu);
    QAction* runAction() const { return run_; }
    QAction* cancelAction() const { return cancel_; }
    bool isGenerating() const { return running_; }
    bool isWaitingForModel() const { return waitingForModel_; }  // Run pressed while the model loads
    // The number the next run will be known by: the project's next run id (one more than its
    // last run's), or, without a project, the next of this session's runs.
    qint64 nextRunNumber() const { return nextRunNumber_; }
    double lastRunBasesPerSecond() const { return lastRunBps_; }
    // A run whose caches take more than this fraction of the memory available is confirmed first
    // (the question says both numbers); one that does not fit at all is refused. Default 0.5.
    void setConfirmAbove(double fraction) { confirmAbove_ = fraction; }

public slots:
    void runGeneration();
    void cancelGeneration();
    void openDesign(int row);  // the design into its region of the document (one undo step)

signals:
    void lastRunRateChanged();

private:
    void newConstruct();  // the panel's New…: a dialog, then the project stores it
    void onPlanned(quint64 id, double need, double available);
    void onConfirmationNeeded(quint64 id, const carbon::DesignRequest& request, double need, double available);
    void onProgress(quint64 id, qint64 done, qint64 total, double bps);
    void onDesign(quint64 id, const carbon::Design& design);
    void onGenerated(quint64 id, const GenerationRunPtr& run);
    void onFinished(quint64 id, bool cancelled, const QStringList& notices);
    void onFailed(quint64 id, const QString& error);
    void runEvolution(const carbon::DesignRequest& request, const ObjectiveOrder& order);
    void onEvolved(quint64 id, const EvolutionRunPtr& run);
    // The rounds of evolution run `run` in the designs table (its rows by rank, the start first),
    // shown in the Evolution dock; false when the run has no start row (not an evolution).
    bool showEvolution(quint64 run);
    void openRound(quint64 run, int round);
    void onRunStored(quint64 number, const carbon::storage::Run& run, const QList<carbon::storage::DesignRecord>& designs);
    void syncTemplateFromRegions();
    void giveBackNumber(quint64 number);  // a run that stored nothing: its number is free again
    DesignRow rowFor(const RunToStore& placement, const carbon::Design& design) const;  // a row of the designs table

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    WorkerThread<EngineWorker>* engine_;
    ModelController* models_;
    ProjectController* project_;
    DesignsController* designs_;
    WindowServices* services_;
    GenerationPanel* panel_;
    Dock dock_;
    EvolutionView* evolution_;
    qint64 evolutionSequence_ = 0;  // the stored sequence whose evolution the dock shows
    quint64 openings_ = 0;          // sequences opened in the window so far (RunToStore::documentOpening)
    Dock evolutionDock_;
    QAction* run_ = nullptr;
    QAction* cancel_ = nullptr;
    // The run whose results are shown (the engine's request id); anything else arriving from the
    // worker is stale. The user sees runs by their number (RunToStore::number), the project's.
    quint64 currentRequest_ = 0;
    qint64 nextRunNumber_ = 1;
    bool running_ = false;
    bool waitingForModel_ = false;
    int designsThisRun_ = 0;
    bool runConstraintsActive_ = false;
    double lastRunBps_ = 0;
    double confirmAbove_ = 0.5;
    quint64 constructToken_ = 0;  // the last construct this window asked the project to store
    QHash<quint64, RunToStore> pendingRuns_;  // by request: runs in flight, their number and where their designs go
    ObjectiveOrder currentRanking_;  // what the current run is ranked by (inactive: not ranked)
    QByteArray pinnedMask_;  // design-region positions fixed by pinned motifs at the last sync
};

}  // namespace carbon::ui
