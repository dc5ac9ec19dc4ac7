// ProjectController: the open project and the sequence the document holds. It owns the Project
// dock (ProjectBrowser), the File menu's project actions (new, open, recent, save as, close,
// imports) and the sample project; it opens stored sequences into the document (a fresh undo
// history each), saves the document's edits back (debounced autosave, flushed before anything
// that reads the file), and reports every project-file failure where the user acted (the status
// bar, the Run Log, projectError). The file itself is ProjectStore's, on its own thread.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "controllers/dock.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QAction;
class QMenu;
class QTemporaryDir;
class QTimer;

namespace carbon::ui {

class AnalysisController;
class ProjectBrowser;
class SequenceDocument;
class SequenceEditor;
class WindowServices;

class ProjectController : public QObject {
    Q_OBJECT
public:
    ProjectController(SequenceDocument* doc, SequenceEditor* editor, WorkerThread<ProjectStore>* store,
                      AnalysisController* analysis, WindowServices* services, QObject* parent = nullptr);
    ~ProjectController() override;

    ProjectBrowser* browser() const { return browser_; }
    ProjectStore* store() const { return store_->worker(); }
    WorkerThread<ProjectStore>* storeThread() const { return store_; }
    QList<Dock> docks() const { return {dock_}; }
    // The open project's path ("" when none) and the stored sequence in the document (0: none).
    const QString& path() const { return path_; }
    bool isOpen() const { return !path_.isEmpty(); }
    qint64 currentSequenceId() const;
    QString sequenceName() const;
    QStringList recentProjects() const;
    // File menu: the project actions; "Open Sequence File (without a project)" separately (the
    // window puts it beside Open Model Folder).
    void addFileActions(QMenu* file);
    QAction* openSequenceFileAction() const { return openSequenceFile_; }
    QAction* newProjectAction() const { return newProject_; }
    QAction* openProjectAction() const { return openProject_; }
    // The open project's constructs and selections of designs (empty without one), kept in step
    // with the store (constructsChanged, selectionsChanged).
    const ConstructList& constructs() const { return constructs_; }
    const SelectionList& selections() const { return selections_; }
    // Says what failed where the user acted: the status bar, the Run Log and projectError.
    void reportError(const QString& what, const QString& text);
    // Closing: the last edits go to the file before the store thread stops.
    void shutdown();
    // Before reading the project: the pending autosave now.
    void flushAutosave();

public slots:
    void newProject(const QString& path);
    void openProject(const QString& path);
    void closeProject();
    void saveProjectAs(const QString& path);
    void importFasta(const QString& path);     // into the open project; without one, into the editor
    void importFlatFile(const QString& path);  // GenBank / EMBL with features, into the open project
    void importVcf(const QString& path);       // SNVs on the current stored sequence
    bool openSequenceFile(const QString& path);  // first FASTA record, or plain bases (undoable)
    void openStoredSequence(qint64 id);
    // Bases that are not (yet) a stored sequence, in place of the document's (a vep window).
    void openUnstoredSequence(const QByteArray& bases, const QString& name);
    void openSampleProject();  // made from the embedded sample files on first use, then reopened
    void openVariant(qint64 sequenceId, qint64 position, char alt);  // select it; inspect once scored

signals:
    void projectOpened(const QString& path);
    void snapshotOpened(const carbon::ui::ProjectSnapshot& snapshot);  // every listing of the project
    void projectClosed();
    void sequenceOpened(qint64 id);
    void projectError(const QString& what, const QString& error);
    void recentProjectsChanged(const QStringList& paths);
    void constructsChanged(const carbon::ui::ConstructList& constructs);
    void selectionsChanged(const carbon::ui::SelectionList& selections);

private:
    void onProjectOpened(const ProjectSnapshot& snapshot);
    void onSequenceLoaded(const carbon::storage::SequenceRecord& info, const QByteArray& bases, const QList<Region>& regions);
    void autosaveNow();

    SequenceDocument* doc_;
    SequenceEditor* editor_;
    WorkerThread<ProjectStore>* store_;
    AnalysisController* analysis_;
    WindowServices* services_;
    ProjectBrowser* browser_;
    Dock dock_;
    QAction* newProject_ = nullptr;
    QAction* openProject_ = nullptr;
    QAction* openSequenceFile_ = nullptr;
    QString path_;
    ConstructList constructs_;
    SelectionList selections_;
    QTimer* autosave_;
    quint64 saveToken_ = 0;
    bool saveInFlight_ = false, saveAgain_ = false, loading_ = false;
    std::unique_ptr<QTemporaryDir> sampleFiles_;  // while the sample project is being made
};

}  // namespace carbon::ui
