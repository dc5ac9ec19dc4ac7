// VepController: variant effects in the window. It owns the Variant Effects dock (VepView) and the
// File menu's Open Variant Effects and Score Variants. A vep result (carbon-cli vep or
// carbon-cluster vep) is read on a pool thread; Score Variants scores a VCF against the open
// project's sequences on the engine thread with the variant-effect run carbon-cli vep uses
// (progress and Stop in the dock) and stores the rows as a "vep" run; a stored run is read back
// from the project. Activating a row opens its variant: on a stored sequence, that sequence with
// the variant selected (a substitution inspected with its alternative); otherwise its window,
// fetched from the result's reference genome, as an unstored sequence. A stored run exports to a
// genome browser (bigWig and an IGV session) from the dock's Genome Browser button.
#pragma once

#include <QObject>
#include <QPair>

#include "controllers/dock.h"
#include "views/vep_result.h"
#include "workers/engine_worker.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QMenu;

namespace carbon::ui {

class AnalysisController;
class ModelController;
class ProjectController;
class SequenceEditor;
class VepView;
class WindowServices;

class VepController : public QObject {
    Q_OBJECT
public:
    VepController(SequenceEditor* editor, WorkerThread<EngineWorker>* engine, ModelController* models, ProjectController* project,
                  AnalysisController* analysis, WindowServices* services, QObject* parent = nullptr);

    VepView* view() const { return view_; }
    QList<Dock> docks() const { return {dock_}; }
    void addFileActions(QMenu* file);

public slots:
    void openVepResult(const QString& path);
    void openVepVariant(const carbon::storage::VepRow& row);
    // Every record of a VCF whose CHROM names a sequence of the open project, scored on a window
    // around it; the rows are stored as a "vep" run and shown.
    void scoreProjectVcf(const QString& vcfPath, qint64 windowBp, bool reverseComplement);
    void stopScoringVcf();
    void openVepRun(qint64 runId);
    // A stored run's scores as bigWig with an IGV session (asks where; ProjectStore::exportVepForIgv).
    void exportForGenomeBrowser(qint64 runId);

signals:
    void vepResultOpened(const QString& path, int rows);
    void vepWindowOpened(const QString& locus);
    void vepRunFinished(qint64 runId, qint64 rows, bool cancelled);  // stored (runId 0: failed)

private:
    void setupScoring();
    void endRun(const QString& text, qint64 runId, qint64 rows, bool cancelled);
    void showWindow(const VepRow& row, const QString& locus, const QByteArray& bases);

    SequenceEditor* editor_;
    WorkerThread<EngineWorker>* engine_;
    WorkerThread<ProjectStore>* store_;
    ModelController* models_;
    ProjectController* project_;
    AnalysisController* analysis_;
    WindowServices* services_;
    VepView* view_;
    Dock dock_;
    quint64 token_ = 0;  // the newest vep read or window fetch; older answers are dropped
    quint64 run_ = 0;    // the Score Variants run in progress (an analysis id); 0 when none
    QString runTsv_;     // where its rows are written until they are stored
    QPair<qint64, qint64> pendingSelection_{-1, -1};  // selected once the sequence being opened is loaded
};

}  // namespace carbon::ui
