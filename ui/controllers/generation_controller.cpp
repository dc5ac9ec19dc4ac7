// GenerationController: Run, Cancel, streaming designs and storing the run (see
// generation_controller.h).
#include "generation_controller.h"

#include <QAction>
#include <QLineEdit>
#include <QMenu>
#include <QUndoStack>
#include <cmath>
#include <utility>

#include "controllers/designs_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/generation_panel.h"
#include "views/message_bar.h"
#include "views/project_browser.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

GenerationController::GenerationController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<EngineWorker>* engine,
                                           ModelController* models, ProjectController* project, DesignsController* designs,
                                           WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), engine_(engine), models_(models), project_(project), designs_(designs),
      services_(services), panel_(new GenerationPanel) {
    dock_ = makeDock(panel_, tr("Generation"), "generationDock", Qt::RightDockWidgetArea, true);
    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::planned, this, &GenerationController::onPlanned);
    connect(worker, &EngineWorker::confirmationNeeded, this, &GenerationController::onConfirmationNeeded);
    connect(worker, &EngineWorker::progress, this, &GenerationController::onProgress);
    connect(worker, &EngineWorker::designReady, this, &GenerationController::onDesign);
    connect(worker, &EngineWorker::generated, this, &GenerationController::onGenerated);
    connect(worker, &EngineWorker::finished, this, &GenerationController::onFinished);
    connect(worker, &EngineWorker::failed, this, &GenerationController::onFailed);
    connect(project_->store(), &ProjectStore::runStored, this, &GenerationController::onRunStored);
    // Runs are numbered as the project numbers them: the next after its last, whoever stored it.
    connect(project_, &ProjectController::snapshotOpened, this, [this](const ProjectSnapshot& snap) {
        nextRunNumber_ = 1;
        for (const carbon::storage::Run& r : snap.runs) nextRunNumber_ = std::max<qint64>(nextRunNumber_, r.id + 1);
    });
    connect(project_->store(), &ProjectStore::vepRunStored, this,
            [this](quint64, const carbon::storage::Run& run, qint64) { nextRunNumber_ = std::max<qint64>(nextRunNumber_, run.id + 1); });
    connect(panel_, &GenerationPanel::runRequested, this, &GenerationController::runGeneration);
    connect(panel_, &GenerationPanel::cancelRequested, this, &GenerationController::cancelGeneration);
    connect(designs_->view(), &DesignsView::openDesign, this, &GenerationController::openDesign);
    connect(models_, &ModelController::loaded, this, [this] {
        if (!std::exchange(waitingForModel_, false)) return;
        panel_->setRunning(false);
        runGeneration();
    });
    connect(models_, &ModelController::failed, this, [this](const QString& dir) {
        if (!std::exchange(waitingForModel_, false)) return;
        panel_->setRunning(false);
        panel_->setMessage(tr("Run not started: the model %1 did not load.").arg(dir), true);
    });
    connect(models_, &ModelController::changed, this,
            [this] { panel_->setModels(models_->isReady() ? models_->dir() : QString(), models_->draftDir()); });
    connect(doc_, &SequenceDocument::regionsChanged, this, &GenerationController::syncTemplateFromRegions);
    connect(doc_, &SequenceDocument::changed, this, &GenerationController::syncTemplateFromRegions);
}

void GenerationController::addGenerateActions(QMenu* menu) {
    run_ = menu->addAction(tr("&Run"), this, &GenerationController::runGeneration);
    run_->setShortcuts({QKeySequence(tr("Ctrl+R")), QKeySequence(Qt::Key_F5)});
    cancel_ = menu->addAction(tr("&Cancel"), this, &GenerationController::cancelGeneration);
    cancel_->setShortcuts({QKeySequence(tr("Ctrl+.")), QKeySequence(tr("Shift+F5"))});
}

void GenerationController::runGeneration() {
    DesignRequest request;
    QString error;
    panel_->drawSeed();  // a new seed unless the user keeps one
    // What stops a Run is said in the panel and where the user looks (F5 works from anywhere).
    auto refuse = [this](const QString& text, const QString& actionText = {}, std::function<void()> action = {}) {
        panel_->setMessage(text, true);
        services_->raiseDock(QStringLiteral("generationDock"));
        services_->error(tr("Run: %1").arg(text), actionText, std::move(action));
    };
    if (!panel_->buildRequest(request, error)) return refuse(error);
    if (!models_->isReady() && models_->isLoading()) {
        // F5 while the model loads (at start, or just after Open Model Folder): the run waits for it.
        waitingForModel_ = true;
        panel_->setRunning(true);
        panel_->setMessage(tr("Waiting for the model to load; the run starts when it has (Cancel to drop it)."));
        services_->message(tr("The run starts when the model has loaded"), 5000);
        return;
    }
    if (!models_->isReady())
        return refuse(tr("no model is loaded: open a model folder first."), tr("Open Model Folder…"),
                      [this] { models_->openFolderAction()->trigger(); });
    // The design region: a marked design region (Edit > Mark Design Region) if any, else the
    // selection, else the end of the sequence.
    const QByteArray& all = doc_->bases();
    qsizetype regionStart = editor_->hasSelection() ? editor_->selectionStart() : all.size();
    qsizetype regionLength = editor_->hasSelection() ? editor_->selectionEnd() - regionStart : 0;
    for (const Region& r : doc_->regions()) {
        if (r.kind != Region::Kind::Design) continue;
        regionStart = r.start;
        regionLength = r.end - r.start;
        break;
    }
    // The whole sequence around the region: the engine's rule fits it to the model's context
    // (fit_to_context, in the generation run) and says what it trimmed when the run ends.
    const QByteArray left = all.left(regionStart);
    const QByteArray right = all.mid(regionStart + regionLength);
    request.left_context = left.toStdString();
    request.right_flank = right.toStdString();
    // Where the designs go, for the table now and the project once the run is stored.
    RunToStore pending;
    pending.sequenceId = doc_->storedId();
    pending.regionStart = regionStart;
    pending.regionLength = regionLength;

    // Latest request wins: cancel whatever is still running or queued, then send the new one.
    engine_->worker()->cancel(currentRequest_);
    ++currentRequest_;
    pending.number = quint64(nextRunNumber_);
    pendingRuns_.insert(currentRequest_, pending);
    running_ = true;
    designsThisRun_ = 0;
    runConstraintsActive_ = request.constraints.active();
    panel_->setRunning(true);
    services_->message(tr("Run %1: %2 design(s) of %3 bp, seed %4").arg(pending.number).arg(request.count).arg(request.length)
                           .arg(request.sampling.seed), 5000);
    services_->runLog()->runStarted(pending.number, tr("%1 design(s) of %2 bp, context %3 bp, flank %4 bp, seed %5")
                                                        .arg(request.count).arg(request.length).arg(left.size()).arg(right.size())
                                                        .arg(request.sampling.seed));
    panel_->saveSettings();  // what the next session starts from
    engine_->post([id = currentRequest_, request, ask = confirmAbove_](EngineWorker* w) { w->generate(id, request, ask); });
}

void GenerationController::onPlanned(quint64 id, double need, double available) {
    if (id != currentRequest_) return;
    services_->runLog()->runPlanned(pendingRuns_.value(id).number, need, available);
}

void GenerationController::onConfirmationNeeded(quint64 id, const DesignRequest& request, double need, double available) {
    if (id != currentRequest_ || !running_) return;  // replaced or cancelled while it was planned
    const quint64 number = pendingRuns_.value(id).number;
    const QString plan = memoryPlanText(need, available);
    const bool yes = services_->confirm(
        tr("Run %1 takes much memory").arg(number),
        tr("Run %1 (%2 design(s) of %3 bp): %4.\n\nThe computer may slow down while it runs, and other programs may run "
           "short of memory. Start it, or cancel and ask for fewer or shorter designs?")
            .arg(number).arg(request.count).arg(request.length).arg(plan),
        tr("Start Run"));
    if (id != currentRequest_ || !running_) return;
    if (!yes) {
        pendingRuns_.remove(id);
        running_ = false;
        panel_->setRunning(false);
        const QString text = tr("Run %1 not started: %2, and you chose not to start it.").arg(number).arg(plan);
        panel_->setMessage(text);
        services_->note(text);
        return;
    }
    engine_->post([id, request](EngineWorker* w) { w->generate(id, request, 2.0); });  // confirmed: whatever it takes that fits
}

void GenerationController::cancelGeneration() {
    if (waitingForModel_) {
        waitingForModel_ = false;
        panel_->setRunning(false);
        panel_->setMessage(tr("Run dropped before it started."));
        return;
    }
    if (!running_) return;
    engine_->worker()->cancel(currentRequest_);
    panel_->setMessage(tr("Cancelling…"));
}

void GenerationController::onProgress(quint64 id, qint64 done, qint64 total, double bps) {
    if (id != currentRequest_) return;
    lastRunBps_ = bps;
    panel_->setProgress(done, total, bps);
    services_->runLog()->runProgress(pendingRuns_.value(id).number, done, total, bps);
}

void GenerationController::onDesign(quint64 id, const Design& design) {
    if (id != currentRequest_) return;
    ++designsThisRun_;
    const RunToStore placement = pendingRuns_.value(id);
    DesignRow row;
    row.design = design;
    row.run = placement.number;
    row.regionStart = placement.regionStart;
    row.regionLength = placement.regionLength;
    row.sequenceId = placement.sequenceId;
    row.constraintsActive = runConstraintsActive_;
    designs_->model()->addRow(row);
}

void GenerationController::onGenerated(quint64 id, const GenerationRunPtr& run) {
    // The run's designs with their per-base tracks: the table's minimum column, then the project.
    auto it = pendingRuns_.find(id);
    if (it == pendingRuns_.end()) return;
    RunToStore r = *it;  // kept until finished() for the run's number
    r.run = run;
    // Its number is taken: the next run is the one after it (stored or, without a project, counted).
    nextRunNumber_ = std::max<qint64>(nextRunNumber_, qint64(r.number) + 1);
    QList<double> minima;
    for (const std::vector<BaseScore>& track : run->tracks) {
        double m = std::nan("");
        for (const BaseScore& b : track)
            if (!std::isnan(b.logp) && (std::isnan(m) || b.logp < m)) m = b.logp;
        minima << m;
    }
    designs_->model()->setMinBaseScores(r.number, minima);
    if (project_->isOpen()) project_->storeThread()->post([r](ProjectStore* s) { s->storeRun(r); });
}

void GenerationController::onFinished(quint64 id, bool cancelled, const QStringList& notices) {
    // A run with designs came with them scored (onGenerated, before this); a cancelled run
    // stores nothing.
    const quint64 number = pendingRuns_.take(id).number;
    if (id != currentRequest_) return;
    running_ = false;
    panel_->setRunning(false);
    emit lastRunRateChanged();
    QString text = cancelled ? tr("Run %1 cancelled: nothing of it is stored, and the next run takes its number.").arg(number)
                             : tr("Run %1: %2 design(s).").arg(number).arg(designsThisRun_);
    if (!notices.isEmpty()) text += QLatin1Char('\n') + notices.join(QLatin1Char('\n'));
    panel_->setMessage(text);
    services_->runLog()->runFinished(number, cancelled, designsThisRun_, notices);
}

void GenerationController::onFailed(quint64 id, const QString& error) {
    const quint64 number = pendingRuns_.take(id).number;
    if (id != currentRequest_) return;
    running_ = false;
    panel_->setRunning(false);
    panel_->setMessage(error, true);
    services_->runLog()->runFailed(number, error);
    // Where the user looks: F5 works from anywhere, so the panel is brought forward and the bar says it too.
    services_->raiseDock(QStringLiteral("generationDock"));
    services_->messageBar()->showError(tr("Run %1: %2").arg(number).arg(error));
}

void GenerationController::onRunStored(quint64 number, const carbon::storage::Run& run,
                                       const QList<carbon::storage::DesignRecord>& designs) {
    QList<qint64> ids;
    for (const carbon::storage::DesignRecord& d : designs) ids << d.id;
    designs_->model()->attachStored(number, run.id, ids);
    project_->browser()->addRun(run, int(designs.size()));
    nextRunNumber_ = std::max<qint64>(nextRunNumber_, run.id + 1);
    services_->note(qint64(number) == run.id
                        ? tr("Run %1 stored in the project with %n design(s).", nullptr, int(ids.size())).arg(run.id)
                        : tr("Run %1 stored as project run %2 (another program stored a run meanwhile) with %n design(s).", nullptr,
                             int(ids.size())).arg(number).arg(run.id));
}

void GenerationController::openDesign(int row) {
    DesignTableModel* model = designs_->model();
    if (row < 0 || row >= model->rowCount()) return;
    const DesignRow& r = model->row(row);
    if (r.sequenceId && r.sequenceId != doc_->storedId()) {
        services_->message(tr("This design was made for another sequence: open that sequence in the project browser first."), 8000);
        return;
    }
    // The region may have moved since the run if the sequence was edited; clamp to what exists.
    const qsizetype start = std::min(r.regionStart, doc_->size());
    const qsizetype len = std::min(r.regionLength, doc_->size() - start);
    const QByteArray bases = QByteArray::fromStdString(r.design.bases);
    auto* command = new ReplaceBasesCommand(doc_, start, len, bases);
    command->setText(tr("Open Design %1 of Run %2").arg(r.design.index + 1).arg(r.run));
    doc_->undoStack()->push(command);
    editor_->setSelection(start, start + bases.size());
    editor_->setFocus();
}

void GenerationController::syncTemplateFromRegions() {
    // The design region's template: the panel's IUPAC letters, with the bases of every pinned
    // motif inside the design region fixed to the editor's bases there.
    const Region* design = nullptr;
    for (const Region& r : doc_->regions())
        if (r.kind == Region::Kind::Design) {
            design = &r;
            break;
        }
    if (!design) {
        pinnedMask_.clear();
        return;
    }
    const qsizetype len = design->end - design->start;
    QByteArray t = panel_->templateEdit()->text().toUpper().toLatin1();
    if (t.size() != len) t = QByteArray(len, 'N');
    QByteArray mask(len, 0);
    for (const Region& r : doc_->regions()) {
        if (r.kind != Region::Kind::PinnedMotif) continue;
        for (qsizetype p = std::max(r.start, design->start); p < std::min(r.end, design->end); ++p) {
            t[p - design->start] = doc_->bases()[p];
            mask[p - design->start] = 1;
        }
    }
    // Positions pinned before but not any more are free again.
    for (qsizetype i = 0; i < len && i < pinnedMask_.size(); ++i)
        if (pinnedMask_[i] && !mask[i]) t[i] = 'N';
    pinnedMask_ = mask;
    if (panel_->templateEdit()->text().toLatin1() != t) panel_->templateEdit()->setText(QString::fromLatin1(t));
}

}  // namespace carbon::ui
