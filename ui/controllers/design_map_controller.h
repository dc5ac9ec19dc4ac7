// DesignMapController: the Design Map dock (issue 32: "a map of designs: a 2-D projection (PCA) of
// their embeddings, coloured by run, by a predicted value or by cluster, its selection synced
// with the designs table"). Map Designs embeds the designs table's selected rows (all rows when
// fewer than two are selected) on the engine thread (EngineWorker::mapDesigns, progress, Cancel),
// and shows them on their first two principal components; a new k re-clusters the same
// embeddings. A click on a point selects its design in the table; rows selected in the table are
// ringed on the map. When the table's rows are replaced or removed, the map is cleared: it never
// shows points for designs that are no longer the ones listed.
#pragma once

#include <QList>
#include <QObject>

#include "controllers/dock.h"
#include "workers/engine_worker.h"
#include "workers/worker_thread.h"

namespace carbon::ui {

class DesignMapView;
class DesignsController;
class ModelController;
class WindowServices;

class DesignMapController : public QObject {
    Q_OBJECT
public:
    DesignMapController(WorkerThread<EngineWorker>* engine, ModelController* models, DesignsController* designs, WindowServices* services,
                        QObject* parent = nullptr);

    DesignMapView* view() const { return view_; }
    QList<Dock> docks() const { return {dock_}; }
    bool isMapping() const { return run_ != 0; }

public slots:
    void mapDesigns();
    void cancel();

signals:
    void mapped(int points);  // 0 when cancelled or failed

private:
    void finish(const QString& text, int points);
    void invalidate();

    WorkerThread<EngineWorker>* engine_;
    ModelController* models_;
    DesignsController* designs_;
    WindowServices* services_;
    DesignMapView* view_;
    Dock dock_;
    quint64 run_ = 0;       // the embedding in flight (an analysis id)
    quint64 clusters_ = 0;  // the re-clustering in flight
    QList<int> rows_;       // the designs table's source rows mapped, in the map's order
    EmbeddingsPtr embeddings_;
};

}  // namespace carbon::ui
