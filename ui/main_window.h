// MainWindow: the sequence editor in the centre, docks for the model, generation settings and
// designs; menus and shortcuts; the engine thread's lifetime. Wiring only: the work is in the
// panels, the editor, the undo commands and EngineWorker.
#pragma once

#include <QMainWindow>
#include <QThread>

#include "carbon/fns_generate.h"
#include "engine_worker.h"

class QLabel;
class QMenu;
class QUndoStack;

namespace carbon::ui {

class BaseInspector;
class DesignTableModel;
class LikelihoodController;
class MutagenesisHeatMap;
class DesignsView;
class GenerationPanel;
class ModelPanel;
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

public slots:
    void loadModel(const QString& dir);
    bool openSequenceFile(const QString& path);  // first FASTA record, or plain bases
    void runGeneration();
    void cancelGeneration();
    void openDesign(int row);
    // Analysis (main_window_analysis.cpp).
    void inspectBase(qint64 position);
    void scanMutagenesis(bool exact);  // the selection, or the inspected base's neighbourhood

signals:
    // To the worker (queued: it lives on engineThread_).
    void loadModelRequested(const QString& dir);
    void generateRequested(quint64 requestId, const carbon::DesignRequest& request);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void setupAnalysis();            // likelihood band, inspector and heat map docks
    void addAnalysisActions(QMenu* view);
    void updateStatus();
    void onProgress(quint64 id, qint64 done, qint64 total, double bps);
    void onDesign(quint64 id, const carbon::Design& design);
    void onFinished(quint64 id, bool cancelled, const QStringList& notices);
    void onFailed(quint64 id, const QString& error);

    SequenceDocument* doc_;
    QUndoStack* undo_;
    SequenceEditor* editor_;
    ModelPanel* modelPanel_;
    GenerationPanel* generation_;
    RunLog* runLog_;
    DesignTableModel* designs_;
    DesignsView* designsView_;
    QLabel* statusLabel_;
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

    LikelihoodController* likelihood_ = nullptr;
    BaseInspector* inspector_ = nullptr;
    MutagenesisHeatMap* heatMap_ = nullptr;
    class QProgressBar* analysisProgress_ = nullptr;
    quint64 variantRequest_ = 0, ismRequest_ = 0;  // the ones whose results are shown
    qint64 ismStart_ = 0, ismEnd_ = 0;
};

}  // namespace carbon::ui
