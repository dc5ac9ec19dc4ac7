// PredictorController: activity predictors in the window. It owns the Predictors dock
// (PredictorPanel, beside the model manager) and Generate > Fit Predictor to Measurements: the
// table is read on the project store's thread (its names resolved to the open project's
// sequences), the predictor fitted on the engine thread with the run carbon-cli predictor fit uses
// (runs::fit_predictor; progress in sequences embedded, Cancel), stored in the project under the
// table's name (a second of that name numbered) and shown with its cross-validation report.
// Without a project the predictor is kept in the panel until the window closes.
#pragma once

#include <QObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "controllers/dock.h"
#include "workers/engine_worker.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QMenu;

namespace carbon::ui {

class DesignsController;
class ModelController;
class PredictorPanel;
class ProjectController;
class WindowServices;

class PredictorController : public QObject {
    Q_OBJECT
public:
    PredictorController(WorkerThread<EngineWorker>* engine, ModelController* models, ProjectController* project, DesignsController* designs,
                        WindowServices* services, QObject* parent = nullptr);

    PredictorPanel* panel() const { return panel_; }
    QList<Dock> docks() const { return {dock_}; }
    void addActions(QMenu* menu);
    bool isFitting() const { return run_ != 0; }

public slots:
    // Fits a predictor to the table at `path` (the file chooser's answer when empty).
    void fitFromTable(const QString& path = {});
    void cancelFit();
    // The selected predictor over the designs table (its selected rows, or every row): a column
    // per condition; stored with the designs that are stored.
    void predictDesigns();
    // A fine-tuned regression checkpoint in `dir` (the folder chooser's answer when empty) as a
    // predictor for this session: loaded on the engine thread (EngineWorker::loadCheckpointPredictor),
    // listed beside the project's predictors, offered wherever they are; refused with the engine's reason.
    void loadCheckpoint(const QString& dir = {});

signals:
    // A fit ended: the predictor's name as listed ("" when it was cancelled or failed).
    void fitFinished(const QString& name, bool stored);
    // Designs predicted: how many (0 when cancelled or failed), and whether they were stored.
    void designsPredicted(int count, bool stored);
    void checkpointLoaded(const QString& message);

private:
    void endRun(const QString& text, const QString& name, bool stored);
    void endPrediction(const QString& text, int count, bool stored);
    void endLoad(const QString& text);
    QString freeName(const QString& wanted) const;
    QList<StoredPredictor> withCheckpoints(const QList<StoredPredictor>& project) const;

    WorkerThread<EngineWorker>* engine_;
    WorkerThread<ProjectStore>* store_;
    ModelController* models_;
    ProjectController* project_;
    DesignsController* designs_;
    WindowServices* services_;
    PredictorPanel* panel_;
    Dock dock_;
    quint64 run_ = 0;  // the fit or prediction in progress (an analysis id); 0 when none
    bool predicting_ = false;  // run_ predicts designs (else it fits)
    bool loading_ = false;     // run_ loads a checkpoint
    QList<StoredPredictor> checkpoints_;
    int requested_ = 0;    // designs sent to be predicted
    QString skippedNote_;  // what the final message adds about designs that left the table  // fine-tuned checkpoints loaded this session, listed with every project's
    QList<int> rows_;          // the designs table's rows being predicted
    QString predictor_;        // the predictor predicting them, as stored with the values
    QStringList outputs_;
    std::vector<std::string> sent_;  // the bases of each row predicted, as sent
    std::vector<std::string> heldOut_;
    QString name_;     // its predictor's name
    QString table_;    // its table
};

}  // namespace carbon::ui
