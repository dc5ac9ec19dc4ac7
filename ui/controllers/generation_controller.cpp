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
#include "views/construct_dialog.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/evolution_view.h"
#include "views/generation_panel.h"
#include "views/objective_section.h"
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
    connect(worker, &EngineWorker::rankingProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == currentRequest_) panel_->setRankingProgress(done, total, currentRanking_.predictor);
    });
    connect(worker, &EngineWorker::evolutionProgress, this, [this](quint64 id, qint64 round, qint64 done, qint64 total) {
        if (id == currentRequest_) panel_->setEvolutionProgress(round, done, total);
    });
    connect(worker, &EngineWorker::evolved, this, &GenerationController::onEvolved);
    evolution_ = new EvolutionView;
    evolutionDock_ = makeDock(evolution_, tr("Evolution"), "evolutionDock", Qt::BottomDockWidgetArea, false);
    connect(evolution_, &EvolutionView::openRound, this, &GenerationController::openRound);
    // The dock describes one sequence's evolution: another sequence, or another project's designs,
    // clear it rather than leave rounds the editor no longer holds.
    connect(doc_, &SequenceDocument::opened, this, [this] {
        ++openings_;
        if (evolution_->run() && !(evolutionSequence_ && evolutionSequence_ == doc_->storedId()))  // unstored: another one
            evolution_->clear(tr("%1 is open; the evolution shown was of another sequence. Open a round of one of its evolution "
                                 "runs in the Designs table to follow it here.")
                                  .arg(doc_->displayName()));
    });
    connect(designs_->model(), &QAbstractItemModel::modelReset, this, [this] {
        if (evolution_->run()) evolution_->clear(tr("The designs table changed: open a round of an evolution run to follow it here."));
    });
    connect(worker, &EngineWorker::generated, this, &GenerationController::onGenerated);
    connect(worker, &EngineWorker::finished, this, &GenerationController::onFinished);
    connect(worker, &EngineWorker::failed, this, &GenerationController::onFailed);
    connect(project_->store(), &ProjectStore::runStored, this, &GenerationController::onRunStored);
    // Runs are numbered as the project numbers them: the next after its last, whoever stored it.
    connect(project_, &ProjectController::snapshotOpened, this, [this](const ProjectSnapshot& snap) {
        nextRunNumber_ = 1;
        for (const carbon::storage::Run& r : snap.runs) nextRunNumber_ = std::max<qint64>(nextRunNumber_, r.id + 1);
        // A construct chosen in another project is not this one's, even under the same name.
        panel_->setConstructs({});
    });
    connect(project_->store(), &ProjectStore::vepRunStored, this,
            [this](quint64, const carbon::storage::Run& run, qint64) { nextRunNumber_ = std::max<qint64>(nextRunNumber_, run.id + 1); });
    // Constructs: the project's offered in the panel; New… stores one and chooses it.
    connect(project_, &ProjectController::constructsChanged, panel_, &GenerationPanel::setConstructs);
    connect(panel_, &GenerationPanel::newConstructRequested, this, &GenerationController::newConstruct);
    connect(project_->store(), &ProjectStore::constructAdded, this, [this](quint64 token, const QString& name, const ConstructList& all) {
        panel_->setConstructs(all);
        if (token != constructToken_) return;
        panel_->selectConstruct(name);
        panel_->setMessage(tr("Construct '%1' stored in the project and chosen.").arg(name));
    });
    connect(project_->store(), &ProjectStore::failed, this, [this](const QString& what, const QString& error) {
        if (what == tr("Add construct")) panel_->setMessage(tr("Construct not stored: %1").arg(error), true);
    });
    connect(panel_, &GenerationPanel::rulesFileRequested, this, [this] {
        const QString path = services_->chooseFile(false, tr("Synthesis rules file"), tr("Synthesis rules (*.rules);;All files (*)"));
        if (!path.isEmpty()) panel_->addRulesFile(path);
    });
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
    ObjectiveOrder ranking;  // generate and rank, when the objective section is ticked
    if (!panel_->objective()->order(ranking, error)) return refuse(error);
    if (ranking.active())  // named as Predict Designs names it, in the run and with each design's values
        ranking.predictor = predictorIdentity(ranking.predictor, ranking.checkpoint, project_->isOpen() ? project_->path() : QString());
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
    if (ranking.evolves() && regionLength <= 0)
        return refuse(tr("Evolve: select the bases to evolve in the editor, or mark a design region (Edit > Mark Design Region)."));
    // The whole sequence around the region, or the chosen construct's parts: the engine's rule
    // fits it to the model's context (fit_to_context, in the generation run) and says what it
    // trimmed when the run ends.
    // (Closing or opening a project empties or replaces the panel's constructs: one chosen is the open project's.)
    const std::optional<carbon::storage::ConstructRecord> construct = panel_->construct();
    const QByteArray left = construct ? QByteArray::fromStdString(construct->upstream) : all.left(regionStart);
    const QByteArray right = construct ? QByteArray::fromStdString(construct->downstream) : all.mid(regionStart + regionLength);
    request.left_context = left.toStdString();
    request.right_flank = right.toStdString();
    // Where the designs go, for the table now and the project once the run is stored.
    RunToStore pending;
    if (construct) pending.construct = std::make_shared<const carbon::storage::ConstructRecord>(*construct);
    pending.sequenceId = doc_->storedId();
    pending.documentOpening = openings_;
    pending.regionStart = regionStart;
    pending.regionLength = regionLength;

    // Latest request wins: cancel whatever is still running or queued, then send the new one.
    engine_->worker()->cancel(currentRequest_);
    ++currentRequest_;
    pending.number = quint64(nextRunNumber_++);  // taken now: a run started after this one is the next
    pendingRuns_.insert(currentRequest_, pending);
    running_ = true;
    designsThisRun_ = 0;
    runConstraintsActive_ = request.constraints.active();
    panel_->setRunning(true);
    panel_->saveSettings();  // what the next session starts from
    currentRanking_ = ranking;
    if (ranking.evolves()) {
        const QByteArray start = all.mid(regionStart, regionLength);
        services_->message(tr("Run %1: evolving %2 bp").arg(pending.number).arg(regionLength), 5000);
        services_->runLog()->runStarted(pending.number, tr("evolution of bases %1–%2 (%3 bp) by %4 of predictor %5, edit budget %6%7")
                                                            .arg(regionStart + 1).arg(regionStart + regionLength).arg(regionLength)
                                                            .arg(ranking.objective, ranking.predictor).arg(ranking.budget)
                                                            .arg(ranking.proposals > 0 ? tr(", %1 proposals per round, seed %2")
                                                                                             .arg(ranking.proposals).arg(request.sampling.seed)
                                                                                       : QString()));
        engine_->post([id = currentRequest_, request, start, ranking](EngineWorker* w) { w->evolve(id, request, start, ranking); });
        return;
    }
    services_->message(tr("Run %1: %2 design(s) of %3 bp, seed %4").arg(pending.number).arg(request.count).arg(request.length)
                           .arg(request.sampling.seed), 5000);
    QString what = construct ? tr("%1 design(s) of %2 bp in construct '%3' (%4 bp upstream, %5 bp downstream), seed %6")
                                   .arg(request.count).arg(request.length).arg(QString::fromStdString(construct->name))
                                   .arg(left.size()).arg(right.size()).arg(request.sampling.seed)
                             : tr("%1 design(s) of %2 bp, context %3 bp, flank %4 bp, seed %5")
                                   .arg(request.count).arg(request.length).arg(left.size()).arg(right.size()).arg(request.sampling.seed);
    if (ranking.active())
        what += ranking.keep > 0 ? tr(", ranked by %1 of predictor %2, the best %3 kept").arg(ranking.objective, ranking.predictor).arg(ranking.keep)
                                 : tr(", ranked by %1 of predictor %2").arg(ranking.objective, ranking.predictor);
    services_->runLog()->runStarted(pending.number, what);
    engine_->post([id = currentRequest_, request, ask = confirmAbove_, ranking](EngineWorker* w) { w->generate(id, request, ask, ranking); });
}

void GenerationController::newConstruct() {
    if (!project_->isOpen()) {
        panel_->setMessage(tr("Constructs are stored in a project: open or create one first (File > New Project)."), true);
        return;
    }
    ConstructDialog dialog(project_->constructs(), services_->window());
    if (dialog.exec() != QDialog::Accepted) return;
    const carbon::storage::ConstructRecord c = dialog.construct();
    project_->storeThread()->post([token = ++constructToken_, c](ProjectStore* s) { s->addConstruct(token, c); });
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
        giveBackNumber(number);
        running_ = false;
        panel_->setRunning(false);
        const QString text = tr("Run %1 not started: %2, and you chose not to start it.").arg(number).arg(plan);
        panel_->setMessage(text);
        services_->note(text);
        return;
    }
    engine_->post([id, request, ranking = currentRanking_](EngineWorker* w) { w->generate(id, request, 2.0, ranking); });  // confirmed: whatever it takes that fits
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

DesignRow GenerationController::rowFor(const RunToStore& placement, const Design& design) const {
    DesignRow row;
    row.design = design;
    row.run = placement.number;
    row.regionStart = placement.regionStart;
    row.regionLength = placement.regionLength;
    row.sequenceId = placement.sequenceId;
    row.constraintsActive = runConstraintsActive_;
    row.construct = placement.construct;
    return row;
}

void GenerationController::onDesign(quint64 id, const Design& design) {
    if (id != currentRequest_) return;
    ++designsThisRun_;
    designs_->model()->addRow(rowFor(pendingRuns_.value(id), design));
}

void GenerationController::onGenerated(quint64 id, const GenerationRunPtr& run) {
    // The run's designs with their per-base tracks: the table's minimum column, then the project.
    auto it = pendingRuns_.find(id);
    if (it == pendingRuns_.end()) return;
    RunToStore r = *it;  // kept until finished() for the run's number
    r.run = run;
    // Its number is taken: the next run is the one after it (stored or, without a project, counted).
    nextRunNumber_ = std::max<qint64>(nextRunNumber_, qint64(r.number) + 1);
    if (const std::optional<runs::ObjectiveRanking>& ranking = run->ranking) {
        // Ranked: the designs streamed in as they were made give way to the kept ones, best first,
        // with the objective and what the predictor said of each (as they will be stored).
        QList<DesignRow> rows;
        for (size_t i = 0; i < run->result.designs.size(); ++i) {
            DesignRow row = rowFor(r, run->result.designs[i]);
            if (i < ranking->values.size()) {
                row.objective = ranking->objective_values[i];
                for (size_t k = 0; k < ranking->outputs.size(); ++k)
                    row.predictions.push_back({ranking->predictor, ranking->outputs[k], ranking->values[i][k], ranking->held_out[k]});
            }
            rows << row;
        }
        designs_->model()->replaceRun(r.number, rows);
        designsThisRun_ = int(rows.size());
    }
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

void GenerationController::onEvolved(quint64 id, const EvolutionRunPtr& run) {
    // Every round a row of the designs table (the start first, rank = round), then the Evolution
    // dock from those rows, then the project.
    auto it = pendingRuns_.find(id);
    if (it == pendingRuns_.end() || id != currentRequest_) return;
    RunToStore placement = *it;
    // The sequence evolved was stored while the run went on: its rows and the stored run name it.
    if (placement.documentOpening == openings_ && !placement.sequenceId) placement.sequenceId = doc_->storedId();
    nextRunNumber_ = std::max<qint64>(nextRunNumber_, qint64(placement.number) + 1);
    QList<DesignRow> rows;
    for (const carbon::EvolutionRound& r : run->result.rounds) {
        carbon::Design d;
        d.index = r.round;
        d.rank = int(r.round);
        d.bases = r.bases;
        d.design_logp = r.plausibility;  // S when the plausibility term was used; NaN (blank) otherwise
        d.ranking_logp = std::nan("");
        DesignRow row = rowFor(placement, d);
        row.objective = r.objective;
        for (size_t k = 0; k < run->record.outputs.size() && k < r.values.size(); ++k)
            row.predictions.push_back({run->record.predictor, run->record.outputs[k], r.values[k],
                                       k < run->record.held_out.size() ? run->record.held_out[k] : std::string()});
        rows << row;
    }
    designs_->model()->replaceRun(placement.number, rows);
    designsThisRun_ = int(rows.size());
    // Still the sequence it evolved (else its rows are in the table): the same opening, though the
    // sequence may have been stored (and got its id) while the run went on.
    if (placement.documentOpening == openings_) {
        showEvolution(placement.number);
        services_->raiseDock(QStringLiteral("evolutionDock"));
    }
    if (project_->isOpen()) {
        EvolutionToStore e;
        e.number = placement.number;
        e.sequenceId = placement.sequenceId;
        e.regionStart = placement.regionStart;
        e.construct = placement.construct;
        e.run = run;
        project_->storeThread()->post([e](ProjectStore* s) { s->storeEvolution(e); });
    }
}

bool GenerationController::showEvolution(quint64 run) {
    const DesignTableModel* model = designs_->model();
    QList<const DesignRow*> rows;
    for (int i = 0; i < model->rowCount(); ++i)
        if (model->row(i).run == run) rows << &model->row(i);
    std::sort(rows.begin(), rows.end(), [](const DesignRow* a, const DesignRow* b) { return a->design.rank < b->design.rank; });
    if (rows.isEmpty() || rows.front()->design.rank != 0) return false;  // an evolution's start is round 0
    // The outputs, as the rounds' predictions name them (the first predictor's).
    QStringList outputs;
    std::string predictor;
    for (const carbon::storage::DesignPrediction& p : rows.front()->predictions) {
        if (predictor.empty()) predictor = p.predictor;
        if (p.predictor == predictor) outputs << QString::fromStdString(p.output);
    }
    QList<EvolutionView::Round> rounds;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        EvolutionView::Round r;
        r.round = rows[i]->design.rank;
        r.objective = rows[i]->objective;
        if (i > 0) {  // the edit: where this round's bases differ from the round before
            const std::string& a = rows[i - 1]->design.bases;
            const std::string& b = rows[i]->design.bases;
            for (size_t p = 0; p < a.size() && p < b.size(); ++p)
                if (a[p] != b[p]) r.edit += QStringLiteral("%1%2>%3 ").arg(p + 1).arg(QLatin1Char(a[p])).arg(QLatin1Char(b[p]));
            r.edit = r.edit.trimmed();
        }
        for (const QString& o : outputs) {
            double v = std::nan("");
            for (const carbon::storage::DesignPrediction& p : rows[i]->predictions)
                if (p.predictor == predictor && QString::fromStdString(p.output) == o) v = p.value;
            r.values << v;
        }
        rounds << r;
    }
    const DesignRow& start = *rows.front();
    evolutionSequence_ = start.sequenceId;
    const double first = rounds.front().objective, last = rounds.back().objective;
    const QString where = start.sequenceId == doc_->storedId() ? doc_->displayName() : tr("another sequence");
    evolution_->showRun(run,
                        tr("Run %1: %n round(s) evolving bases %2–%3 of %4 (edit positions are 1-based in the region); "
                           "objective %5 -> %6",
                           nullptr, int(rounds.size() - 1))
                            .arg(run).arg(start.regionStart + 1).arg(start.regionStart + start.regionLength).arg(where)
                            .arg(first, 0, 'g', 6).arg(last, 0, 'g', 6),
                        outputs, rounds);
    return true;
}

void GenerationController::openRound(quint64 run, int round) {
    const DesignTableModel* model = designs_->model();
    for (int i = 0; i < model->rowCount(); ++i)
        if (model->row(i).run == run && model->row(i).design.rank == round) return openDesign(i);
    services_->message(tr("Round %1 of run %2 is no longer in the designs table.").arg(round).arg(run), 6000);
}

void GenerationController::onFinished(quint64 id, bool cancelled, const QStringList& notices) {
    // A run with designs came with them scored (onGenerated, before this); a cancelled run
    // stores nothing.
    const quint64 number = pendingRuns_.take(id).number;
    if (id != currentRequest_) return;
    running_ = false;
    panel_->setRunning(false);
    emit lastRunRateChanged();
    if (cancelled) {
        giveBackNumber(number);
        // A ranked run cancelled: the proposals shown were never ranked, and go with it.
        if (currentRanking_.active() && !currentRanking_.evolves()) designs_->model()->replaceRun(number, {});
    }
    QString text = cancelled ? tr("Run %1 cancelled: nothing of it is stored, and the next run takes its number.").arg(number)
                             : tr("Run %1: %2 design(s).").arg(number).arg(designsThisRun_);
    if (cancelled && currentRanking_.active() && !currentRanking_.evolves())
        text += QLatin1Char(' ') + tr("Its proposals were not ranked, so they are not in the designs table.");
    if (!notices.isEmpty()) text += QLatin1Char('\n') + notices.join(QLatin1Char('\n'));
    panel_->setMessage(text);
    services_->runLog()->runFinished(number, cancelled, designsThisRun_, notices);
}

void GenerationController::onFailed(quint64 id, const QString& error) {
    const quint64 number = pendingRuns_.take(id).number;
    if (id != currentRequest_) return;
    running_ = false;
    panel_->setRunning(false);
    giveBackNumber(number);
    panel_->setMessage(error, true);
    services_->runLog()->runFailed(number, error);
    // Where the user looks: F5 works from anywhere, so the panel is brought forward and the bar says it too.
    services_->raiseDock(QStringLiteral("generationDock"));
    services_->messageBar()->showError(tr("Run %1: %2").arg(number).arg(error));
}

void GenerationController::giveBackNumber(quint64 number) {
    // Nothing of the run is stored: the next run takes its number, unless one started after it.
    if (nextRunNumber_ == qint64(number) + 1) nextRunNumber_ = qint64(number);
}

void GenerationController::onRunStored(quint64 number, const carbon::storage::Run& run,
                                       const QList<carbon::storage::DesignRecord>& designs) {
    QList<qint64> ids;
    for (const carbon::storage::DesignRecord& d : designs) ids << d.id;
    designs_->model()->attachStored(number, run.id, ids);
    if (evolution_->run() == number) showEvolution(quint64(run.id));  // its stored number from now on
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
    const quint64 run = r.run;
    const int round = r.design.rank;
    doc_->undoStack()->push(command);  // `r` may not outlive this (the table can change on signals)
    editor_->setSelection(start, start + bases.size());
    editor_->setFocus();
    // A round of an evolution: the run in the Evolution dock, its edits against the start marked.
    if (!showEvolution(run)) return;
    QList<const DesignRow*> rounds;
    for (int i = 0; i < model->rowCount(); ++i)
        if (model->row(i).run == run && model->row(i).design.rank <= round) rounds << &model->row(i);
    std::sort(rounds.begin(), rounds.end(), [](const DesignRow* a, const DesignRow* b) { return a->design.rank < b->design.rank; });
    const std::string& first = rounds.front()->design.bases;
    std::vector<int> changedIn(first.size(), 0);  // the round that last changed each base
    for (qsizetype k = 1; k < rounds.size(); ++k)
        for (size_t p = 0; p < changedIn.size() && p < rounds[k]->design.bases.size(); ++p)
            if (rounds[k]->design.bases[p] != rounds[k - 1]->design.bases[p]) changedIn[p] = rounds[k]->design.rank;
    QVector<SequenceEditor::EditMark> marks;
    const std::string& now = rounds.back()->design.bases;
    for (size_t p = 0; p < first.size() && p < now.size(); ++p)
        if (first[p] != now[p])
            marks.append({start + qsizetype(p), tr("%1>%2, round %3 of run %4").arg(QLatin1Char(first[p])).arg(QLatin1Char(now[p]))
                                                     .arg(changedIn[p]).arg(run)});
    editor_->setEditMarks(marks);
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
