// DesignMapController: mapping the designs and keeping the map and the table in step (see
// design_map_controller.h).
#include "design_map_controller.h"

#include <QSet>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

#include "controllers/designs_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/window_services.h"
#include "views/design_map_view.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"

namespace carbon::ui {

DesignMapController::DesignMapController(WorkerThread<EngineWorker>* engine, ModelController* models, DesignsController* designs,
                                         WindowServices* services, QObject* parent)
    : QObject(parent), engine_(engine), models_(models), designs_(designs), services_(services), view_(new DesignMapView) {
    dock_ = makeDock(view_, tr("Design Map"), "designMapDock", Qt::BottomDockWidgetArea, false);
    connect(view_, &DesignMapView::mapRequested, this, &DesignMapController::mapDesigns);
    connect(view_, &DesignMapView::cancelRequested, this, &DesignMapController::cancel);
    connect(view_, &DesignMapView::rowsClicked, this, [this](const QList<int>& rows) { designs_->view()->selectSourceRows(rows); });
    connect(view_, &DesignMapView::clustersRequested, this, [this](int k) {
        if (!embeddings_) return;
        clusters_ = nextAnalysisId();
        engine_->post([id = clusters_, e = embeddings_, k](EngineWorker* w) { w->clusterDesigns(id, e, k); });
    });
    connect(designs_->view(), &DesignsView::selectionChanged, this, [this] { view_->setSelectedRows(designs_->view()->selectedSourceRows()); });
    // Rows replaced or removed: the map's rows would name other designs.
    DesignTableModel* model = designs_->model();
    connect(model, &QAbstractItemModel::modelReset, this, &DesignMapController::invalidate);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &DesignMapController::invalidate);

    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == run_ && run_) view_->setProgress(done, total);
    });
    connect(worker, &EngineWorker::designsMapped, this, [this](quint64 id, const DesignMapPtr& m) {
        if (id != run_ || !run_) return;
        const DesignTableModel* table = designs_->model();
        // The predicted columns the mapped designs have values in, in the table's order.
        QStringList outputs;
        QList<DesignTableModel::PredictionKey> keys;
        for (qsizetype k = 0; k < table->predictionKeys().size(); ++k) {
            const DesignTableModel::PredictionKey& key = table->predictionKeys()[k];
            bool has = false;
            for (int r : rows_)
                for (const carbon::storage::DesignPrediction& p : table->row(r).predictions)
                    has = has || (p.predictor == key.predictor && p.output == key.output);
            if (!has) continue;
            keys << key;
            outputs << table->predictionLabel(int(k));
        }
        QList<DesignMapView::Point> points;
        for (qsizetype i = 0; i < rows_.size() && size_t(i) < m->map.points.size(); ++i) {
            const DesignRow& row = table->row(rows_[i]);
            DesignMapView::Point p;
            p.row = rows_[i];
            p.run = row.run;
            p.x = m->map.points[size_t(i)][0];
            p.y = m->map.points[size_t(i)][1];
            p.cluster = size_t(i) < m->clusters.cluster.size() ? m->clusters.cluster[size_t(i)] : 0;
            for (const DesignTableModel::PredictionKey& key : keys) {
                double v = std::nan("");
                for (const carbon::storage::DesignPrediction& pr : row.predictions)
                    if (pr.predictor == key.predictor && pr.output == key.output) v = pr.value;
                p.values << v;
            }
            points << p;
        }
        embeddings_ = m->embeddings;
        clusters_ = 0;
        view_->setMap(points, outputs, m->map.explained_ratio, m->embedding);
        view_->setSelectedRows(designs_->view()->selectedSourceRows());
        finish(tr("Mapped %n design(s).", nullptr, int(points.size())), int(points.size()));
    });
    connect(worker, &EngineWorker::designsClustered, this, [this](quint64 id, const QList<int>& clusters) {
        if (id == clusters_) view_->setClusters(clusters);
    });
    connect(worker, &EngineWorker::analysisCancelled, this, [this](quint64 id) {
        if (id == run_ && run_) finish(tr("Mapping cancelled: the map is as it was."), 0);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id == run_ && run_) finish(tr("Mapping failed: %1").arg(error), 0);
        if (id == clusters_ && clusters_) view_->setMessage(tr("Clustering failed: %1").arg(error));
    });
}

void DesignMapController::mapDesigns() {
    services_->raiseDock(QStringLiteral("designMapDock"));
    if (run_) return;
    if (!models_->isReady()) return view_->setMessage(tr("No model is loaded: open the model to embed the designs with first."));
    const DesignTableModel* table = designs_->model();
    QList<int> rows = designs_->view()->selectedSourceRows();
    if (rows.size() < 2) {
        rows.clear();
        for (int r = 0; r < table->rowCount(); ++r) rows << r;
    }
    std::sort(rows.begin(), rows.end());
    if (rows.size() < 2) return view_->setMessage(tr("A map needs at least two designs: generate or open some first."));
    QList<QByteArray> sequences;
    for (int r : rows) sequences << QByteArray::fromStdString(table->row(r).design.bases);
    rows_ = rows;
    clusters_ = 0;  // a re-clustering of the map before is not this map's
    run_ = nextAnalysisId();
    view_->setRunning(true);
    view_->setMessage(tr("Embedding %n design(s)…", nullptr, int(rows.size())));
    engine_->post([id = run_, sequences, k = view_->clusterSpin()->value()](EngineWorker* w) { w->mapDesigns(id, sequences, k); });
}

void DesignMapController::cancel() {
    if (run_) engine_->worker()->cancelAnalysis(run_);
}

void DesignMapController::finish(const QString& text, int points) {
    run_ = 0;
    view_->setRunning(false);
    view_->setMessage(text);
    emit mapped(points);
}

void DesignMapController::invalidate() {
    if (run_) {  // the rows being embedded are no longer those listed
        engine_->worker()->cancelAnalysis(run_);
        finish(tr("The designs table changed while mapping: Map Designs again."), 0);
    }
    if (view_->pointCount() == 0) return;
    embeddings_.reset();
    rows_.clear();
    clusters_ = 0;
    view_->clear(tr("The designs table changed: Map Designs again to map the designs it lists now."));
}

}  // namespace carbon::ui
