// ModelController: loading and pairing models on the engine thread (see model_controller.h).
#include "model_controller.h"

#include <QAction>
#include <QFileInfo>
#include <QKeySequence>
#include <QSettings>
#include <utility>

#include "controllers/window_services.h"
#include "views/model_panel.h"
#include "views/run_log.h"

namespace carbon::ui {

namespace {
constexpr const char* kLastModelKey = "models/last";  // the target loaded last (QSettings)
constexpr const char* kLastDraftKey = "models/lastDraft";
}  // namespace

ModelController::ModelController(WorkerThread<EngineWorker>* engine, WindowServices* services, QObject* parent)
    : QObject(parent), engine_(engine), services_(services), panel_(new ModelPanel) {
    dock_ = makeDock(panel_, tr("Model"), "modelDock", Qt::LeftDockWidgetArea, true);
    openFolder_ = new QAction(tr("Open &Model Folder…"), this);
    openFolder_->setShortcut(QKeySequence(tr("Ctrl+M")));
    connect(openFolder_, &QAction::triggered, panel_, &ModelPanel::chooseFolder);
    openFile_ = new QAction(tr("Open Model &File (GGUF)…"), this);
    openFile_->setShortcut(QKeySequence(tr("Ctrl+Shift+M")));
    openFile_->setStatusTip(tr("Load a Carbon GGUF file (llama.cpp's bf16 or Q8_0)"));
    connect(openFile_, &QAction::triggered, panel_, &ModelPanel::chooseFile);

    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::modelLoaded, this, [this](const ModelSummary& s) {
        ready_ = true;
        loading_ = false;
        QSettings().setValue(QLatin1String(kLastModelKey), s.dir);
        dir_ = s.dir;
        backend_ = s.backend;
        panel_->showSummary(s);
        services_->message(tr("Model loaded: %1").arg(s.dir), 5000);
        emit loaded(s);
        emit changed();
        if (!draftToRestore_.isEmpty()) pairDraft(std::exchange(draftToRestore_, QString()));
    });
    connect(worker, &EngineWorker::modelFailed, this, [this](const QString& dir, const QString& error, bool kept) {
        loading_ = false;
        draftToRestore_.clear();
        kept = kept && !dir_.isEmpty();
        const QString what = kept ? tr("The model %1 stays loaded.").arg(dir_) : tr("No model is loaded.");
        panel_->showError(dir, error + QLatin1Char('\n') + what);
        // Said where the user looks (the model manager may be a hidden tab), with the way on.
        const bool file = QFileInfo(dir).isFile();
        services_->error(tr("%1 is not a model %2 that loads: %3\n%4").arg(dir, file ? tr("file") : tr("folder"), error, what),
                         file ? tr("Open Model File…") : tr("Open Model Folder…"),
                         [this, file] { file ? panel_->chooseFile() : panel_->chooseFolder(); });
        if (kept) {
            ready_ = true;
        } else {
            ready_ = false;
            dir_.clear();
            backend_.clear();
        }
        emit failed(dir, error, ready_);
        emit changed();
    });
    connect(panel_, &ModelPanel::loadRequested, this, &ModelController::load);
    // Where models run: set before any load; a change reloads the loaded model there.
    const QString backend = panel_->backendChoice();
    engine_->post([backend](EngineWorker* w) { w->setBackend(backend); });
    // The weights of a folder: a change for the loaded one reloads it so.
    connect(panel_, &ModelPanel::weightsChanged, this, [this](const QString& dir, const QString&) {
        if (dir == dir_) load(dir_);
    });
    connect(panel_, &ModelPanel::backendChanged, this, [this](const QString& kind) {
        engine_->post([kind](EngineWorker* w) { w->setBackend(kind); });
        if (!dir_.isEmpty()) load(dir_);
    });

    // The draft model (speculative decoding): the panel asks, the worker loads or refuses it.
    connect(panel_, &ModelPanel::draftRequested, this, &ModelController::pairDraft);
    connect(panel_, &ModelPanel::clearDraftRequested, this, [this] { engine_->post([](EngineWorker* w) { w->clearDraft(); }); });
    connect(worker, &EngineWorker::draftLoaded, this, [this](const ModelSummary& s) {
        draftDir_ = s.dir;
        QSettings().setValue(QLatin1String(kLastDraftKey), s.dir);
        panel_->showDraft(s);
        services_->note(tr("Draft model paired: %1").arg(s.dir));
        emit changed();
    });
    connect(worker, &EngineWorker::draftFailed, this, [this](const QString& dir, const QString& error) {
        draftDir_.clear();
        panel_->showDraftError(dir, error);
        services_->note(tr("Draft model %1 refused: %2").arg(dir, error));
        emit changed();
    });
    connect(worker, &EngineWorker::draftCleared, this, [this] {
        draftDir_.clear();
        QSettings().remove(QLatin1String(kLastDraftKey));
        panel_->showDraftCleared();
        emit changed();
    });
    connect(panel_, &ModelPanel::scanned, this, &ModelController::foldersScanned);
}

void ModelController::pairDraft(const QString& dir) {
    panel_->setDraftLoading(dir);
    engine_->post([dir](EngineWorker* w) { w->loadDraft(dir); });
}

bool ModelController::restoreLast() {
    if (loading_ || ready_) return false;  // a model was asked for already (a path on the command line)
    QSettings settings;
    const QString last = settings.value(QLatin1String(kLastModelKey)).toString();
    if (last.isEmpty()) return false;
    if (!QFileInfo(last).isDir()) {
        services_->report(tr("The model of the last session, %1, is no longer there: open a model folder (Ctrl+M).").arg(last));
        return false;
    }
    const QString draft = settings.value(QLatin1String(kLastDraftKey)).toString();
    draftToRestore_ = QFileInfo(draft).isDir() ? draft : QString();
    services_->note(tr("Loading the model of the last session: %1").arg(last));
    load(last);
    return true;
}

void ModelController::load(const QString& dir) {
    ready_ = false;
    loading_ = true;
    panel_->setLoading(dir);
    engine_->post([dir, weights = ModelPanel::weightsFor(dir)](EngineWorker* w) { w->loadModel(dir, weights); });
}

QString ModelController::summary() const {
    // The engine's own description, shortened to its first clause.
    QString text = backend_.isEmpty() ? tr("No model") : backend_.section(QLatin1Char(','), 0, 1);
    if (!draftDir_.isEmpty()) text += tr(" + draft");
    return text;
}

QList<QPair<QString, QString>> ModelController::loadableFolders() const {
    QList<QPair<QString, QString>> folders;
    for (const ModelFolderInfo& m : panel_->folders())
        if (m.ok)
            folders.append({tr("%1 (%2 M parameters)").arg(QString::fromStdString(m.name)).arg(double(m.parameters) / 1e6, 0, 'f', 0),
                            QString::fromStdString(m.dir.string())});
    return folders;
}

}  // namespace carbon::ui
