// MainWindow: docks, actions and shortcuts, QSettings for layout, and the request-id bookkeeping
// between the generation panel and the engine worker.
#include "main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QScreen>
#include <QStyle>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QMenuBar>
#include <QScrollArea>
#include <QActionGroup>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QUndoStack>

#include "carbon/gpu_provider.h"
#include "document/commands/replace_bases_command.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/generation_panel.h"
#include "views/model_panel.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"
#include "views/run_log.h"
#include "document/sequence_file.h"
#include "views/theme.h"
#include "views/welcome_page.h"

namespace carbon::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Carbon Studio"));
    doc_ = new SequenceDocument(this);
    undo_ = new QUndoStack(this);
    editor_ = new SequenceEditor(doc_, undo_, this);
    // The centre: the welcome page until something is opened, then the sequence editor.
    centre_ = new QStackedWidget(this);
    welcome_ = new WelcomePage;
    // The welcome page scrolls on a small screen rather than widening the window past it.
    welcomeScroll_ = new QScrollArea;
    welcomeScroll_->setWidget(welcome_);
    welcomeScroll_->setWidgetResizable(true);
    welcomeScroll_->setFrameShape(QFrame::NoFrame);
    centre_->addWidget(welcomeScroll_);
    centre_->addWidget(editor_);
    setCentralWidget(centre_);

    modelPanel_ = new ModelPanel;
    generation_ = new GenerationPanel;
    designs_ = new DesignTableModel(this);
    designsView_ = new DesignsView(designs_);
    addPanel(modelPanel_, tr("Model"), "modelDock", Qt::LeftDockWidgetArea, true);
    addPanel(generation_, tr("Generation"), "generationDock", Qt::RightDockWidgetArea, true);
    addPanel(designsView_, tr("Designs"), "designsDock", Qt::BottomDockWidgetArea, false);
    runLog_ = new RunLog(this);
    addPanel(runLog_, tr("Run Log"), "runLogDock", Qt::BottomDockWidgetArea, false);

    statusLabel_ = new QLabel(this);
    statusLabel_->setAccessibleName(tr("Sequence status"));
    statusBar()->addPermanentWidget(statusLabel_);
    engineLabel_ = new QLabel(tr("No model"), this);
    engineLabel_->setAccessibleName(tr("Engine status"));
    statusBar()->addPermanentWidget(engineLabel_);

    // The engine thread: the worker is reached only through queued signals.
    registerEngineMetaTypes();
    worker_ = new EngineWorker;
    worker_->moveToThread(&engineThread_);
    engineThread_.setObjectName(QStringLiteral("carbon-engine"));
    connect(this, &MainWindow::loadModelRequested, worker_, &EngineWorker::loadModel);
    connect(this, &MainWindow::backendRequested, worker_, &EngineWorker::setBackend);
    connect(this, &MainWindow::generateRequested, worker_, &EngineWorker::generate);
    connect(worker_, &EngineWorker::modelLoaded, this, [this](const ModelSummary& s) {
        modelReady_ = true;
        contextBases_ = s.contextBases;
        modelDir_ = s.dir;
        modelBackend_ = s.backend;
        updateEngineLabel();
        modelPanel_->showSummary(s);
        statusBar()->showMessage(tr("Model loaded: %1").arg(s.dir), 5000);
    });
    connect(worker_, &EngineWorker::modelFailed, this, [this](const QString& dir, const QString& error) {
        modelReady_ = false;
        modelBackend_.clear();
        updateEngineLabel();
        modelPanel_->showError(dir, error);
    });
    connect(worker_, &EngineWorker::progress, this, &MainWindow::onProgress);
    connect(worker_, &EngineWorker::designReady, this, &MainWindow::onDesign);
    connect(worker_, &EngineWorker::finished, this, &MainWindow::onFinished);
    connect(worker_, &EngineWorker::failed, this, &MainWindow::onFailed);
    engineThread_.start();

    connect(modelPanel_, &ModelPanel::loadRequested, this, &MainWindow::loadModel);
    // Where models run: set before any load; a change reloads the loaded model there.
    emit backendRequested(modelPanel_->backendChoice());
    connect(modelPanel_, &ModelPanel::backendChanged, this, [this](const QString& kind) {
        emit backendRequested(kind);
        if (!modelDir_.isEmpty()) loadModel(modelDir_);
    });
    // The draft model (speculative decoding): the panel asks, the worker loads or refuses it.
    connect(modelPanel_, &ModelPanel::draftRequested, this, [this](const QString& dir) {
        modelPanel_->setDraftLoading(dir);
        emit loadDraftRequested(dir);
    });
    connect(modelPanel_, &ModelPanel::clearDraftRequested, this, &MainWindow::clearDraftRequested);
    connect(this, &MainWindow::loadDraftRequested, worker_, &EngineWorker::loadDraft);
    connect(this, &MainWindow::clearDraftRequested, worker_, &EngineWorker::clearDraft);
    connect(worker_, &EngineWorker::draftLoaded, this, [this](const ModelSummary& s) {
        draftDir_ = s.dir;
        modelPanel_->showDraft(s);
        updateEngineLabel();
        runLog_->note(tr("Draft model paired: %1").arg(s.dir));
    });
    connect(worker_, &EngineWorker::draftFailed, this, [this](const QString& dir, const QString& error) {
        draftDir_.clear();
        updateEngineLabel();
        modelPanel_->showDraftError(dir, error);
        runLog_->note(tr("Draft model %1 refused: %2").arg(dir, error));
    });
    connect(worker_, &EngineWorker::draftCleared, this, [this] {
        draftDir_.clear();
        updateEngineLabel();
        modelPanel_->showDraftCleared();
    });
    connect(generation_, &GenerationPanel::runRequested, this, &MainWindow::runGeneration);
    connect(generation_, &GenerationPanel::cancelRequested, this, &MainWindow::cancelGeneration);
    connect(designsView_, &DesignsView::openDesign, this, &MainWindow::openDesign);
    connect(editor_, &SequenceEditor::selectionChanged, this, &MainWindow::updateStatus);

    setupAnalysis();
    setupProject();
    setupVep();
    setupLogo();
    arrangeDefaultDocks();
    createActions();
    // First run: the window takes most of the screen; later runs restore the saved geometry and
    // the editor's dock layout. The welcome page shows first, without docks (they are empty
    // until a sequence is open); showEditor() brings the layout back.
    // The dock layout first: restoring it resizes the window to the docks' saved sizes, which the
    // saved geometry then overrides.
    QSettings settings;
    editorLayout_ = settings.value(QStringLiteral("window/state")).toByteArray();  // empty: the default layout
    if (!editorLayout_.isEmpty()) restoreState(editorLayout_);
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) fitToScreen();
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->hide();
    updateStatus();
}

QDockWidget* MainWindow::addPanel(QWidget* panel, const QString& title, const char* name, Qt::DockWidgetArea area, bool scroll) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QLatin1String(name));  // saveState needs stable names
    if (scroll) {  // a tall panel scrolls rather than forcing the window taller than the screen
        auto* area2 = new QScrollArea(dock);
        area2->setWidget(panel);
        area2->setWidgetResizable(true);
        area2->setFrameShape(QFrame::NoFrame);
        dock->setWidget(area2);
    } else {
        dock->setWidget(panel);
    }
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::arrangeDefaultDocks() {
    // Docks that are used one at a time share a place as tabs, so the default layout fits a
    // 1366x768 laptop screen and the editor keeps most of the window: model manager | project on
    // the left, generation | base inspector on the right, designs | design tracks | mutagenesis
    // below with the run log beside them. A dock comes forward when it gets something to show
    // (bringForward). A saved layout replaces this one.
    const auto dock = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    tabifyDockWidget(dock("modelDock"), dock("projectDock"));
    tabifyDockWidget(dock("generationDock"), dock("inspectorDock"));
    tabifyDockWidget(dock("designsDock"), dock("designTracksDock"));
    tabifyDockWidget(dock("designsDock"), dock("mutagenesisDock"));
    tabifyDockWidget(dock("designsDock"), dock("vepDock"));
    resizeDocks({dock("modelDock"), dock("generationDock")}, {300, 360}, Qt::Horizontal);
    resizeDocks({dock("designsDock"), dock("runLogDock")}, {900, 380}, Qt::Horizontal);
}

void MainWindow::showDefaultDocks() {
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->show();
    for (const char* front : {"modelDock", "generationDock", "designsDock"}) findChild<QDockWidget*>(QLatin1String(front))->raise();
}

void MainWindow::bringForward(const QString& dockName) {
    if (isWelcomeShown()) {  // the docks come back with the editor (showEditor)
        if (!forwardWithEditor_.contains(dockName)) forwardWithEditor_.append(dockName);
        return;
    }
    if (auto* d = findChild<QDockWidget*>(dockName)) {
        d->show();
        d->raise();
    }
}

void MainWindow::fitToScreen() {
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!s) return;
    const QRect avail = s->availableGeometry();
    // 94% of each side (88% of the area) leaves room for the window frame on every desktop.
    const QSize size(avail.width() * 94 / 100, avail.height() * 94 / 100);
    setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, avail));
}

MainWindow::~MainWindow() {
    shutdownProject();
    // Stop a running generation at its next step, then let the thread finish its loop.
    worker_->cancel(std::numeric_limits<quint64>::max());
    engineThread_.requestInterruption();
    engineThread_.quit();
    engineThread_.wait();
    delete worker_;
}

void MainWindow::createActions() {
    auto action = [this](QMenu* menu, const QString& text, QList<QKeySequence> keys, auto slot) {
        auto* a = menu->addAction(text);
        a->setShortcuts(keys);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    addProjectActions(file);
    addVepActions(file);
    QAction* openModel = action(file, tr("Open &Model Folder…"), {QKeySequence(tr("Ctrl+M"))}, [this] { modelPanel_->chooseFolder(); });
    QAction* openSeq = action(file, tr("Open Sequence &File (without a project)…"), {QKeySequence(tr("Ctrl+Shift+O"))}, [this] {
        const QString path = chooseFile(false, tr("Open sequence"), tr("FASTA or plain sequence (*.fa *.fasta *.fna *.txt);;All files (*)"));
        if (!path.isEmpty()) openSequenceFile(path);
    });
    file->addSeparator();
    action(file, tr("&Quit"), {QKeySequence::Quit}, [this] { close(); });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = undo_->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = undo_->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Clipboard shortcuts are handled by the editor itself when it has focus; the menu items
    // carry no shortcut so they do not steal Ctrl+C from line edits in the panels.
    edit->addAction(tr("Cu&t"), editor_, &SequenceEditor::cut);
    edit->addAction(tr("&Copy"), editor_, &SequenceEditor::copy);
    action(edit, tr("Copy &Reverse Complement"), {QKeySequence(tr("Ctrl+Shift+C"))}, [this] { editor_->copyReverseComplement(); });
    edit->addAction(tr("&Paste"), editor_, &SequenceEditor::paste);
    edit->addAction(tr("Select &All"), editor_, &SequenceEditor::selectAll);
    edit->addSeparator();
    QAction* find = action(edit, tr("&Find Motif…"), {QKeySequence::Find}, [this] {
        bool ok = false;
        const QString p = QInputDialog::getText(this, tr("Find"), tr("Motif or IUPAC pattern:"), QLineEdit::Normal, lastFind_, &ok);
        if (!ok || p.isEmpty()) return;
        lastFind_ = p;
        if (!editor_->findNext(p)) statusBar()->showMessage(tr("'%1' not found (or not a valid IUPAC pattern)").arg(p), 5000);
    });
    setupMotifs(edit);
    action(edit, tr("Find &Next"), {QKeySequence::FindNext}, [this] {
        if (!lastFind_.isEmpty() && !editor_->findNext(lastFind_)) statusBar()->showMessage(tr("'%1' not found").arg(lastFind_), 5000);
    });
    edit->addSeparator();
    action(edit, tr("Mark &Design Region"), {QKeySequence(tr("Ctrl+Shift+D"))}, [this] { editor_->addRegionFromSelection(Region::Kind::Design); });
    action(edit, tr("&Pin Motif"), {QKeySequence(tr("Ctrl+Shift+P"))}, [this] { editor_->addRegionFromSelection(Region::Kind::PinnedMotif); });
    action(edit, tr("Add A&nnotation"), {QKeySequence(tr("Ctrl+Shift+A"))}, [this] { editor_->addRegionFromSelection(Region::Kind::Annotation); });
    action(edit, tr("Remove Region at Cursor"), {}, [this] {
        if (!editor_->removeRegionAtCursor()) statusBar()->showMessage(tr("No region at the cursor"), 5000);
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setToolTipsVisible(true);
    view->setToolTip(tr("Regions: blue = design region, magenta = pinned motif, yellow = annotation"));
    QMenu* themeMenu = view->addMenu(tr("T&heme"));
    auto* themes = new QActionGroup(themeMenu);
    for (const auto& [name, theme] : {std::pair{tr("&Light"), Theme::Light}, std::pair{tr("&Dark"), Theme::Dark}}) {
        QAction* a = themeMenu->addAction(name);
        a->setCheckable(true);
        a->setChecked(savedTheme() == theme);
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [t = theme] { applyTheme(t); });
    }
    QAction* tokens = view->addAction(tr("Show 6-mer &Token Boundaries"));
    tokens->setCheckable(true);
    tokens->setShortcut(QKeySequence(tr("Ctrl+T")));
    connect(tokens, &QAction::toggled, editor_, &SequenceEditor::setShowTokenBoundaries);
    addAnalysisActions(view);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

    QMenu* gen = menuBar()->addMenu(tr("&Generate"));
    QAction* run = action(gen, tr("&Run"), {QKeySequence(tr("Ctrl+R")), QKeySequence(Qt::Key_F5)}, &MainWindow::runGeneration);
    QAction* cancel = action(gen, tr("&Cancel"), {QKeySequence(tr("Ctrl+.")), QKeySequence(tr("Shift+F5"))}, &MainWindow::cancelGeneration);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    action(help, tr("&Welcome Page"), {QKeySequence::HelpContents}, [this] { showWelcome(); });
    action(help, tr("Open the &Sample Project"), {}, [this] { openSampleProject(); });
    action(help, tr("&About Carbon Studio"), {}, [this] {
        QMessageBox::about(this, tr("About Carbon Studio"),
                           tr("<p><b>Carbon Studio %1</b></p><p>Design regulatory DNA with the Carbon language models "
                              "(HuggingFaceBio Carbon-500M, 3B and 8B).</p><p>GPU: %2.</p>")
                               .arg(QStringLiteral(CARBON_VERSION), QString::fromStdString(carbon::gpu_status()).toHtmlEscaped()));
    });

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    for (QAction* a : {openModel, openSeq, undo, redo, find, run, cancel}) bar->addAction(a);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    flushAutosave();
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    // The editor's layout, also when the welcome page (which hides the docks) is shown.
    settings.setValue(QStringLiteral("window/state"), isWelcomeShown() ? editorLayout_ : saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::loadModel(const QString& dir) {
    modelReady_ = false;
    modelPanel_->setLoading(dir);
    emit loadModelRequested(dir);
}

bool MainWindow::openSequenceFile(const QString& path) {
    // The same reader and messages as carbon-cli and the project import (FILE:LINE:COL); the
    // editor takes the first record and says so when there are more.
    QByteArray bases;
    QString note;
    try {
        const SequenceFile f = readSequenceFile(path);
        bases = f.bases;
        if (f.records > 1) note = tr(" (the first of its %1 records: %2; import the file into a project for all of them)").arg(f.records).arg(f.name);
    } catch (const std::exception& e) {
        const QString text = tr("Cannot open %1: %2").arg(path, QString::fromUtf8(e.what()));
        statusBar()->showMessage(text, 15000);
        runLog_->note(text);
        return false;
    }
    undo_->push(new ReplaceBasesCommand(doc_, 0, doc_->size(), bases));
    editor_->setSelection(0, 0);
    setWindowFilePath(path);
    statusBar()->showMessage(tr("Opened %1: %2 bp%3").arg(QFileInfo(path).fileName(), QLocale().toString(bases.size()), note), 8000);
    return true;
}

void MainWindow::runGeneration() {
    DesignRequest request;
    QString error;
    if (!generation_->buildRequest(request, error)) return generation_->setMessage(error, true);
    if (!modelReady_) return generation_->setMessage(tr("No model is loaded: open a model folder first."), true);
    // The design region: a marked design region (Edit > Mark Design Region) if any, else the
    // selection, else the end of the sequence.
    const QByteArray& all = doc_->bases();
    regionStart_ = editor_->hasSelection() ? editor_->selectionStart() : all.size();
    regionLength_ = editor_->hasSelection() ? editor_->selectionEnd() - regionStart_ : 0;
    for (const Region& r : doc_->regions()) {
        if (r.kind != Region::Kind::Design) continue;
        regionStart_ = r.start;
        regionLength_ = r.end - r.start;
        break;
    }
    QByteArray left = all.left(regionStart_);
    QByteArray right = all.mid(regionStart_ + regionLength_);
    // Keep the prompt inside the model's context: the nearest bases matter most, so the far end
    // of the left context is dropped first (tags get a margin of 64 tokens).
    QString trimmed;
    if (contextBases_ > 0) {
        if (right.size() > contextBases_ / 4) right.truncate(contextBases_ / 4);
        const qint64 roomLeft = std::max<qint64>(0, contextBases_ - 64 * 6 - qint64(request.length) - right.size());
        if (left.size() > roomLeft) {
            left = left.right(roomLeft);
            trimmed = tr(" (context trimmed to the nearest %1 bp)").arg(roomLeft);
        }
    }
    request.left_context = left.toStdString();
    request.right_flank = right.toStdString();
    // What the project will store once the run finishes and its designs are scored.
    RunToStore pending;
    pending.sequenceId = sequenceId_;
    pending.regionStart = regionStart_;
    pending.regionLength = regionLength_;

    // Latest request wins: cancel whatever is still running or queued, then send the new one.
    worker_->cancel(currentRequest_);
    ++currentRequest_;
    pending.requestId = currentRequest_;
    pendingRuns_.insert(currentRequest_, pending);
    running_ = true;
    designsThisRun_ = 0;
    runConstraintsActive_ = request.constraints.active();
    generation_->setRunning(true);
    statusBar()->showMessage(tr("Run %1: %2 design(s) of %3 bp%4").arg(currentRequest_).arg(request.count).arg(request.length).arg(trimmed), 5000);
    runLog_->runStarted(currentRequest_, tr("%1 design(s) of %2 bp, context %3 bp, flank %4 bp%5")
                                              .arg(request.count).arg(request.length).arg(left.size()).arg(right.size()).arg(trimmed));
    emit generateRequested(currentRequest_, request);
}

void MainWindow::cancelGeneration() {
    if (!running_) return;
    worker_->cancel(currentRequest_);
    generation_->setMessage(tr("Cancelling…"));
}

void MainWindow::onProgress(quint64 id, qint64 done, qint64 total, double bps) {
    if (id != currentRequest_) return;
    lastRunBps_ = bps;
    generation_->setProgress(done, total, bps);
    runLog_->runProgress(id, done, total, bps);
}

void MainWindow::onDesign(quint64 id, const Design& design) {
    if (id != currentRequest_) return;
    ++designsThisRun_;
    DesignRow row;
    row.design = design;
    row.run = id;
    row.regionStart = regionStart_;
    row.regionLength = regionLength_;
    row.sequenceId = sequenceId_;
    row.constraintsActive = runConstraintsActive_;
    designs_->addRow(row);
    countDesignMotifs(designs_->rowCount() - 1);
}

void MainWindow::onFinished(quint64 id, bool cancelled, const QStringList& notices) {
    // A run with designs came with them scored (onGenerated, before this); a cancelled run
    // stores nothing.
    pendingRuns_.remove(id);
    if (id != currentRequest_) return;
    running_ = false;
    generation_->setRunning(false);
    updateEngineLabel();
    QString text = cancelled ? tr("Run %1 cancelled.").arg(id) : tr("Run %1: %2 design(s).").arg(id).arg(designsThisRun_);
    if (!notices.isEmpty()) text += QLatin1Char('\n') + notices.join(QLatin1Char('\n'));
    generation_->setMessage(text);
    runLog_->runFinished(id, cancelled, designsThisRun_, notices);
}

void MainWindow::onFailed(quint64 id, const QString& error) {
    pendingRuns_.remove(id);
    if (id != currentRequest_) return;
    running_ = false;
    generation_->setRunning(false);
    generation_->setMessage(error, true);
    runLog_->runFailed(id, error);
}

void MainWindow::openDesign(int row) {
    if (row < 0 || row >= designs_->rowCount()) return;
    const DesignRow& r = designs_->row(row);
    if (r.sequenceId && r.sequenceId != sequenceId_) {
        statusBar()->showMessage(tr("This design was made for another sequence: open that sequence in the project browser first."), 8000);
        return;
    }
    // The region may have moved since the run if the sequence was edited; clamp to what exists.
    const qsizetype start = std::min(r.regionStart, doc_->size());
    const qsizetype len = std::min(r.regionLength, doc_->size() - start);
    const QByteArray bases = QByteArray::fromStdString(r.design.bases);
    undo_->push(new ReplaceBasesCommand(doc_, start, len, bases));
    editor_->setSelection(start, start + bases.size());
    editor_->setFocus();
}

void MainWindow::updateEngineLabel() {
    generation_->setModels(modelReady_ ? modelDir_ : QString(), draftDir_);
    // Which backend runs (the engine's own description, shortened to its first clause) and how
    // fast the last run went.
    QString text = modelBackend_.isEmpty() ? tr("No model") : modelBackend_.section(QLatin1Char(','), 0, 1);
    if (!draftDir_.isEmpty()) text += tr(" + draft");
    if (lastRunBps_ > 0) text += tr("  |  last run %1 bp/s").arg(QLocale().toString(lastRunBps_, 'f', 0));
    engineLabel_->setText(text);
    engineLabel_->setToolTip(modelBackend_);
}

void MainWindow::updateStatus() {
    const qsizetype a = editor_->selectionStart(), b = editor_->selectionEnd();
    QString text = tr("%1 bp").arg(QLocale().toString(doc_->size()));
    if (!projectPath_.isEmpty()) text = tr("%1 (%2) — ").arg(sequenceName(), sequenceId_ ? tr("saved in project") : tr("not yet saved")) + text;
    if (b > a) {
        const double gc = doc_->gcFraction(a, b - a);
        text += tr("  |  selection %1–%2 (%3 bp)").arg(a + 1).arg(b).arg(QLocale().toString(b - a));
        text += gc < 0 ? tr("  |  GC n/a") : tr("  |  GC %1%").arg(100.0 * gc, 0, 'f', 1);
    } else {
        text += tr("  |  position %1").arg(a + 1);
    }
    statusLabel_->setText(text);
}

}  // namespace carbon::ui
