// PredictorController: fitting, storing and showing activity predictors (see predictor_controller.h).
#include "predictor_controller.h"

#include <QFileInfo>
#include <algorithm>
#include <QMenu>

#include "controllers/designs_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/predictor_panel.h"

namespace carbon::ui {

PredictorController::PredictorController(WorkerThread<EngineWorker>* engine, ModelController* models, ProjectController* project,
                                         DesignsController* designs, WindowServices* services, QObject* parent)
    : QObject(parent), engine_(engine), store_(project->storeThread()), models_(models), project_(project), designs_(designs),
      services_(services), panel_(new PredictorPanel) {
    dock_ = makeDock(panel_, tr("Predictors"), "predictorsDock", Qt::LeftDockWidgetArea, true);  // scrolls on a laptop screen
    connect(panel_, &PredictorPanel::fitRequested, this, [this] { fitFromTable(); });
    connect(panel_, &PredictorPanel::cancelRequested, this, &PredictorController::cancelFit);
    connect(panel_, &PredictorPanel::predictRequested, this, &PredictorController::predictDesigns);
    connect(panel_, &PredictorPanel::loadCheckpointRequested, this, [this] { loadCheckpoint(); });
    connect(project_, &ProjectController::snapshotOpened, this, [this](const ProjectSnapshot& snap) {
        panel_->setPredictors(withCheckpoints(snap.predictors), tr("Predictors of %1").arg(QFileInfo(snap.path).fileName()));
    });
    connect(project_, &ProjectController::projectClosed, this, [this] {
        panel_->setPredictors(withCheckpoints({}), tr("No project is open: a predictor fitted now is kept until the window closes."));
    });

    // Fit: project store (the table, names resolved) -> engine (embed, fit) -> project store (stored).
    ProjectStore* store = store_->worker();
    connect(store, &ProjectStore::measurementsRead, this, [this](quint64 token, const MeasurementTablePtr& table) {
        if (token != run_) return;
        panel_->setMessage(tr("Embedding %n sequence(s) of %1 with %2…", nullptr, int(table->rows.size()))
                               .arg(QFileInfo(table_).fileName(), QFileInfo(models_->dir()).fileName()));
        engine_->post([token, table](EngineWorker* w) { w->fitPredictor(token, table, QStringLiteral("both"), false, 5); });
    });
    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == run_ && run_) panel_->setProgress(done, total, predicting_ ? tr("designs predicted") : tr("sequences embedded"));
    });
    connect(worker, &EngineWorker::predictorFitted, this, [this](quint64 id, const ProbePtr& probe, double embedS, double fitS) {
        if (id != run_) return;
        services_->note(tr("Predictor '%1' fitted to %2: embedding %3 s, fitting %4 s").arg(name_, table_).arg(embedS, 0, 'f', 1).arg(fitS, 0, 'f', 2));
        if (!project_->isOpen()) {
            StoredPredictor p;
            p.name = name_;
            p.probe = probe;
            panel_->addPredictor(p);
            return endRun(tr("Predictor '%1' fitted; no project is open, so it is kept until the window closes.").arg(name_), name_, false);
        }
        panel_->setMessage(tr("Storing '%1' in the project…").arg(name_));
        store_->post([id, name = name_, probe](ProjectStore* s) { s->storePredictor(id, name, probe); });
    });
    connect(store, &ProjectStore::predictorStored, this, [this](quint64 token, const StoredPredictor& p) {
        if (token != run_) return;
        panel_->addPredictor(p);
        QStringList figures;
        for (size_t c = 0; p.probe && c < p.probe->conditions.size(); ++c)
            figures << QStringLiteral("%1 r %2").arg(QString::fromStdString(p.probe->conditions[c].name)).arg(p.probe->conditions[c].pearson, 0, 'f', 2);
        endRun(tr("Predictor '%1' stored in the project; held out: %2.").arg(p.name, figures.join(QStringLiteral(", "))), p.name, true);
    });
    connect(worker, &EngineWorker::checkpointPredictorLoaded, this, [this](quint64 id, const StoredPredictor& loaded) {
        if (id != run_ || !loading_) return;
        StoredPredictor p = loaded;
        // A checkpoint loaded again replaces its entry; a name taken by another gets a number.
        for (qsizetype i = 0; i < checkpoints_.size(); ++i)
            if (checkpoints_[i].checkpoint == p.checkpoint) checkpoints_.removeAt(i--);
        QList<StoredPredictor> listed;
        for (const StoredPredictor& q : panel_->predictors())
            if (q.checkpoint != p.checkpoint) listed << q;
        panel_->setPredictors(listed, panel_->whereText());
        p.name = freeName(p.name);
        checkpoints_ << p;
        panel_->addPredictor(p);
        endLoad(tr("Checkpoint '%1' loaded as a predictor of %2. %3").arg(p.name, p.labels.join(QStringLiteral(", ")), p.note));
    });
    connect(worker, &EngineWorker::analysisCancelled, this, [this](quint64 id) {
        if (id != run_ || !run_) return;
        if (loading_) endLoad(tr("Loading the checkpoint cancelled."));
        else if (predicting_) endPrediction(tr("Predicting designs cancelled: nothing was changed."), 0, false);
        else endRun(tr("Fitting cancelled: nothing was stored."), QString(), false);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id != run_ || !run_) return;
        if (loading_) endLoad(tr("The checkpoint was not loaded: %1").arg(error));
        else if (predicting_) endPrediction(tr("Predicting designs failed: %1").arg(error), 0, false);
        else endRun(tr("Fitting the predictor failed: %1").arg(error), QString(), false);
    });
    connect(store, &ProjectStore::failed, this, [this](const QString& what, const QString& error) {
        if (!run_) return;
        if (predicting_ && what == tr("Store predictions")) endPrediction(tr("%1 failed: %2").arg(what, error), 0, false);
        else if (!predicting_ && (what == tr("Fit predictor") || what == tr("Store predictor")))
            endRun(tr("%1 failed: %2").arg(what, error), QString(), false);
    });

    // Predict designs: engine (the values) -> the table, and the project store for stored designs.
    connect(worker, &EngineWorker::sequencesPredicted, this, [this](quint64 id, const QList<QList<double>>& values) {
        if (id != run_ || !predicting_) return;
        DesignPredictionList predictions;
        QList<qint64> storedIds;
        DesignPredictionList storedPredictions;
        QList<int> rows;  // the rows still holding the designs predicted (the table may have changed meanwhile)
        for (qsizetype i = 0; i < values.size() && i < rows_.size(); ++i) {
            const int r = rows_[i];
            if (r >= designs_->model()->rowCount() || designs_->model()->row(r).design.bases != sent_[i]) continue;
            rows.append(r);
            std::vector<carbon::storage::DesignPrediction> row;
            for (qsizetype k = 0; k < values[i].size(); ++k)
                row.push_back({predictor_.toStdString(), outputs_.value(k).toStdString(), values[i][k],
                               size_t(k) < heldOut_.size() ? heldOut_[size_t(k)] : std::string()});
            const qint64 designId = designs_->model()->row(r).designId;
            if (designId) {
                storedIds.append(designId);
                storedPredictions.append(row);
            }
            predictions.append(std::move(row));
        }
        designs_->model()->setPredictions(rows, predictions);
        rows_ = rows;
        const int n = int(predictions.size());
        const QString left = requested_ > n ? tr(" %n design(s) left the table while it ran and got no values.", nullptr, requested_ - n)
                                            : QString();
        if (storedIds.isEmpty() || !project_->isOpen())
            return endPrediction(tr("Predicted %n design(s) with '%1'; none is stored in a project, so the values stay in the table.", nullptr, n)
                                         .arg(predictor_) + left,
                                 n, false);
        skippedNote_ = left;
        panel_->setMessage(tr("Storing the predictions of %n design(s)…", nullptr, int(storedIds.size())));
        store_->post([id, storedIds, storedPredictions](ProjectStore* s) { s->storeDesignPredictions(id, storedIds, storedPredictions); });
    });
    connect(store, &ProjectStore::designPredictionsStored, this, [this](quint64 token, qint64 stored) {
        if (token != run_ || !predicting_) return;
        endPrediction(tr("Predicted %n design(s) with '%1'; stored with the designs.", nullptr, int(rows_.size())).arg(predictor_) +
                          (stored < rows_.size() ? tr(" (%1 of them not yet stored: their values stay in the table)").arg(rows_.size() - stored) : QString()) +
                          skippedNote_,
                      int(rows_.size()), true);
    });
}

QList<StoredPredictor> PredictorController::withCheckpoints(const QList<StoredPredictor>& project) const {
    // The session's checkpoints after the project's predictors; one whose name the project uses is
    // listed as "NAME (checkpoint)", so that every name listed is one predictor.
    QList<StoredPredictor> all = project;
    for (StoredPredictor c : checkpoints_) {
        auto taken = [&](const QString& name) {
            return std::any_of(all.begin(), all.end(), [&](const StoredPredictor& p) { return p.name == name; });
        };
        const QString base = c.name;
        if (taken(c.name)) c.name = tr("%1 (checkpoint)").arg(base);
        for (int k = 2; taken(c.name); ++k) c.name = tr("%1 (checkpoint %2)").arg(base).arg(k);
        all << c;
    }
    return all;
}

void PredictorController::addActions(QMenu* menu) {
    menu->addAction(tr("Fit &Predictor to Measurements…"), this, [this] { fitFromTable(); });
    menu->addAction(tr("Load Fine-tuned &Checkpoint as Predictor…"), this, [this] { loadCheckpoint(); });
}

void PredictorController::loadCheckpoint(const QString& dir) {
    services_->raiseDock(QStringLiteral("predictorsDock"));
    if (run_) return panel_->setMessage(tr("A predictor is working already: cancel it first."));
    const QString folder = dir.isEmpty() ? services_->chooseDirectory(tr("Load a Fine-tuned Checkpoint as Predictor")) : dir;
    if (folder.isEmpty()) return;
    run_ = nextAnalysisId();
    loading_ = true;
    panel_->setRunning(true);
    panel_->setMessage(tr("Loading the checkpoint %1…").arg(folder));
    engine_->post([id = run_, folder](EngineWorker* w) { w->loadCheckpointPredictor(id, folder); });
}

void PredictorController::endLoad(const QString& text) {
    panel_->setRunning(false);
    panel_->setMessage(text);
    run_ = 0;
    loading_ = false;
    services_->report(text);
    emit checkpointLoaded(text);
}

QString PredictorController::freeName(const QString& wanted) const {
    // A name the panel (the project's predictors) does not hold yet: "mpra", then "mpra 2", ...
    const QString base = (wanted.isEmpty() ? tr("predictor") : wanted).left(190);
    QString name = base;
    for (int k = 2; panel_->contains(name); ++k) name = QStringLiteral("%1 %2").arg(base).arg(k);
    return name;
}

void PredictorController::fitFromTable(const QString& path) {
    if (run_) return panel_->setMessage(tr("A predictor is being fitted already: cancel it first."));
    if (!models_->isReady()) {
        panel_->setMessage(tr("No model is loaded: open the model whose embeddings the predictor reads first (File > Open Model Folder)."));
        return services_->message(panel_->message(), 10000);
    }
    const QString table = path.isEmpty()
                              ? services_->chooseFile(false, tr("Fit a Predictor to Measurements"),
                                                      tr("Measurement tables (*.tsv *.csv *.txt *.tab);;All files (*)"))
                              : path;
    if (table.isEmpty()) return;
    project_->flushAutosave();  // names are resolved against the sequences as they are now
    run_ = nextAnalysisId();
    table_ = table;
    name_ = freeName(QFileInfo(table).completeBaseName());
    panel_->setRunning(true);
    panel_->setMessage(tr("Reading %1…").arg(QFileInfo(table).fileName()));
    services_->raiseDock(QStringLiteral("predictorsDock"));
    store_->post([id = run_, table](ProjectStore* s) { s->readMeasurements(id, table); });
}

void PredictorController::cancelFit() {
    if (!run_) return;
    engine_->worker()->cancelAnalysis(run_);
    panel_->setMessage(tr("Cancelling after the current batch…"));
}

void PredictorController::predictDesigns() {
    if (run_) return panel_->setMessage(tr("A predictor is working already: cancel it first."));
    const StoredPredictor* p = panel_->selected();
    if (!p) return panel_->setMessage(tr("Select a predictor first."));
    if (!models_->isReady() && p->checkpoint.isEmpty())
        return panel_->setMessage(tr("No model is loaded: open the model '%1' was fitted on first.").arg(p->name));
    DesignTableModel* table = designs_->model();
    QList<int> rows = designs_->view()->selectedSourceRows();
    if (rows.isEmpty())
        for (int r = 0; r < table->rowCount(); ++r) rows.append(r);
    if (rows.isEmpty()) return panel_->setMessage(tr("The Designs table is empty: generate or open designs first."));
    QList<QByteArray> bases;
    sent_.clear();
    requested_ = int(rows.size());
    for (int r : rows) {
        bases.append(QByteArray::fromStdString(table->row(r).design.bases));
        sent_.push_back(table->row(r).design.bases);
    }
    run_ = nextAnalysisId();
    predicting_ = true;
    rows_ = rows;
    predictor_ = predictorIdentity(p->name, p->checkpoint, project_->isOpen() ? project_->path() : QString());
    outputs_ = p->outputs();
    heldOut_.clear();
    for (qsizetype c = 0; c < outputs_.size(); ++c) heldOut_.push_back(p->heldOut(int(c)).toStdString());
    panel_->setRunning(true);
    panel_->setMessage(tr("Predicting %n design(s) with '%1'…", nullptr, int(rows.size())).arg(p->name));
    engine_->post([id = run_, ref = p->ref(), bases](EngineWorker* w) { w->predictSequences(id, ref, bases); });
}

void PredictorController::endPrediction(const QString& text, int count, bool stored) {
    panel_->setRunning(false);
    panel_->setMessage(text);
    run_ = 0;
    predicting_ = false;
    rows_.clear();
    services_->report(text);
    emit designsPredicted(count, stored);
}

void PredictorController::endRun(const QString& text, const QString& name, bool stored) {
    panel_->setRunning(false);
    panel_->setMessage(text);
    run_ = 0;
    services_->report(text);
    emit fitFinished(name, stored);
}

}  // namespace carbon::ui
