// MainWindow: the sequence editor in the centre, docks for the model, generation settings and
// designs; menus and shortcuts; the engine thread's lifetime. Wiring only: the work is in the
// panels, the editor, the undo commands and EngineWorker.
#pragma once

#include <QHash>
#include <QMainWindow>
#include <QThread>
#include <memory>

#include "carbon/generation/fns_generate.h"
#include "workers/engine_worker.h"
#include "workers/project_types.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QScrollArea;
class QStackedWidget;
class QTemporaryDir;
class QTimer;
class QUndoStack;

namespace carbon::ui {

class BaseInspector;
class DesignTableModel;
class LikelihoodController;
class MutagenesisHeatMap;
class DesignsView;
class GenerationPanel;
class ModelPanel;
class ProjectBrowser;
class ProjectStore;
class TrackChartView;
class VepView;
class LogoPanel;
class MotifSet;
struct VepRow;
class WelcomePage;
class RunLog;
class SequenceDocument;
class SequenceEditor;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SequenceDocument* document() const { return doc_; }
    SequenceEditor* editor() const { return editor_; }
    QUndoStack* undoStack() const { return undo_; }
    GenerationPanel* generationPanel() const { return generation_; }
    ModelPanel* modelPanel() const { return modelPanel_; }
    DesignTableModel* designs() const { return designs_; }
    DesignsView* designsView() const { return designsView_; }
    bool isGenerating() const { return running_; }
    bool isModelReady() const { return modelReady_; }
    LikelihoodController* likelihood() const { return likelihood_; }
    BaseInspector* inspector() const { return inspector_; }
    MutagenesisHeatMap* heatMap() const { return heatMap_; }
    // The project (main_window_project.cpp).
    ProjectBrowser* projectBrowser() const { return browser_; }
    ProjectStore* projectStore() const { return store_; }
    TrackChartView* designChart() const { return designChart_; }
    const QString& projectPath() const { return projectPath_; }
    qint64 currentSequenceId() const { return sequenceId_; }
    QString sequenceName() const;
    WelcomePage* welcomePage() const { return welcome_; }
    VepView* vepView() const { return vep_; }
    LogoPanel* logoPanel() const { return logo_; }
    bool isWelcomeShown() const;
    // The answer the next file dialog gives instead of asking (scripted use and tests).
    void setNextFileAnswer(const QString& path) { nextFileAnswer_ = path; }

public slots:
    void loadModel(const QString& dir);
    bool openSequenceFile(const QString& path);  // first FASTA record, or plain bases
    void runGeneration();
    void cancelGeneration();
    void openDesign(int row);
    // Analysis (main_window_analysis.cpp).
    void inspectBase(qint64 position);
    void scanMutagenesis(bool exact);  // the selection, or the inspected base's neighbourhood
    // The edited sequence's specificity track, the generation panel's tags against its negative
    // tags, in the Design Tracks dock (main_window_specificity.cpp); Cancel stops it.
    void runSpecificityTrack();
    void cancelSpecificityTrack();
    // Projects (main_window_project.cpp).
    void newProject(const QString& path);
    void openProject(const QString& path);
    void closeProject();
    void saveProjectAs(const QString& path);
    void importFasta(const QString& path);  // into the open project; without one, into the editor
    void importFlatFile(const QString& path);  // GenBank / EMBL with features, into the open project
    void importVcf(const QString& path);    // SNVs on the current stored sequence
    void exportDesignsInteractive(carbon::ui::ExportFormat format);  // the selected designs
    void openStoredSequence(qint64 id);
    void overlaySelectedDesigns();
    void openPath(const QString& path);  // a project, FASTA, VCF or model folder (drops, command line)
    void openSampleProject();  // made from the embedded sample files on first use, then reopened
    void openVariant(qint64 sequenceId, qint64 position, char alt);  // select it; inspect once scored
    void showWelcome();
    void showEditor();
    // Variant effect results (main_window_vep.cpp): read in the background, shown in the Variant
    // Effects dock; a variant's window is fetched from the result's reference into the editor,
    // the variant selected and inspected.
    void openVepResult(const QString& path);
    void openVepVariant(const carbon::ui::VepRow& row);
    // Score Variants: every record of a VCF against the open project's sequences (named by the
    // VCF's CHROM), in the background with progress and Stop; the rows are stored as a "vep" run
    // and shown. openVepRun shows a stored one.
    void scoreProjectVcf(const QString& vcfPath, qint64 windowBp, bool reverseComplement);
    void stopScoringVcf();
    void openVepRun(qint64 runId);
    // The Sequence Logo dock (main_window_logo.cpp): the model's distributions over the editor's
    // selection, or the base frequencies of the selected designs; exported as SVG or PNG.
    void logoFromSelection();
    void logoFromDesigns();
    void exportLogo(bool svg);
    // Transcription-factor matrices (main_window_motifs.cpp): loaded from a JASPAR / MEME /
    // TRANSFAC file with a p-value threshold, their hits framed in the editor (rescanned after
    // edits) and counted per design in the designs table; clearMotifs removes them.
    void loadMotifs(const QString& path, double maxPvalue);
    void clearMotifs();
    const std::shared_ptr<const MotifSet>& motifs() const { return motifs_; }

signals:
    // To the worker (queued: it lives on engineThread_).
    void loadModelRequested(const QString& dir);
    void backendRequested(const QString& kind);  // "auto" | "cpu" | "cuda"
    void loadDraftRequested(const QString& dir);
    void clearDraftRequested();
    void generateRequested(quint64 requestId, const carbon::DesignRequest& request);
    // To the project store (queued: it lives on storeThread_).
    void openProjectRequested(const QString& path, bool create);
    void closeProjectRequested();
    void loadSequenceRequested(qint64 id);
    void saveSequenceRequested(quint64 token, qint64 id, const QString& name, const QByteArray& bases, const QList<carbon::ui::Region>& regions);
    void importFastaRequested(const QString& path);
    void importFlatFileRequested(const QString& path);
    void importVcfRequested(const QString& path, qint64 sequenceId);
    void storeRunRequested(const carbon::ui::RunToStore& run);
    void designFlagRequested(qint64 designId, const QString& flag);
    void exportRequested(const carbon::ui::ExportRequest& request);
    void saveCopyRequested(const QString& path);
    void createSampleRequested(const QString& path, const QString& fasta, const QString& vcf, const QString& regionsTsv);
    void designTracksRequested(quint64 token, const QList<qint64>& designIds, const QString& kind);
    // Notifications (for scripts and tests).
    void projectOpened(const QString& path);
    void sequenceOpened(qint64 id);
    void vepResultOpened(const QString& path, int rows);
    void vepWindowOpened(const QString& locus);
    void vepRunFinished(qint64 runId, qint64 rows, bool cancelled);  // stored (runId 0: failed)
    void motifsScanned(int hits);  // the editor's frames are up to date
    void projectError(const QString& what, const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void fitToScreen();  // first run: most of the screen's available area, centred
    // A dock holding `panel` (in a scroll area when `scroll`), named for saveState.
    QDockWidget* addPanel(QWidget* panel, const QString& title, const char* name, Qt::DockWidgetArea area, bool scroll);
    void arrangeDefaultDocks();
    void showDefaultDocks();  // every dock open, the default tabs in front
    void bringForward(const QString& dockName);  // shows the dock and raises its tab
    void setupAnalysis();            // likelihood band, inspector and heat map docks
    void setupVep();                 // the Variant Effects dock (main_window_vep.cpp)
    void setupLogo();                // the Sequence Logo dock (main_window_logo.cpp)
    void setupMotifs(QMenu* edit);   // Edit > Scan Motifs (main_window_motifs.cpp)
    void rescanMotifs();
    void countDesignMotifs(int row);
    void addVepActions(QMenu* file);
    void addAnalysisActions(QMenu* view);
    void setupSpecificity(QMenu* view);
    void updateStatus();
    void updateEngineLabel();
    void onProgress(quint64 id, qint64 done, qint64 total, double bps);
    void onDesign(quint64 id, const carbon::Design& design);
    void onFinished(quint64 id, bool cancelled, const QStringList& notices);
    void onFailed(quint64 id, const QString& error);
    // Projects (main_window_project.cpp).
    void setupProject();
    void shutdownProject();
    void addProjectActions(QMenu* file);
    QString chooseFile(bool save, const QString& title, const QString& filter);
    void onProjectOpened(const carbon::ui::ProjectSnapshot& snapshot);
    void onSequenceLoaded(const carbon::ui::StoredSequence& info, const QByteArray& bases, const QList<carbon::ui::Region>& regions);
    void autosaveNow();
    void flushAutosave();
    void onGenerated(quint64 request, const carbon::ui::GenerationRunPtr& run);
    void onDesignTracks(quint64 token, const QList<qint64>& ids, const QList<QVector<float>>& values);
    void syncTemplateFromRegions();
    void showPendingVariant();

    SequenceDocument* doc_;
    QUndoStack* undo_;
    SequenceEditor* editor_;
    ModelPanel* modelPanel_;
    GenerationPanel* generation_;
    RunLog* runLog_;
    DesignTableModel* designs_;
    DesignsView* designsView_;
    QLabel* statusLabel_;
    QLabel* engineLabel_ = nullptr;
    double lastRunBps_ = 0;
    QString lastFind_;

    QThread engineThread_;
    EngineWorker* worker_;
    bool modelReady_ = false;
    qint64 contextBases_ = 0;
    // The run whose results are shown; anything else arriving from the worker is stale.
    quint64 currentRequest_ = 0;
    bool running_ = false;
    qsizetype regionStart_ = 0, regionLength_ = 0;
    int designsThisRun_ = 0;
    bool runConstraintsActive_ = false;

    LikelihoodController* likelihood_ = nullptr;
    BaseInspector* inspector_ = nullptr;
    MutagenesisHeatMap* heatMap_ = nullptr;
    class QProgressBar* analysisProgress_ = nullptr;
    quint64 variantRequest_ = 0, ismRequest_ = 0;  // the ones whose results are shown
    quint64 specificityRequest_ = 0;
    QAction* cancelSpecificity_ = nullptr;
    qint64 ismStart_ = 0, ismEnd_ = 0;

    // Projects.
    QThread storeThread_;
    ProjectStore* store_ = nullptr;
    ProjectBrowser* browser_ = nullptr;
    TrackChartView* designChart_ = nullptr;
    QMenu* recentProjects_ = nullptr;
    QAction* newProjectAction_ = nullptr;   // also behind the welcome page's buttons
    QAction* openProjectAction_ = nullptr;
    QScrollArea* welcomeScroll_ = nullptr;  // holds welcome_; the centre shows it or the editor
    QByteArray editorLayout_;  // saveState() of the docks beside the editor, kept while the welcome page hides them; empty: the default
    QStringList forwardWithEditor_;  // docks to bring forward when the editor (and its docks) comes back
    QString projectPath_;
    qint64 sequenceId_ = 0;  // the stored sequence in the editor; 0 = not stored (yet)
    QString sequenceName_;
    QTimer* autosave_ = nullptr;
    quint64 saveToken_ = 0;
    bool saveInFlight_ = false, saveAgain_ = false, loadingSequence_ = false;
    QHash<quint64, carbon::ui::RunToStore> pendingRuns_;  // runs in flight: where their designs go
    quint64 overlayToken_ = 0;
    QByteArray pinnedMask_;  // design-region positions fixed by pinned motifs at the last sync
    QString nextFileAnswer_;
    QString modelDir_, modelBackend_, draftDir_;
    QStackedWidget* centre_ = nullptr;
    WelcomePage* welcome_ = nullptr;
    std::unique_ptr<QTemporaryDir> sampleFiles_;  // while the sample project is being made
    qint64 pendingVariantPos_ = -1;
    char pendingVariantAlt_ = 0;
    VepView* vep_ = nullptr;
    LogoPanel* logo_ = nullptr;
    std::shared_ptr<const MotifSet> motifs_;
    quint64 motifToken_ = 0;  // the newest motif load or scan; older answers are dropped
    QTimer* motifRescan_ = nullptr;
    quint64 vepToken_ = 0;  // the newest vep read or window fetch; older answers are dropped
    quint64 vepRun_ = 0;     // the Score Variants run in progress (an analysis id); 0 when none
    QString vepRunTsv_;      // where its rows are written until they are stored
    QPair<qint64, qint64> pendingSelection_{-1, -1};  // selected once the sequence being opened is loaded
};

}  // namespace carbon::ui
