// MainWindow's project wiring: the project store on its own thread, the project browser, File
// menu actions (new / open / recent / save as / import / export), drag-and-drop, autosave of the
// edited sequence, storing finished runs with their per-base tracks, and design verdicts.
#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>

#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/base_inspector.h"
#include "views/generation_panel.h"
#include "controllers/likelihood_controller.h"
#include "views/model_panel.h"
#include "main_window.h"
#include "views/vep_result.h"
#include "views/project_browser.h"
#include "workers/project_store.h"
#include "views/run_log.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"
#include "views/track_chart_view.h"
#include "views/welcome_page.h"

#include "carbon/storage/flatfile.h"

namespace carbon::ui {

namespace {
constexpr int kMaxRecentProjects = 8;
const char* kRecentProjectsKey = "projects/recent";
constexpr int kAutosaveDelayMs = 600;

bool hasSuffix(const QString& path, std::initializer_list<const char*> suffixes) {
    const QString lower = path.toLower();
    for (const char* s : suffixes)
        if (lower.endsWith(QLatin1String(s))) return true;
    return false;
}
bool isProjectFile(const QString& p) { return hasSuffix(p, {".carbon"}); }
bool isVcfFile(const QString& p) { return hasSuffix(p, {".vcf", ".vcf.gz"}); }
bool isFastaFile(const QString& p) {
    return hasSuffix(p, {".fa", ".fasta", ".fna", ".fas", ".txt", ".fa.gz", ".fasta.gz", ".fna.gz"});
}
// GenBank / EMBL by name, or by content whatever the name (SnapGene and Benchling exports are
// .gb, .gbk, .genbank; ENA's .embl, .dat; NCBI's division files .seq).
bool isFlatFile(const QString& p) {
    if (hasSuffix(p, {".gb", ".gbk", ".genbank", ".gbff", ".embl", ".gb.gz", ".gbk.gz", ".gbff.gz", ".embl.gz"})) return true;
    QFile f(p);
    if (!f.open(QIODevice::ReadOnly)) return false;
    return carbon::storage::looks_like_flat_file(f.read(64 * 1024).toStdString());
}
}  // namespace

void MainWindow::setupProject() {
    registerProjectMetaTypes();
    browser_ = new ProjectBrowser;
    addPanel(browser_, tr("Project"), "projectDock", Qt::LeftDockWidgetArea, false);

    designChart_ = new TrackChartView;
    designChart_->setAccessibleName(tr("Design tracks"));
    addPanel(designChart_, tr("Design Tracks"), "designTracksDock", Qt::BottomDockWidgetArea, false);

    store_ = new ProjectStore;
    store_->moveToThread(&storeThread_);
    storeThread_.setObjectName(QStringLiteral("carbon-project"));
    connect(&storeThread_, &QThread::finished, store_, &QObject::deleteLater);
    connect(this, &MainWindow::openProjectRequested, store_, &ProjectStore::open);
    connect(this, &MainWindow::closeProjectRequested, store_, &ProjectStore::close);
    connect(this, &MainWindow::loadSequenceRequested, store_, &ProjectStore::loadSequence);
    connect(this, &MainWindow::saveSequenceRequested, store_, &ProjectStore::saveSequence);
    connect(this, &MainWindow::importFastaRequested, store_, &ProjectStore::importFasta);
    connect(this, &MainWindow::importFlatFileRequested, store_, &ProjectStore::importFlatFile);
    connect(this, &MainWindow::importVcfRequested, store_, &ProjectStore::importVcf);
    connect(this, &MainWindow::storeRunRequested, store_, &ProjectStore::storeRun);
    connect(this, &MainWindow::designFlagRequested, store_, &ProjectStore::setDesignFlag);
    connect(this, &MainWindow::exportRequested, store_, &ProjectStore::exportFile);
    connect(this, &MainWindow::saveCopyRequested, store_, &ProjectStore::saveCopy);
    connect(this, &MainWindow::designTracksRequested, store_, &ProjectStore::loadDesignTracks);
    connect(this, &MainWindow::createSampleRequested, store_, &ProjectStore::createSample);
    connect(store_, &ProjectStore::variantsListed, browser_, &ProjectBrowser::setVariants);
    connect(store_, &ProjectStore::opened, this, &MainWindow::onProjectOpened);
    connect(store_, &ProjectStore::closed, this, [this] {
        projectPath_.clear();
        sequenceId_ = 0;
        browser_->showNoProject();
        setWindowFilePath({});
        updateStatus();
    });
    connect(store_, &ProjectStore::sequenceLoaded, this, &MainWindow::onSequenceLoaded);
    connect(store_, &ProjectStore::sequenceSaved, this, [this](quint64 token, qint64 id) {
        if (token == saveToken_) {
            if (sequenceId_ == 0) {
                sequenceId_ = id;
                browser_->setCurrentSequence(id);
            }
            saveInFlight_ = false;
            browser_->updateSequenceLength(id, doc_->size());
            if (saveAgain_) {
                saveAgain_ = false;
                autosave_->start(0);
            }
        }
    });
    connect(store_, &ProjectStore::sequencesAdded, this, [this](const QList<StoredSequence>& added, const QString& summary) {
        browser_->addSequences(added);
        if (!summary.isEmpty()) {
            statusBar()->showMessage(summary, 8000);
            runLog_->note(summary);
        }
        // An empty editor takes the first imported sequence.
        if (doc_->size() == 0 && sequenceId_ == 0 && !added.isEmpty()) openStoredSequence(added.first().id);
    });
    connect(store_, &ProjectStore::variantsImported, this, [this](const QString& summary, const QStringList& skipped) {
        statusBar()->showMessage(summary, 8000);
        runLog_->note(summary + (skipped.isEmpty() ? QString() : QStringLiteral("\n  ") + skipped.join(QStringLiteral("\n  "))));
    });
    connect(store_, &ProjectStore::runStored, this, [this](quint64 request, const StoredRun& run, const QList<StoredDesign>& designs) {
        QList<qint64> ids;
        for (const StoredDesign& d : designs) ids << d.id;
        designs_->attachStored(request, run.id, ids);
        browser_->addRun(run);
        runLog_->note(tr("Run %1 stored as project run %2 with %n design(s).", nullptr, int(ids.size())).arg(request).arg(run.id));
    });
    connect(store_, &ProjectStore::exported, this, [this](const QString& path) {
        statusBar()->showMessage(tr("Exported %1").arg(path), 8000);
        runLog_->note(tr("Exported %1").arg(path));
    });
    connect(store_, &ProjectStore::designTracks, this, &MainWindow::onDesignTracks);
    connect(store_, &ProjectStore::saveFailed, this, [this](quint64 token) {
        if (token == saveToken_) saveInFlight_ = false;
    });
    connect(store_, &ProjectStore::sampleFailed, this, [this] { sampleFiles_.reset(); });
    connect(store_, &ProjectStore::waiting, this, [this](const QString& text) { statusBar()->showMessage(text, 6000); });
    connect(store_, &ProjectStore::failed, this, [this](const QString& what, const QString& error) {
        const QString text = tr("%1 failed: %2").arg(what, error);
        statusBar()->showMessage(text, 15000);
        runLog_->note(text);
        emit projectError(what, error);
    });
    storeThread_.start();

    connect(browser_, &ProjectBrowser::openSequence, this, &MainWindow::openStoredSequence);
    connect(browser_, &ProjectBrowser::openVariant, this, &MainWindow::openVariant);
    connect(likelihood_, &LikelihoodController::trackReady, this, &MainWindow::showPendingVariant);

    // The welcome page's requests.
    connect(welcome_, &WelcomePage::openSampleRequested, this, &MainWindow::openSampleProject);
    connect(welcome_, &WelcomePage::newProjectRequested, this, [this] { newProjectAction_->trigger(); });
    connect(welcome_, &WelcomePage::openProjectRequested, this, [this] { openProjectAction_->trigger(); });
    connect(welcome_, &WelcomePage::openRecentRequested, this, &MainWindow::openProject);
    connect(welcome_, &WelcomePage::openModelFolderRequested, this, [this] { modelPanel_->chooseFolder(); });
    connect(welcome_, &WelcomePage::loadModelRequested, this, &MainWindow::loadModel);
    connect(welcome_, &WelcomePage::dismissed, this, &MainWindow::showEditor);
    welcome_->setRecentProjects(QSettings().value(kRecentProjectsKey).toStringList());
    auto offerModels = [this] {
        QList<QPair<QString, QString>> folders;
        for (const ModelFolderInfo& m : modelPanel_->folders())
            if (m.ok)
                folders.append({tr("%1 (%2 M parameters)").arg(QString::fromStdString(m.name)).arg(double(m.parameters) / 1e6, 0, 'f', 0),
                                QString::fromStdString(m.dir.string())});
        welcome_->setModelFolders(folders);
    };
    connect(modelPanel_, &ModelPanel::scanned, this, offerModels);
    offerModels();
    connect(doc_, &SequenceDocument::changed, this, &MainWindow::showEditor);
    connect(browser_, &ProjectBrowser::showRun, this, [this](qint64 run) {
        designsView_->setRunFilter(run);
        designsView_->parentWidget()->show();
    });
    connect(designs_, &DesignTableModel::flagChanged, this, &MainWindow::designFlagRequested);
    connect(designsView_, &DesignsView::exportSelection, this, [this] { exportDesignsInteractive(ExportFormat::DesignsFasta); });
    connect(designsView_, &DesignsView::overlaySelection, this, &MainWindow::overlaySelectedDesigns);
    connect(worker_, &EngineWorker::generated, this, &MainWindow::onGenerated);

    autosave_ = new QTimer(this);
    autosave_->setSingleShot(true);
    connect(autosave_, &QTimer::timeout, this, &MainWindow::autosaveNow);
    auto edited = [this] {
        if (!loadingSequence_ && !projectPath_.isEmpty()) autosave_->start(kAutosaveDelayMs);
    };
    connect(doc_, &SequenceDocument::changed, this, edited);
    connect(doc_, &SequenceDocument::regionsChanged, this, edited);
    connect(doc_, &SequenceDocument::regionsChanged, this, &MainWindow::syncTemplateFromRegions);
    connect(doc_, &SequenceDocument::changed, this, &MainWindow::syncTemplateFromRegions);
    setAcceptDrops(true);
}

void MainWindow::shutdownProject() {
    if (autosave_->isActive()) {
        // Closing: the last edits go to the file before the store thread stops.
        autosave_->stop();
        QMetaObject::invokeMethod(store_, "saveSequence", Qt::BlockingQueuedConnection, Q_ARG(quint64, ++saveToken_),
                                  Q_ARG(qint64, sequenceId_), Q_ARG(QString, sequenceName()), Q_ARG(QByteArray, doc_->bases()),
                                  Q_ARG(QList<carbon::ui::Region>, doc_->regions()));
    }
    storeThread_.quit();
    storeThread_.wait();
}

void MainWindow::addProjectActions(QMenu* file) {
    auto action = [this, file](const QString& text, QList<QKeySequence> keys, auto slot) {
        auto* a = file->addAction(text);
        a->setShortcuts(keys);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    newProjectAction_ = action(tr("&New Project…"), {QKeySequence::New}, [this] {
        QString path = chooseFile(true, tr("New project"), tr("Carbon Studio project (*.carbon)"));
        if (path.isEmpty()) return;
        if (!isProjectFile(path)) path += QStringLiteral(".carbon");
        if (QFileInfo::exists(path)) {
            statusBar()->showMessage(tr("%1 already exists: open it with File > Open Project, or choose a new name").arg(path), 10000);
            return;
        }
        newProject(path);
    });
    openProjectAction_ = action(tr("&Open Project…"), {QKeySequence::Open}, [this] {
        const QString path = chooseFile(false, tr("Open project"), tr("Carbon Studio project (*.carbon);;All files (*)"));
        if (!path.isEmpty()) openProject(path);
    });
    recentProjects_ = file->addMenu(tr("Open &Recent Project"));
    connect(recentProjects_, &QMenu::aboutToShow, this, [this] {
        recentProjects_->clear();
        const QStringList list = QSettings().value(kRecentProjectsKey).toStringList();
        if (list.isEmpty()) recentProjects_->addAction(tr("(none)"))->setEnabled(false);
        for (const QString& p : list) recentProjects_->addAction(p, this, [this, p] { openProject(p); });
    });
    action(tr("Save Project &As…"), {QKeySequence::SaveAs}, [this] {
        if (projectPath_.isEmpty()) return statusBar()->showMessage(tr("No project is open."), 5000);
        QString path = chooseFile(true, tr("Save project as"), tr("Carbon Studio project (*.carbon)"));
        if (path.isEmpty()) return;
        if (!isProjectFile(path)) path += QStringLiteral(".carbon");
        saveProjectAs(path);
    });
    action(tr("&Close Project"), {}, [this] { closeProject(); });
    file->addSeparator();
    action(tr("&Import FASTA…"), {QKeySequence(tr("Ctrl+I"))}, [this] {
        const QString path = chooseFile(false, tr("Import FASTA"), tr("FASTA (*.fa *.fasta *.fna *.fas *.gz *.txt);;All files (*)"));
        if (!path.isEmpty()) importFasta(path);
    });
    action(tr("Import &GenBank / EMBL…"), {}, [this] {
        const QString path = chooseFile(false, tr("Import GenBank / EMBL"),
                                        tr("GenBank / EMBL (*.gb *.gbk *.genbank *.gbff *.embl *.dat *.seq *.gz);;All files (*)"));
        if (!path.isEmpty()) importFlatFile(path);
    });
    action(tr("Import &VCF onto Current Sequence…"), {}, [this] {
        const QString path = chooseFile(false, tr("Import VCF"), tr("VCF (*.vcf *.vcf.gz);;All files (*)"));
        if (!path.isEmpty()) importVcf(path);
    });
    QMenu* exportMenu = file->addMenu(tr("&Export"));
    auto exportAction = [this, exportMenu](const QString& text, ExportFormat f, QList<QKeySequence> keys = {}) {
        QAction* a = exportMenu->addAction(text, this, [this, f] { exportDesignsInteractive(f); });
        a->setShortcuts(keys);
    };
    exportAction(tr("Selected Designs as &FASTA…"), ExportFormat::DesignsFasta, {QKeySequence(tr("Ctrl+E"))});
    exportAction(tr("Selected Designs as &TSV…"), ExportFormat::DesignsTsv);
    exportAction(tr("Selected Designs as &CSV…"), ExportFormat::DesignsCsv);
    exportAction(tr("Design as &GenBank…"), ExportFormat::GenBank);
    exportAction(tr("Design Track as &bedGraph…"), ExportFormat::BedGraph);
    exportAction(tr("Design Track as &WIG…"), ExportFormat::Wig);
    exportAction(tr("All &Sequences as FASTA…"), ExportFormat::SequencesFasta);
    file->addSeparator();
}

QString MainWindow::chooseFile(bool save, const QString& title, const QString& filter) {
    if (!nextFileAnswer_.isNull()) return std::exchange(nextFileAnswer_, QString());
    const QString dir = projectPath_.isEmpty() ? QString() : QFileInfo(projectPath_).absolutePath();
    return save ? QFileDialog::getSaveFileName(this, title, dir, filter) : QFileDialog::getOpenFileName(this, title, dir, filter);
}

void MainWindow::newProject(const QString& path) { emit openProjectRequested(path, true); }

void MainWindow::openProject(const QString& path) {
    flushAutosave();
    emit openProjectRequested(path, false);
}

void MainWindow::closeProject() {
    flushAutosave();
    emit closeProjectRequested();
}

void MainWindow::saveProjectAs(const QString& path) {
    flushAutosave();
    emit saveCopyRequested(path);
}

void MainWindow::onProjectOpened(const ProjectSnapshot& snap) {
    sampleFiles_.reset();  // the sample (if it was being made) is in the project now
    showEditor();
    projectPath_ = snap.path;
    setWindowFilePath(snap.path);
    browser_->showProject(snap);
    QStringList recent = QSettings().value(kRecentProjectsKey).toStringList();
    recent.removeAll(snap.path);
    recent.prepend(snap.path);
    while (recent.size() > kMaxRecentProjects) recent.removeLast();
    QSettings().setValue(kRecentProjectsKey, recent);
    welcome_->setRecentProjects(recent);

    // The stored designs, with the run each came from; the table is the project's from now on.
    QHash<qint64, const StoredRun*> runs;
    for (const StoredRun& r : snap.runs) runs.insert(r.id, &r);
    QList<DesignRow> rows;
    rows.reserve(snap.designs.size());
    for (const StoredDesign& d : snap.designs) {
        DesignRow row;
        row.design = d.design;
        row.run = quint64(d.runId);
        row.designId = d.id;
        row.flag = d.flag;
        row.minBaseLogp = d.minBaseLogp;
        row.sequenceId = d.sequenceId;
        if (const StoredRun* r = runs.value(d.runId)) {
            row.sequenceId = r->setting(QStringLiteral("sequence_id")).toLongLong();
            row.regionStart = r->setting(QStringLiteral("region_start")).toLongLong();
            row.regionLength = r->setting(QStringLiteral("region_length")).toLongLong();
            row.constraintsActive = r->setting(QStringLiteral("max_homopolymer")).toInt() > 0 ||
                                    !r->setting(QStringLiteral("forbid")).isEmpty() ||
                                    r->setting(QStringLiteral("gc_min")).toDouble() > 0 || r->setting(QStringLiteral("gc_max")).toDouble() < 1;
        }
        rows.append(std::move(row));
    }
    designs_->setRows(std::move(rows));
    for (int r = 0; r < designs_->rowCount(); ++r) countDesignMotifs(r);
    designsView_->setRunFilter(0);
    runLog_->note(tr("Opened project %1: %n sequence(s), ", nullptr, int(snap.sequences.size())).arg(snap.path) +
                  tr("%n run(s), ", nullptr, int(snap.runs.size())) + tr("%n design(s)", nullptr, int(snap.designs.size())));
    sequenceId_ = 0;
    // The editor shows the project's first sequence (a new project starts from what is in the
    // editor: it is saved into the project as its first sequence).
    if (!snap.sequences.isEmpty()) openStoredSequence(snap.sequences.first().id);
    else if (doc_->size() > 0) autosave_->start(0);
    updateStatus();
    bringForward(QStringLiteral("projectDock"));
    emit projectOpened(snap.path);
}

void MainWindow::openStoredSequence(qint64 id) {
    flushAutosave();
    emit loadSequenceRequested(id);
}

void MainWindow::onSequenceLoaded(const StoredSequence& info, const QByteArray& bases, const QList<Region>& regions) {
    loadingSequence_ = true;  // a loaded sequence is not an edit to save back
    doc_->setBases(SequenceDocument::normalizeBases(bases));
    doc_->setRegions(regions);
    undo_->clear();
    editor_->setSelection(0, 0);
    loadingSequence_ = false;
    sequenceId_ = info.id;
    sequenceName_ = info.name;
    browser_->setCurrentSequence(info.id);
    setWindowTitle(tr("%1 — Carbon Studio").arg(info.name));
    updateStatus();
    showEditor();
    emit sequenceOpened(info.id);
    showPendingVariant();
    if (pendingSelection_.first >= 0 && pendingSelection_.second <= doc_->size()) {  // an indel of a vep run
        editor_->setSelection(pendingSelection_.first, pendingSelection_.second);
        editor_->scrollToPosition(pendingSelection_.first);
    }
    pendingSelection_ = {-1, -1};
}

QString MainWindow::sequenceName() const {
    return sequenceName_.isEmpty() ? tr("untitled") : sequenceName_;
}

void MainWindow::autosaveNow() {
    if (projectPath_.isEmpty()) return;
    if (saveInFlight_ && sequenceId_ == 0) {  // the add is on its way; save again once it has an id
        saveAgain_ = true;
        return;
    }
    saveInFlight_ = true;
    emit saveSequenceRequested(++saveToken_, sequenceId_, sequenceName(), doc_->bases(), doc_->regions());
}

void MainWindow::flushAutosave() {
    if (!autosave_->isActive()) return;
    autosave_->stop();
    autosaveNow();
}

void MainWindow::importFlatFile(const QString& path) {
    if (projectPath_.isEmpty()) {
        const QString text = tr("Import GenBank / EMBL: open or create a project first (File > New Project): the entries' "
                                "features are stored in it with their sequences.");
        statusBar()->showMessage(text, 8000);
        emit projectError(tr("Import GenBank / EMBL"), text);
        return;
    }
    emit importFlatFileRequested(path);
}

void MainWindow::importFasta(const QString& path) {
    if (projectPath_.isEmpty()) {  // no project: the first record goes into the editor
        openSequenceFile(path);
        return;
    }
    emit importFastaRequested(path);
}

void MainWindow::importVcf(const QString& path) {
    if (projectPath_.isEmpty() || sequenceId_ == 0) {
        const QString text = tr("Import VCF: open a project and a stored sequence first (the VCF's CHROM must name it).");
        statusBar()->showMessage(text, 10000);
        emit projectError(tr("Import VCF"), text);
        return;
    }
    flushAutosave();  // REF is checked against the stored bases
    emit importVcfRequested(path, sequenceId_);  // by id: names need not be unique in a project
}

void MainWindow::exportDesignsInteractive(ExportFormat format) {
    if (projectPath_.isEmpty()) {
        const QString text = tr("Export: designs are exported from a project; open or create one first (new runs are stored in it).");
        statusBar()->showMessage(text, 10000);
        emit projectError(tr("Export"), text);
        return;
    }
    static const QHash<int, QPair<QString, QString>> kFilters = {
        {int(ExportFormat::DesignsFasta), {tr("FASTA (*.fa)"), QStringLiteral(".fa")}},
        {int(ExportFormat::DesignsTsv), {tr("Tab-separated (*.tsv)"), QStringLiteral(".tsv")}},
        {int(ExportFormat::DesignsCsv), {tr("Comma-separated (*.csv)"), QStringLiteral(".csv")}},
        {int(ExportFormat::GenBank), {tr("GenBank (*.gb)"), QStringLiteral(".gb")}},
        {int(ExportFormat::BedGraph), {tr("bedGraph (*.bedgraph)"), QStringLiteral(".bedgraph")}},
        {int(ExportFormat::Wig), {tr("WIG (*.wig)"), QStringLiteral(".wig")}},
        {int(ExportFormat::SequencesFasta), {tr("FASTA (*.fa)"), QStringLiteral(".fa")}},
    };
    ExportRequest request;
    request.format = format;
    QList<int> rows = designsView_->selectedSourceRows();
    for (int r : rows)
        if (designs_->row(r).designId) request.designIds << designs_->row(r).designId;
    const bool perDesign = format == ExportFormat::GenBank || format == ExportFormat::BedGraph || format == ExportFormat::Wig;
    if (perDesign && request.designIds.isEmpty()) {
        const QString text = tr("Export: select a stored design in the designs table first.");
        statusBar()->showMessage(text, 10000);
        emit projectError(tr("Export"), text);
        return;
    }
    QString path = chooseFile(true, tr("Export"), kFilters[int(format)].first);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += kFilters[int(format)].second;
    request.path = path;
    emit exportRequested(request);
}

void MainWindow::onGenerated(quint64 request, const GenerationRunPtr& run) {
    // The run's designs with their per-base tracks: the table's minimum column, then the project.
    auto it = pendingRuns_.find(request);
    if (it == pendingRuns_.end()) return;
    RunToStore r = std::move(*it);
    pendingRuns_.erase(it);
    r.run = run;
    QList<double> minima;
    for (const std::vector<BaseScore>& track : run->tracks) {
        double m = std::nan("");
        for (const BaseScore& b : track)
            if (!std::isnan(b.logp) && (std::isnan(m) || b.logp < m)) m = b.logp;
        minima << m;
    }
    designs_->setMinBaseScores(request, minima);
    if (!projectPath_.isEmpty()) emit storeRunRequested(r);
}

void MainWindow::overlaySelectedDesigns() {
    QList<int> rows = designsView_->selectedSourceRows();
    if (rows.isEmpty()) return statusBar()->showMessage(tr("Select designs to overlay in the designs table."), 5000);
    QList<qint64> ids;
    for (int r : rows)
        if (designs_->row(r).designId) ids << designs_->row(r).designId;
    if (ids.isEmpty()) return statusBar()->showMessage(tr("Only stored designs have tracks to overlay: open a project before the run."), 8000);
    emit designTracksRequested(++overlayToken_, ids, QStringLiteral("logp"));
}

void MainWindow::onDesignTracks(quint64 token, const QList<qint64>& ids, const QList<QVector<float>>& values) {
    if (token != overlayToken_) return;
    QList<TrackChartView::Track> tracks;
    for (qsizetype i = 0; i < ids.size(); ++i) {
        QString name = tr("design %1").arg(ids[i]);
        for (int r = 0; r < designs_->rowCount(); ++r)
            if (designs_->row(r).designId == ids[i]) name = tr("run %1 rank %2").arg(designs_->row(r).run).arg(designs_->row(r).design.rank);
        tracks.append({name, values[i], false});
    }
    designChart_->setTracks(tracks, 1, tr("log p per base"));
    bringForward(QStringLiteral("designTracksDock"));
}

void MainWindow::syncTemplateFromRegions() {
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
    QByteArray t = generation_->templateEdit()->text().toUpper().toLatin1();
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
    if (generation_->templateEdit()->text().toLatin1() != t) generation_->templateEdit()->setText(QString::fromLatin1(t));
}

bool MainWindow::isWelcomeShown() const { return centre_->currentWidget() == welcomeScroll_; }

void MainWindow::showWelcome() {
    if (isWelcomeShown()) return;
    editorLayout_ = saveState();  // brought back by showEditor()
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->hide();
    centre_->setCurrentWidget(welcomeScroll_);
}

void MainWindow::showEditor() {
    if (centre_->currentWidget() == editor_) return;
    centre_->setCurrentWidget(editor_);
    if (editorLayout_.isEmpty()) showDefaultDocks();
    else restoreState(editorLayout_);
    for (const QString& name : std::exchange(forwardWithEditor_, {})) bringForward(name);
    editor_->setFocus();
}

void MainWindow::openSampleProject() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QString path = dir + QStringLiteral("/sample.carbon");
    if (QFileInfo::exists(path)) return openProject(path);  // the user's own work in it is kept
    if (sampleFiles_) return;  // already being made
    // The sample's files are embedded (:/carbon/sample); the storage layer reads real files.
    sampleFiles_ = std::make_unique<QTemporaryDir>();
    QStringList files;
    for (const char* name : {"sample.fa", "variants.vcf", "regions.tsv"}) {
        const QString to = sampleFiles_->filePath(QLatin1String(name));
        if (!QDir().mkpath(dir) || !QFile::copy(QStringLiteral(":/carbon/sample/") + QLatin1String(name), to)) {
            sampleFiles_.reset();
            const QString text = tr("Cannot prepare the sample project in %1").arg(dir);
            statusBar()->showMessage(text, 10000);
            emit projectError(tr("Create the sample project"), text);
            return;
        }
        files << to;
    }
    flushAutosave();
    emit createSampleRequested(path, files[0], files[1], files[2]);
}

void MainWindow::openVariant(qint64 sequenceId, qint64 position, char alt) {
    pendingVariantPos_ = position;
    pendingVariantAlt_ = alt;
    if (sequenceId != sequenceId_) return openStoredSequence(sequenceId);  // continued once it is loaded
    showPendingVariant();
}

void MainWindow::showPendingVariant() {
    if (pendingVariantPos_ < 0 || pendingVariantPos_ >= doc_->size()) return;
    const qint64 pos = pendingVariantPos_;
    editor_->setSelection(pos, pos + 1);
    editor_->scrollToPosition(pos);
    if (!modelReady_) {
        statusBar()->showMessage(tr("Load a model to compare this variant (File > Open Model Folder)."), 8000);
        pendingVariantPos_ = -1;
        return;
    }
    if (!likelihood_->isCurrent()) return;  // shown when the track arrives (trackReady)
    pendingVariantPos_ = -1;
    inspectBase(pos);
    inspector_->selectAlternative(pendingVariantAlt_);
    bringForward(QStringLiteral("inspectorDock"));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (!e->mimeData()->hasUrls()) return;
    for (const QUrl& u : e->mimeData()->urls()) {
        const QString p = u.toLocalFile();
        if (isProjectFile(p) || isVcfFile(p) || isFastaFile(p) || isFlatFile(p) || looksLikeVepResult(p)) {
            e->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent* e) {
    for (const QUrl& u : e->mimeData()->urls()) openPath(u.toLocalFile());
    e->acceptProposedAction();
}

void MainWindow::openPath(const QString& path) {
    if (path.isEmpty()) return;
    if (QFileInfo(path).isDir()) loadModel(path);
    else if (isProjectFile(path)) openProject(path);
    else if (looksLikeVepResult(path)) openVepResult(path);
    else if (isVcfFile(path)) importVcf(path);
    else if (isFlatFile(path)) importFlatFile(path);
    else importFasta(path);
}

}  // namespace carbon::ui
