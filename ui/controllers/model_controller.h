// ModelController: the models the engine runs. It owns the model manager dock (ModelPanel), loads
// the target model and pairs the draft on the engine thread, keeps what was loaded (folder,
// backend, context) for the other controllers, and says so in the panel, the status bar and the
// Run Log.
#pragma once

#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include "controllers/dock.h"
#include "workers/engine_worker.h"
#include "workers/worker_thread.h"

class QAction;

namespace carbon::ui {

class ModelPanel;
class WindowServices;

class ModelController : public QObject {
    Q_OBJECT
public:
    ModelController(WorkerThread<EngineWorker>* engine, WindowServices* services, QObject* parent = nullptr);

    ModelPanel* panel() const { return panel_; }
    QList<Dock> docks() const { return {dock_}; }
    QAction* openFolderAction() const { return openFolder_; }  // File > Open Model Folder (Ctrl+M)
    QAction* openFileAction() const { return openFile_; }      // File > Open Model File (GGUF) (Ctrl+Shift+M)

    bool isReady() const { return ready_; }
    bool isLoading() const { return loading_; }  // a load asked for and not yet answered
    const QString& dir() const { return dir_; }          // the loaded target's folder ("" when none)
    const QString& backend() const { return backend_; }  // its backend's description
    const QString& draftDir() const { return draftDir_; }
    // The engine in a few words for the status bar: backend, "+ draft".
    QString summary() const;
    // Model folders the model manager found that load (display text, folder): offered on the welcome page.
    QList<QPair<QString, QString>> loadableFolders() const;

    // The model (and its draft) of the last session, loaded again when the folder is still there;
    // whether a load started. The application calls it at start, after the paths it was given.
    bool restoreLast();

public slots:
    void load(const QString& dir);

signals:
    void loaded(const carbon::ui::ModelSummary& summary);
    void failed(const QString& dir, const QString& error, bool kept);  // kept: the model before is still loaded
    void changed();         // target, draft or backend: what summary() and the getters say
    void foldersScanned();  // loadableFolders() is up to date

private:
    WorkerThread<EngineWorker>* engine_;
    WindowServices* services_;
    ModelPanel* panel_;
    Dock dock_;
    QAction* openFolder_;
    QAction* openFile_;
    void pairDraft(const QString& dir);

    bool ready_ = false, loading_ = false;
    QString dir_, backend_, draftDir_;
    QString draftToRestore_;  // the last session's draft, paired once its target has loaded
};

}  // namespace carbon::ui
