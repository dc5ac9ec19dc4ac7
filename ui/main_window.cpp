// MainWindow: the shell that builds the window and connects the controllers (see main_window.h).
#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "carbon/gpu_provider.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/editing_controller.h"
#include "controllers/feature_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/logo_controller.h"
#include "controllers/model_controller.h"
#include "controllers/motif_controller.h"
#include "controllers/synthesis_controller.h"
#include "controllers/project_controller.h"
#include "controllers/shortcut_action.h"
#include "controllers/specificity_controller.h"
#include "controllers/vep_controller.h"
#include "controllers/window_services.h"
#include "controllers/design_map_controller.h"
#include "controllers/predictor_controller.h"
#include "controllers/workspaces.h"
#include "document/file_kind.h"
#include "document/sequence_document.h"
#include "views/generation_panel.h"
#include "views/help_dialogs.h"
#include "views/message_bar.h"
#include "views/base_inspector.h"
#include "views/model_panel.h"
#include "views/objective_section.h"
#include "views/predictor_panel.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"
#include "views/sequence_map.h"
#include "views/theme.h"
#include "views/welcome_page.h"
#include "views/wheel_guard.h"

namespace carbon::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      engine_(std::make_unique<WorkerThread<EngineWorker>>("carbon-engine")),
      store_(std::make_unique<WorkerThread<ProjectStore>>("carbon-project")) {
    setWindowTitle(tr("Carbon Studio"));
    registerEngineMetaTypes();
    registerProjectMetaTypes();
    doc_ = new SequenceDocument(this);
    editor_ = new SequenceEditor(doc_, this);
    // The centre: the welcome page until something is opened, then the sequence editor.
    centre_ = new QStackedWidget(this);
    welcome_ = new WelcomePage;
    // The welcome page scrolls on a small screen rather than widening the window past it.
    welcomeScroll_ = new QScrollArea;
    welcomeScroll_->setWidget(welcome_);
    welcomeScroll_->setWidgetResizable(true);
    welcomeScroll_->setFrameShape(QFrame::NoFrame);
    centre_->addWidget(welcomeScroll_);
    // The editor under the map of the whole sequence.
    editorPage_ = new QWidget;
    auto* editorColumn = new QVBoxLayout(editorPage_);
    editorColumn->setContentsMargins(0, 0, 0, 0);
    editorColumn->setSpacing(0);
    map_ = new SequenceMap(doc_, editor_);
    editorColumn->addWidget(map_);
    editorColumn->addWidget(editor_, 1);
    centre_->addWidget(editorPage_);
    // Above the centre, the message bar: where a failed action says so.
    auto* central = new QWidget;
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    messageBar_ = new MessageBar;
    column->addWidget(messageBar_);
    column->addWidget(centre_, 1);
    setCentralWidget(central);
    runLog_ = new RunLog(this);
    services_ = new WindowServices(this, runLog_, messageBar_, this);
    connect(services_, &WindowServices::messageRequested, this, [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
    connect(services_, &WindowServices::dockRequested, this, &MainWindow::bringForward);
    connect(services_, &WindowServices::editorRequested, this, &MainWindow::showEditor);
    statusLabel_ = new QLabel(this);
    statusLabel_->setAccessibleName(tr("Sequence status"));
    statusBar()->addPermanentWidget(statusLabel_);
    engineLabel_ = new QLabel(tr("No model"), this);
    engineLabel_->setAccessibleName(tr("Engine status"));
    statusBar()->addPermanentWidget(engineLabel_);
    // A message gets the room of the sequence's status while it shows, so it is never cut.
    connect(statusBar(), &QStatusBar::messageChanged, statusLabel_, [this](const QString& m) { statusLabel_->setVisible(m.isEmpty()); });

    // The controllers, each over the document, the worker threads and the controllers it uses.
    models_ = new ModelController(engine_.get(), services_, this);
    analysis_ = new AnalysisController(doc_, editor_, engine_.get(), models_, services_, this);
    project_ = new ProjectController(doc_, editor_, store_.get(), analysis_, services_, this);
    designs_ = new DesignsController(project_, services_, this);
    generation_ = new GenerationController(doc_, editor_, engine_.get(), models_, project_, designs_, services_, this);
    vep_ = new VepController(editor_, engine_.get(), models_, project_, analysis_, services_, this);
    motifs_ = new MotifController(doc_, editor_, designs_->model(), generation_->panel(), services_, this);
    synthesis_ = new SynthesisController(doc_, motifs_, services_, this);
    logo_ = new LogoController(doc_, editor_, analysis_->likelihood(), models_, designs_, services_, this);
    editing_ = new EditingController(doc_, editor_, services_, this);
    specificity_ = new SpecificityController(doc_, engine_.get(), generation_->panel(), designs_->chart(), services_, this);
    features_ = new FeatureController(doc_, editor_, services_, this);
    predictors_ = new PredictorController(engine_.get(), models_, project_, designs_, services_, this);
    designMap_ = new DesignMapController(engine_.get(), models_, designs_, services_, this);
    // Generate and rank: the Generation panel's objective ranks by the project's predictors.
    connect(predictors_->panel(), &PredictorPanel::predictorsChanged, generation_->panel()->objective(), &ObjectiveSection::setPredictors);
    generation_->panel()->objective()->setPredictors(predictors_->panel()->predictors());
    // Score Variant in the base inspector predicts the activity change with a chosen predictor.
    connect(predictors_->panel(), &PredictorPanel::predictorsChanged, analysis_->inspector(), &BaseInspector::setPredictors);
    analysis_->inspector()->setPredictors(predictors_->panel()->predictors());
    analysis_->addStatusWidgets(statusBar());
    addDocks(models_->docks());
    addDocks(predictors_->docks());
    addDocks(generation_->docks());
    addDocks({designs_->docks().first()});
    addDocks({makeDock(runLog_, tr("Run Log"), "runLogDock", Qt::BottomDockWidgetArea, false)});
    addDocks(analysis_->docks());
    addDocks(project_->docks());
    addDocks(features_->docks());
    addDocks({designs_->docks().last()});
    addDocks(designMap_->docks());
    addDocks(vep_->docks());
    addDocks(logo_->docks());

    connect(editor_, &SequenceEditor::selectionChanged, this, &MainWindow::updateStatus);
    connect(doc_, &SequenceDocument::identityChanged, this, &MainWindow::updateStatus);
    connect(doc_, &SequenceDocument::changed, this, &MainWindow::showEditor);
    connect(project_, &ProjectController::projectOpened, this, &MainWindow::updateStatus);
    connect(project_, &ProjectController::projectClosed, this, &MainWindow::updateStatus);
    connect(models_, &ModelController::changed, this, &MainWindow::updateEngineLabel);
    connect(generation_, &GenerationController::lastRunRateChanged, this, &MainWindow::updateEngineLabel);
    // The welcome page's requests.
    connect(welcome_, &WelcomePage::openSampleRequested, project_, &ProjectController::openSampleProject);
    connect(welcome_, &WelcomePage::openRecentRequested, project_, &ProjectController::openProject);
    connect(welcome_, &WelcomePage::openModelFolderRequested, models_->panel(), &ModelPanel::chooseFolder);
    connect(welcome_, &WelcomePage::loadModelRequested, models_, &ModelController::load);
    connect(welcome_, &WelcomePage::dismissed, this, &MainWindow::showEditor);
    connect(project_, &ProjectController::recentProjectsChanged, welcome_, &WelcomePage::setRecentProjects);
    welcome_->setRecentProjects(project_->recentProjects());
    connect(models_, &ModelController::foldersScanned, this, [this] { welcome_->setModelFolders(models_->loadableFolders()); });
    welcome_->setModelFolders(models_->loadableFolders());
    setAcceptDrops(true);

    workspaces_ = new Workspaces(this, this);
    createMenus();
    guardWheel(this);  // scrolling a panel never changes a value under the pointer
    connect(welcome_, &WelcomePage::newProjectRequested, project_->newProjectAction(), &QAction::trigger);
    connect(welcome_, &WelcomePage::openProjectRequested, project_->openProjectAction(), &QAction::trigger);
    // First run: the window takes most of the screen; later runs restore the saved geometry. The
    // welcome page shows first, without docks (they are empty until a sequence is open);
    // showEditor() brings out the current workspace's.
    if (!restoreGeometry(QSettings().value(QStringLiteral("window/geometry")).toByteArray())) fitToScreen();
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->hide();
    updateStatus();
    QTimer::singleShot(0, this, &MainWindow::keepInsideScreen);  // a geometry saved on a larger screen
}

MainWindow::~MainWindow() {
    project_->shutdown();  // the last edits into the file, before its thread stops
    // Stop a running generation at its next step, then let the threads finish their loops.
    engine_->worker()->cancel(std::numeric_limits<quint64>::max());
    store_.reset();
    engine_.reset();
}

void MainWindow::setNextFileAnswer(const QString& path) { services_->setNextFileAnswer(path); }

void MainWindow::addDocks(const QList<Dock>& docks) {
    for (const Dock& d : docks) {
        d.widget->setParent(this);
        addDockWidget(d.area, d.widget);
    }
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
    // A laptop screen: every pixel for the editor and its docks (unmaximized, the size above).
    // Not on the offscreen platform, whose sizes are the tests' own.
    if ((avail.width() < 1600 || avail.height() < 900) && QGuiApplication::platformName() != QLatin1String("offscreen"))
        setWindowState(windowState() | Qt::WindowMaximized);
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    project_->addFileActions(file);
    designs_->addExportActions(file->addMenu(tr("&Export")));
    file->addSeparator();
    vep_->addFileActions(file);
    file->addAction(models_->openFolderAction());
    file->addAction(models_->openFileAction());
    file->addAction(project_->openSequenceFileAction());
    file->addSeparator();
    addShortcutAction(file, tr("&Quit"), QKeySequence::keyBindings(QKeySequence::Quit), this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    const QList<QAction*> editActions = editing_->addEditActions(edit, [this](QMenu* m) {
        motifs_->addEditActions(m);
        synthesis_->addEditActions(m);
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
    analysis_->addViewActions(view);
    specificity_->addViewActions(view);
    view->addSeparator();
    workspaces_->addViewActions(view);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

    QMenu* generate = menuBar()->addMenu(tr("&Generate"));
    generation_->addGenerateActions(generate);
    generate->addSeparator();
    predictors_->addActions(generate);
    generate->addAction(tr("&Map Designs"), designMap_, &DesignMapController::mapDesigns);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    addShortcutAction(help, tr("&Welcome Page"), QKeySequence::keyBindings(QKeySequence::HelpContents), this, &MainWindow::showWelcome);
    help->addAction(tr("User &Manual"), this, [this] { showManual(this); });
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showShortcuts(this, menuBar()); });
    help->addAction(tr("Open the &Sample Project"), project_, &ProjectController::openSampleProject);
    help->addAction(tr("&About Carbon Studio"), this, [this] {
        QMessageBox::about(this, tr("About Carbon Studio"),
                           tr("<p><b>Carbon Studio %1</b></p><p>Design regulatory DNA with the Carbon language models "
                              "(HuggingFaceBio Carbon-500M, 3B and 8B).</p><p>GPU: %2.</p>")
                               .arg(QStringLiteral(CARBON_VERSION), QString::fromStdString(carbon::gpu_status()).toHtmlEscaped()));
    });

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->addActions({models_->openFolderAction(), project_->openSequenceFileAction()});
    bar->addActions(editActions);
    bar->addActions({generation_->runAction(), generation_->cancelAction()});
}

void MainWindow::closeEvent(QCloseEvent* event) {
    project_->flushAutosave();
    QSettings().setValue(QStringLiteral("window/geometry"), saveGeometry());
    workspaces_->keep();  // the docks as the user left them (kept already when the welcome page shows)
    QMainWindow::closeEvent(event);
}

bool MainWindow::isWelcomeShown() const { return centre_->currentWidget() == welcomeScroll_; }

void MainWindow::restoreSession() {
    generation_->panel()->restoreSettings();
    models_->restoreLast();
}

void MainWindow::showWelcome() {
    if (isWelcomeShown()) return;
    workspaces_->hideAll();  // brought back by showEditor()
    centre_->setCurrentWidget(welcomeScroll_);
}

void MainWindow::showEditor() {
    if (centre_->currentWidget() == editorPage_) return;
    centre_->setCurrentWidget(editorPage_);
    workspaces_->show();
    for (const QString& name : std::exchange(forwardWithEditor_, {})) bringForward(name);
    editor_->setFocus();
    // Docks that come back with their sizes can widen the window past the screen: once the
    // layout has settled, the window is brought back inside it.
    QTimer::singleShot(0, this, &MainWindow::keepInsideScreen);
}

void MainWindow::keepInsideScreen() {
    // The offscreen platform (tests, screenshots) has no screen a person looks at: the sizes
    // asked for there are kept.
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) return;
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    if (!s || isMaximized() || isFullScreen()) return;
    const QRect avail = s->availableGeometry();
    const QRect frame = frameGeometry();
    if (avail.contains(frame)) return;
    // The frame (title bar, borders) is the window manager's: what is left of the screen for the
    // window itself is the available area less the frame's own size.
    const QSize extra = frame.size() - size();
    resize(size().boundedTo(avail.size() - extra).expandedTo(minimumSizeHint()));
    const QRect f = frameGeometry();
    move(QPoint(std::clamp(f.left(), avail.left(), std::max(avail.left(), avail.right() - f.width() + 1)),
                std::clamp(f.top(), avail.top(), std::max(avail.top(), avail.bottom() - f.height() + 1))));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (!e->mimeData()->hasUrls()) return;
    for (const QUrl& u : e->mimeData()->urls()) {
        if (acceptsDrop(u.toLocalFile())) {
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
    switch (fileKind(path)) {
        case FileKind::ModelFolder: return models_->load(path);
        case FileKind::Project: return project_->openProject(path);
        case FileKind::VepResult: return vep_->openVepResult(path);
        case FileKind::Vcf: return project_->importVcf(path);
        case FileKind::FlatFile: return project_->importFlatFile(path);
        case FileKind::Fasta: return project_->importFasta(path);
    }
}

void MainWindow::updateEngineLabel() {
    // Which backend runs and how fast the last run went.
    QString text = models_->summary();
    if (generation_->lastRunBasesPerSecond() > 0)
        text += tr("  |  last run %1 bp/s").arg(QLocale().toString(generation_->lastRunBasesPerSecond(), 'f', 0));
    engineLabel_->setText(text);
    engineLabel_->setToolTip(models_->backend());
}

void MainWindow::updateStatus() {
    const qsizetype a = editor_->selectionStart(), b = editor_->selectionEnd();
    QString text = tr("%1 bp").arg(QLocale().toString(doc_->size()));
    if (project_->isOpen())
        text = tr("%1 (%2) — ").arg(doc_->displayName(), doc_->storedId() ? tr("saved in project") : tr("not yet saved")) + text;
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
