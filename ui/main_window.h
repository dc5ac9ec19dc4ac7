// MainWindow: the shell of the desktop application. It builds the window (the sequence editor or
// the welcome page in the centre, the controllers' docks around it in a default layout that fits
// a 1366x768 screen, menus, toolbar and status bar), owns the document and the two worker threads
// (the engine, the project file), and connects the controllers, one per feature, which do the
// work: models, analysis, project, designs, generation, variant effects, motifs, logo,
// specificity. Drops and command-line paths are routed to the controller that opens them.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <memory>

#include "workers/engine_worker.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QLabel;
class QScrollArea;
class QStackedWidget;

namespace carbon::ui {

class AnalysisController;
class DesignsController;
class EditingController;
class FeatureController;
class PredictorController;
class DesignMapController;
class SequenceMap;
class GenerationController;
class LogoController;
class MessageBar;
class ModelController;
class MotifController;
class SynthesisController;
class ProjectController;
class RunLog;
class SequenceDocument;
class SequenceEditor;
class SpecificityController;
class VepController;
class WelcomePage;
class WindowServices;
class Workspaces;
struct Dock;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SequenceDocument* document() const { return doc_; }
    SequenceEditor* editor() const { return editor_; }
    SequenceMap* sequenceMap() const { return map_; }
    ModelController* models() const { return models_; }
    AnalysisController* analysis() const { return analysis_; }
    ProjectController* project() const { return project_; }
    DesignsController* designs() const { return designs_; }
    EditingController* editing() const { return editing_; }
    GenerationController* generation() const { return generation_; }
    VepController* variantEffects() const { return vep_; }
    MotifController* motifs() const { return motifs_; }
    SynthesisController* synthesis() const { return synthesis_; }
    LogoController* logo() const { return logo_; }
    SpecificityController* specificity() const { return specificity_; }
    FeatureController* features() const { return features_; }
    PredictorController* predictors() const { return predictors_; }
    DesignMapController* designMap() const { return designMap_; }
    WelcomePage* welcomePage() const { return welcome_; }
    MessageBar* messageBar() const { return messageBar_; }
    Workspaces* workspaces() const { return workspaces_; }
    WindowServices* services() const { return services_; }
    bool isWelcomeShown() const;
    // The answer the next file dialog gives instead of asking (scripted use and tests).
    void setNextFileAnswer(const QString& path);

    // What the last session left: its model (and draft), reloaded in the background, and the
    // generation settings. The application calls it after the paths it was given (a model folder
    // among them wins); tests build windows without it.
    void restoreSession();

public slots:
    void openPath(const QString& path);  // a project, FASTA, GenBank, VCF, vep result or model folder
    void showWelcome();
    void showEditor();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void addDocks(const QList<Dock>& docks);
    void bringForward(const QString& dockName);  // shows the dock and raises its tab
    void fitToScreen();  // first run: most of the screen's available area, centred
    void keepInsideScreen();  // the window and its frame within the screen's available area
    void createMenus();
    void updateStatus();
    void updateEngineLabel();

    std::unique_ptr<WorkerThread<EngineWorker>> engine_;
    std::unique_ptr<WorkerThread<ProjectStore>> store_;
    SequenceDocument* doc_;
    SequenceEditor* editor_;
    RunLog* runLog_;
    WindowServices* services_;
    Workspaces* workspaces_;
    QStackedWidget* centre_;
    QWidget* editorPage_;  // the sequence map above the editor
    SequenceMap* map_;
    MessageBar* messageBar_;
    QScrollArea* welcomeScroll_;  // holds welcome_; the centre shows it or the editor
    WelcomePage* welcome_;
    QLabel* statusLabel_;
    QLabel* engineLabel_;
    ModelController* models_;
    AnalysisController* analysis_;
    ProjectController* project_;
    DesignsController* designs_;
    EditingController* editing_;
    GenerationController* generation_;
    VepController* vep_;
    MotifController* motifs_;
    SynthesisController* synthesis_;
    LogoController* logo_;
    SpecificityController* specificity_;
    FeatureController* features_;
    PredictorController* predictors_;
    DesignMapController* designMap_;
    QStringList forwardWithEditor_;  // docks to bring forward when the editor (and its docks) comes back
};

}  // namespace carbon::ui
