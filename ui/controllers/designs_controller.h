// DesignsController: the designs of the window, whoever made them. It owns the Designs dock (the
// table over DesignTableModel, its filters, star / discard) and the Design Tracks dock (designs'
// per-base tracks overlaid, or another track such as specificity), takes the open project's
// stored designs, stores the user's verdicts, and exports: the selected designs (FASTA, TSV, CSV),
// one design (GenBank, bedGraph, WIG, bigWig) or every stored sequence (FASTA), and orders the
// selected designs as constructs (the Order dialog: Twist, IDT plates, FASTA, GenBank).
#pragma once

#include <QObject>

#include "controllers/dock.h"
#include "workers/project_store.h"
#include "workers/worker_thread.h"

class QMenu;

namespace carbon::ui {

class DesignTableModel;
class DesignsView;
class ProjectController;
class TrackChartView;
class WindowServices;

class DesignsController : public QObject {
    Q_OBJECT
public:
    DesignsController(ProjectController* project, WindowServices* services, QObject* parent = nullptr);

    DesignTableModel* model() const { return model_; }
    DesignsView* view() const { return view_; }
    TrackChartView* chart() const { return chart_; }
    QList<Dock> docks() const { return {designsDock_, tracksDock_}; }
    // File > Export.
    void addExportActions(QMenu* exportMenu);

public slots:
    void exportDesignsInteractive(carbon::ui::ExportFormat format);  // the selected designs (or all sequences)
    void overlaySelectedDesigns();
    // File > Export > Order Selected Designs: the Order dialog, a file, then exportOrder.
    void orderSelectedDesignsInteractive();
    // An order of request.designIds as constructs (request.format: TwistCsv, IdtXlsx,
    // ConstructsFasta, ConstructsGenBank) to request.path, on the project's thread.
    void exportOrder(const carbon::ui::ExportRequest& request);
    // Choose Diverse…: the dialog over the stored designs the table shows, then the project
    // chooses and stores them (runs::choose_designs); the table then shows the selection.
    void chooseDiverseInteractive();

private:
    void showProjectDesigns(const ProjectSnapshot& snapshot);
    void onDesignTracks(quint64 token, const QList<qint64>& ids, const QList<QVector<float>>& values);

    ProjectController* project_;
    WorkerThread<ProjectStore>* store_;
    WindowServices* services_;
    DesignTableModel* model_;
    DesignsView* view_;
    TrackChartView* chart_;
    Dock designsDock_, tracksDock_;
    quint64 overlayToken_ = 0;
    quint64 chooseToken_ = 0;  // the last choice this window asked for
};

}  // namespace carbon::ui
