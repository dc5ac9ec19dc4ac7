// SpecificityController: the specificity track of the edited sequence. View > Specificity Track
// scores the document under the generation panel's tags and under its negative tags on the
// engine thread (progress in the status bar; View > Cancel Specificity Track stops it) and draws
// log p(base | tags) - log p(base | negative tags) per base, the quantity tag guidance raises, in
// the Design Tracks dock.
#pragma once

#include <QObject>

#include "workers/engine_worker.h"
#include "workers/worker_thread.h"

class QAction;
class QMenu;

namespace carbon::ui {

class GenerationPanel;
class SequenceDocument;
class TrackChartView;
class WindowServices;

class SpecificityController : public QObject {
    Q_OBJECT
public:
    SpecificityController(SequenceDocument* doc, WorkerThread<EngineWorker>* engine, GenerationPanel* panel, TrackChartView* chart,
                          WindowServices* services, QObject* parent = nullptr);

    void addViewActions(QMenu* view);

public slots:
    void runSpecificityTrack();
    void cancelSpecificityTrack();

private:
    void done();

    SequenceDocument* doc_;
    WorkerThread<EngineWorker>* engine_;
    GenerationPanel* panel_;
    TrackChartView* chart_;
    WindowServices* services_;
    QAction* cancel_ = nullptr;
    quint64 request_ = 0;
    quint64 drawn_ = 0;  // the chart's revision when it showed this controller's track
};

}  // namespace carbon::ui
