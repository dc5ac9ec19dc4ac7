// ProjectController: the project file's life in the window (see project_controller.h).
#include "project_controller.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <utility>

#include "controllers/analysis_controller.h"
#include "controllers/shortcut_action.h"
#include "controllers/window_services.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "document/sequence_file.h"
#include "views/project_browser.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

namespace {
constexpr int kMaxRecentProjects = 8;
const char* kRecentProjectsKey = "projects/recent";
constexpr int kAutosaveDelayMs = 600;

bool isProjectFile(const QString& p) { return p.toLower().endsWith(QLatin1String(".carbon")); }
}  // namespace

ProjectController::ProjectController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<ProjectStore>* store,
                                     AnalysisController* analysis, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), store_(store), analysis_(analysis), services_(services), browser_(new ProjectBrowser) {
    registerProjectMetaTypes();
    dock_ = makeDock(browser_, tr("Project"), "projectDock", Qt::LeftDockWidgetArea, false);
    ProjectStore* s = store_->worker();
    connect(s, &ProjectStore::variantsListed, browser_, &ProjectBrowser::setVariants);
    connect(s, &ProjectStore::variantsCounted, browser_, &ProjectBrowser::setVariantCount);
    connect(s, &ProjectStore::opened, this, &ProjectController::onProjectOpened);
    connect(s, &ProjectStore::closed, this, [this] {
        path_.clear();
        doc_->setStoredId(0);
        services_->setStartFolder({});
        browser_->showNoProject();
        services_->window()->setWindowFilePath({});
        emit constructsChanged(constructs_ = {});
        emit selectionsChanged(selections_ = {});
        emit projectClosed();
    });
    connect(s, &ProjectStore::constructAdded, this,
            [this](quint64, const QString&, const ConstructList& all) { emit constructsChanged(constructs_ = all); });
    connect(s, &ProjectStore::designsChosen, this,
            [this](quint64, const carbon::storage::SelectionRecord&, const QString&, const SelectionList& all) {
                emit selectionsChanged(selections_ = all);
            });
    connect(s, &ProjectStore::sequenceLoaded, this, &ProjectController::onSequenceLoaded);
    connect(s, &ProjectStore::sequenceSaved, this, [this](quint64 token, qint64 id) {
        if (token != saveToken_) return;
        if (doc_->storedId() == 0) {
            doc_->setStoredId(id);
            browser_->setCurrentSequence(id);
        }
        saveInFlight_ = false;
        browser_->updateSequenceLength(id, doc_->size());
        if (saveAgain_) {
            saveAgain_ = false;
            autosave_->start(0);
        }
    });
    connect(s, &ProjectStore::saveFailed, this, [this](quint64 token) {
        if (token == saveToken_) saveInFlight_ = false;
    });
    connect(s, &ProjectStore::sequencesAdded, this, [this](const QList<carbon::storage::SequenceRecord>& added, const QString& summary) {
        browser_->addSequences(added);
        if (!summary.isEmpty()) {
            services_->message(summary, 8000);
            services_->note(summary);
        }
        // What the user imported opens (its first entry; the sequence in the editor was saved as
        // it was); an empty editor takes the first sequence added any other way.
        const bool imported = !summary.isEmpty();
        if ((imported || (doc_->size() == 0 && doc_->storedId() == 0)) && !added.isEmpty()) openStoredSequence(added.first().id);
    });
    connect(s, &ProjectStore::variantsImported, this, [this](const QString& summary, const QStringList& skipped) {
        services_->message(summary, 8000);
        services_->note(summary + (skipped.isEmpty() ? QString() : QStringLiteral("\n  ") + skipped.join(QStringLiteral("\n  "))));
    });
    connect(s, &ProjectStore::sampleFailed, this, [this] { sampleFiles_.reset(); });
    connect(s, &ProjectStore::waiting, this, [this](const QString& text) { services_->message(text, 6000); });
    connect(s, &ProjectStore::failed, this, [this](const QString& what, const QString& error) {
        // At the top of the window (and in the Run Log), where the user who chose File > Open looks.
        const QString text = tr("%1 failed: %2").arg(what, error);
        services_->message(text, 15000);
        services_->error(text);
        // File > Open of a file that cannot be opened (damaged, another program's, a schema that
        // holds code of its own): said in a dialog too, where the user acted.
        if (what == tr("Open project")) services_->warn(tr("Cannot open the project"), error);
        emit projectError(what, error);
    });
    connect(browser_, &ProjectBrowser::openSequence, this, &ProjectController::openStoredSequence);
    connect(browser_, &ProjectBrowser::openVariant, this, &ProjectController::openVariant);

    autosave_ = new QTimer(this);
    autosave_->setSingleShot(true);
    connect(autosave_, &QTimer::timeout, this, &ProjectController::autosaveNow);
    auto edited = [this] {
        if (!loading_ && isOpen()) autosave_->start(kAutosaveDelayMs);
    };
    connect(doc_, &SequenceDocument::changed, this, edited);
    connect(doc_, &SequenceDocument::regionsChanged, this, edited);
}

ProjectController::~ProjectController() = default;

qint64 ProjectController::currentSequenceId() const { return doc_->storedId(); }
QString ProjectController::sequenceName() const { return doc_->displayName(); }
QStringList ProjectController::recentProjects() const { return QSettings().value(kRecentProjectsKey).toStringList(); }

void ProjectController::shutdown() {
    if (autosave_->isActive()) {
        autosave_->stop();
        store_->call([token = ++saveToken_, id = doc_->storedId(), name = doc_->displayName(), bases = doc_->bases(),
                      regions = doc_->regions()](ProjectStore* st) { st->saveSequence(token, id, name, bases, regions); });
    }
}

void ProjectController::addFileActions(QMenu* file) {
    auto action = [this, file](const QString& text, QList<QKeySequence> keys, auto slot) {
        return addShortcutAction(file, text, keys, this, slot);
    };
    newProject_ = action(tr("&New Project…"), {QKeySequence::New}, [this] {
        QString path = services_->chooseFile(true, tr("New project"), tr("Carbon Studio project (*.carbon)"));
        if (path.isEmpty()) return;
        if (!isProjectFile(path)) path += QStringLiteral(".carbon");
        if (QFileInfo::exists(path)) {
            services_->message(tr("%1 already exists: open it with File > Open Project, or choose a new name").arg(path), 10000);
            return;
        }
        newProject(path);
    });
    openProject_ = action(tr("&Open Project…"), {QKeySequence::Open}, [this] {
        const QString path = services_->chooseFile(false, tr("Open project"), tr("Carbon Studio project (*.carbon);;All files (*)"));
        if (!path.isEmpty()) openProject(path);
    });
    QMenu* recent = file->addMenu(tr("Open &Recent Project"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        const QStringList list = recentProjects();
        if (list.isEmpty()) recent->addAction(tr("(none)"))->setEnabled(false);
        for (const QString& p : list) recent->addAction(p, this, [this, p] { openProject(p); });
    });
    action(tr("Save Project &As…"), {QKeySequence::SaveAs}, [this] {
        if (!isOpen()) return services_->message(tr("No project is open."), 5000);
        QString path = services_->chooseFile(true, tr("Save project as"), tr("Carbon Studio project (*.carbon)"));
        if (path.isEmpty()) return;
        if (!isProjectFile(path)) path += QStringLiteral(".carbon");
        saveProjectAs(path);
    });
    action(tr("&Close Project"), {}, [this] { closeProject(); });
    file->addSeparator();
    action(tr("&Import FASTA…"), {QKeySequence(tr("Ctrl+I"))}, [this] {
        const QString path = services_->chooseFile(false, tr("Import FASTA"), tr("FASTA (*.fa *.fasta *.fna *.fas *.gz *.txt);;All files (*)"));
        if (!path.isEmpty()) importFasta(path);
    });
    action(tr("Import &GenBank / EMBL…"), {}, [this] {
        const QString path = services_->chooseFile(false, tr("Import GenBank / EMBL"),
                                                   tr("GenBank / EMBL (*.gb *.gbk *.genbank *.gbff *.embl *.dat *.seq *.gz);;All files (*)"));
        if (!path.isEmpty()) importFlatFile(path);
    });
    action(tr("Import &VCF onto Current Sequence…"), {}, [this] {
        const QString path = services_->chooseFile(false, tr("Import VCF"), tr("VCF (*.vcf *.vcf.gz);;All files (*)"));
        if (!path.isEmpty()) importVcf(path);
    });
    openSequenceFile_ = new QAction(tr("Open Sequence &File (without a project)…"), this);
    openSequenceFile_->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
    connect(openSequenceFile_, &QAction::triggered, this, [this] {
        const QString path = services_->chooseFile(false, tr("Open sequence"), tr("FASTA or plain sequence (*.fa *.fasta *.fna *.txt);;All files (*)"));
        if (!path.isEmpty()) openSequenceFile(path);
    });
}

void ProjectController::reportError(const QString& what, const QString& text) {
    services_->message(text, 10000);
    emit projectError(what, text);
}

void ProjectController::newProject(const QString& path) {
    store_->post([path](ProjectStore* s) { s->open(path, true); });
}

void ProjectController::openProject(const QString& path) {
    flushAutosave();
    store_->post([path](ProjectStore* s) { s->open(path, false); });
}

void ProjectController::closeProject() {
    flushAutosave();
    store_->post([](ProjectStore* s) { s->close(); });
}

void ProjectController::saveProjectAs(const QString& path) {
    flushAutosave();
    store_->post([path](ProjectStore* s) { s->saveCopy(path); });
}

void ProjectController::onProjectOpened(const ProjectSnapshot& snap) {
    sampleFiles_.reset();  // the sample (if it was being made) is in the project now
    services_->showEditor();
    path_ = snap.path;
    services_->setStartFolder(QFileInfo(snap.path).absolutePath());
    services_->window()->setWindowFilePath(snap.path);
    browser_->showProject(snap);
    QStringList recent = recentProjects();
    recent.removeAll(snap.path);
    recent.prepend(snap.path);
    while (recent.size() > kMaxRecentProjects) recent.removeLast();
    QSettings().setValue(kRecentProjectsKey, recent);
    emit recentProjectsChanged(recent);
    emit snapshotOpened(snap);  // the designs table takes the project's designs (a construct or selection chosen is let go)
    emit constructsChanged(constructs_ = snap.constructs);
    emit selectionsChanged(selections_ = snap.selections);
    services_->note(tr("Opened project %1: %n sequence(s), ", nullptr, int(snap.sequences.size())).arg(snap.path) +
                    tr("%n run(s), ", nullptr, int(snap.runs.size())) + tr("%n design(s)", nullptr, int(snap.designs.size())));
    doc_->setStoredId(0);
    // The editor shows the project's first sequence (a new project starts from what is in the
    // editor: it is saved into the project as its first sequence).
    if (!snap.sequences.isEmpty()) openStoredSequence(snap.sequences.first().id);
    else if (doc_->size() > 0) autosave_->start(0);
    services_->raiseDock(QStringLiteral("projectDock"));
    emit projectOpened(snap.path);
}

void ProjectController::openStoredSequence(qint64 id) {
    flushAutosave();
    store_->post([id](ProjectStore* s) { s->loadSequence(id); });
}

void ProjectController::onSequenceLoaded(const carbon::storage::SequenceRecord& info, const QByteArray& bases,
                                         const QList<Region>& regions) {
    const QString name = QString::fromStdString(info.name);
    loading_ = true;  // a loaded sequence is not an edit to save back
    editor_->setSelection(0, 0);
    doc_->open(SequenceDocument::normalizeBases(bases), regions, info.id, name);
    loading_ = false;
    browser_->setCurrentSequence(info.id);
    services_->window()->setWindowTitle(tr("%1 — Carbon Studio").arg(name));
    services_->showEditor();
    // A sequence with a design region opens on it: what the user works on is in view.
    for (const Region& r : doc_->regions())
        if (r.kind == Region::Kind::Design) {
            editor_->centreOn(r.start);
            break;
        }
    emit sequenceOpened(info.id);
}

void ProjectController::openUnstoredSequence(const QByteArray& bases, const QString& name) {
    // The bases replace what the editor shows (a stored sequence's edits are saved first); with a
    // project open, editing them stores them as a new sequence.
    flushAutosave();
    loading_ = true;
    doc_->open(SequenceDocument::normalizeBases(bases), {}, 0, name);
    loading_ = false;
    services_->window()->setWindowTitle(tr("%1 — Carbon Studio").arg(name));
    services_->showEditor();
}

bool ProjectController::openSequenceFile(const QString& path) {
    // The same reader and messages as carbon-cli and the project import (FILE:LINE:COL); the
    // editor takes the first record and says so when there are more.
    QByteArray bases;
    QString note;
    try {
        const SequenceFile f = readSequenceFile(path);
        bases = f.bases;
        if (f.records > 1) note = tr(" (the first of its %1 records: %2; import the file into a project for all of them)").arg(f.records).arg(f.name);
    } catch (const std::exception& e) {
        services_->report(tr("Cannot open %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    auto* command = new ReplaceBasesCommand(doc_, 0, doc_->size(), bases);
    command->setText(tr("Open %1").arg(QFileInfo(path).fileName()));
    doc_->undoStack()->push(command);
    editor_->setSelection(0, 0);
    services_->window()->setWindowFilePath(path);
    services_->message(tr("Opened %1: %2 bp%3").arg(QFileInfo(path).fileName(), QLocale().toString(bases.size()), note), 8000);
    return true;
}

void ProjectController::autosaveNow() {
    if (!isOpen()) return;
    if (saveInFlight_ && doc_->storedId() == 0) {  // the add is on its way; save again once it has an id
        saveAgain_ = true;
        return;
    }
    saveInFlight_ = true;
    store_->post([token = ++saveToken_, id = doc_->storedId(), name = doc_->displayName(), bases = doc_->bases(),
                  regions = doc_->regions()](ProjectStore* s) { s->saveSequence(token, id, name, bases, regions); });
}

void ProjectController::flushAutosave() {
    if (!autosave_->isActive()) return;
    autosave_->stop();
    autosaveNow();
}

void ProjectController::importFlatFile(const QString& path) {
    if (!isOpen())
        return reportError(tr("Import GenBank / EMBL"), tr("Import GenBank / EMBL: open or create a project first (File > New Project): "
                                                           "the entries' features are stored in it with their sequences."));
    store_->post([path](ProjectStore* s) { s->importFlatFile(path); });
}

void ProjectController::importFasta(const QString& path) {
    if (!isOpen()) {  // no project: the first record goes into the editor
        openSequenceFile(path);
        return;
    }
    store_->post([path](ProjectStore* s) { s->importFasta(path); });
}

void ProjectController::importVcf(const QString& path) {
    if (!isOpen() || doc_->storedId() == 0)
        return reportError(tr("Import VCF"), tr("Import VCF: open a project and a stored sequence first (the VCF's CHROM must name it)."));
    flushAutosave();  // REF is checked against the stored bases
    store_->post([path, id = doc_->storedId()](ProjectStore* s) { s->importVcf(path, id); });  // by id: names need not be unique
}

void ProjectController::openSampleProject() {
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
            return reportError(tr("Create the sample project"), tr("Cannot prepare the sample project in %1").arg(dir));
        }
        files << to;
    }
    flushAutosave();
    store_->post([path, files](ProjectStore* s) { s->createSample(path, files[0], files[1], files[2]); });
}

void ProjectController::openVariant(qint64 sequenceId, qint64 position, char alt) {
    if (sequenceId != doc_->storedId()) {  // continued once it is loaded
        analysis_->showVariant(position, alt, true);
        return openStoredSequence(sequenceId);
    }
    analysis_->showVariant(position, alt);
}

}  // namespace carbon::ui
