// DesignsController: the designs table, overlays and exports (see designs_controller.h).
#include "designs_controller.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QHash>
#include <QMenu>

#include "carbon/runs/run_records.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "views/choose_designs_dialog.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "carbon/storage/order_files.h"
#include "views/order_dialog.h"
#include "views/project_browser.h"
#include "views/track_chart_view.h"

namespace carbon::ui {

DesignsController::DesignsController(ProjectController* project, WindowServices* services, QObject* parent)
    : QObject(parent), project_(project), store_(project->storeThread()), services_(services) {
    model_ = new DesignTableModel(this);
    view_ = new DesignsView(model_);
    designsDock_ = makeDock(view_, tr("Designs"), "designsDock", Qt::BottomDockWidgetArea, false);
    chart_ = new TrackChartView;
    chart_->setAccessibleName(tr("Design tracks"));
    tracksDock_ = makeDock(chart_, tr("Design Tracks"), "designTracksDock", Qt::BottomDockWidgetArea, false);

    connect(project_, &ProjectController::snapshotOpened, this, &DesignsController::showProjectDesigns);
    connect(project_->browser(), &ProjectBrowser::showRun, this, [this](qint64 run) {
        view_->setRunFilter(run);
        designsDock_.widget->show();
    });
    connect(model_, &DesignTableModel::flagChanged, this, [this](qint64 designId, const QString& flag) {
        store_->post([designId, flag](ProjectStore* s) { s->setDesignFlag(designId, flag); });
    });
    connect(view_, &DesignsView::exportSelection, this, [this] { exportDesignsInteractive(ExportFormat::DesignsFasta); });
    connect(view_, &DesignsView::overlaySelection, this, &DesignsController::overlaySelectedDesigns);
    // Synthesis rules of the user's own, and the project's stored selections (Choose Diverse…).
    connect(view_, &DesignsView::rulesFileRequested, this, [this] {
        const QString path = services_->chooseFile(false, tr("Synthesis rules file"), tr("Synthesis rules (*.rules);;All files (*)"));
        if (path.isEmpty()) return;
        if (const QString error = view_->addRulesFile(path); !error.isEmpty())
            services_->error(tr("Synthesis rules not read: %1").arg(error));
    });
    connect(view_, &DesignsView::synthesisRulesFailed, this,
            [this](const QString& error) { services_->error(tr("Synthesis rules not read: %1").arg(error)); });
    connect(project_, &ProjectController::selectionsChanged, view_, &DesignsView::setSelections);
    connect(view_, &DesignsView::chooseDiverseRequested, this, &DesignsController::chooseDiverseInteractive);
    connect(store_->worker(), &ProjectStore::designsChosen, this,
            [this](quint64 token, const carbon::storage::SelectionRecord& chosen, const QString& summary, const SelectionList& all) {
                view_->setSelections(all);
                if (token != chooseToken_) return;
                view_->showSelection(QString::fromStdString(chosen.name));
                services_->report(summary, 15000);
            });
    connect(store_->worker(), &ProjectStore::designTracks, this, &DesignsController::onDesignTracks);
    connect(store_->worker(), &ProjectStore::exported, this, [this](const QString& path, const QStringList& notes) {
        for (const QString& n : notes) services_->note(tr("Export: %1").arg(n));
        services_->report(notes.isEmpty() ? tr("Exported %1").arg(path)
                                          : tr("Exported %1; %n change(s) to fit the format are listed in the Run Log", nullptr, int(notes.size())).arg(path),
                          notes.isEmpty() ? 8000 : 15000);
    });
}

void DesignsController::showProjectDesigns(const ProjectSnapshot& snap) {
    // The stored designs, with the run each came from; the table is the project's from now on.
    QHash<qint64, const carbon::storage::Run*> byId;
    QHash<qint64, ConstructPtr> constructOf;  // one record per run, shared by its rows
    for (const carbon::storage::Run& r : snap.runs) {
        byId.insert(r.id, &r);
        if (auto c = carbon::storage::run_construct(r)) constructOf.insert(r.id, std::make_shared<const carbon::storage::ConstructRecord>(std::move(*c)));
    }
    QList<DesignRow> rows;
    rows.reserve(snap.designs.size());
    for (const carbon::storage::DesignRecord& d : snap.designs) {
        DesignRow row;
        row.design = runs::design_of(d);
        row.run = quint64(d.run_id);
        row.designId = d.id;
        row.flag = QString::fromStdString(d.flag);
        row.minBaseLogp = d.min_base_logp;
        row.sequenceId = d.sequence_id;
        row.objective = d.objective;
        row.predictions = d.predictions;
        if (const carbon::storage::Run* r = byId.value(d.run_id)) {
            // Text from a file someone else may have written: an unreadable number reads as 0.
            auto setting = [r](const char* key) { return QString::fromStdString(r->setting(key).value_or("")); };
            row.sequenceId = setting("sequence_id").toLongLong();
            row.regionStart = setting("region_start").toLongLong();
            row.regionLength = setting("region_length").toLongLong();
            row.construct = constructOf.value(d.run_id);
            row.constraintsActive = setting("max_homopolymer").toInt() > 0 || !setting("forbid").isEmpty() ||
                                    setting("gc_min").toDouble() > 0 || setting("gc_max").toDouble() < 1;
        }
        rows.append(std::move(row));
    }
    view_->showSelection({});  // another project's selection (or this one's, reopened) is not shown on
    model_->setRows(std::move(rows));
    view_->setRunFilter(0);
}

void DesignsController::addExportActions(QMenu* exportMenu) {
    auto exportAction = [this, exportMenu](const QString& text, ExportFormat f, QList<QKeySequence> keys = {}) {
        QAction* a = exportMenu->addAction(text, this, [this, f] { exportDesignsInteractive(f); });
        a->setShortcuts(keys);
    };
    exportAction(tr("Selected Designs as &FASTA…"), ExportFormat::DesignsFasta, {QKeySequence(tr("Ctrl+E"))});
    exportAction(tr("Selected Designs as &TSV…"), ExportFormat::DesignsTsv);
    exportAction(tr("Selected Designs as &CSV…"), ExportFormat::DesignsCsv);
    exportAction(tr("Design as &GenBank…"), ExportFormat::GenBank);
    exportAction(tr("Design Track as &bedGraph…"), ExportFormat::BedGraph);
    exportAction(tr("Design Track as &WIG…"), ExportFormat::Wig);
    exportAction(tr("Design Track as b&igWig…"), ExportFormat::BigWig);
    exportAction(tr("All &Sequences as FASTA…"), ExportFormat::SequencesFasta);
    exportMenu->addSeparator();
    exportMenu->addAction(tr("&Order Selected Designs…"), this, &DesignsController::orderSelectedDesignsInteractive);
}

void DesignsController::orderSelectedDesignsInteractive() {
    if (!project_->isOpen())
        return project_->reportError(tr("Order"), tr("Order: designs are ordered from a project; open or create one first."));
    const QList<qint64> ids = view_->selectedDesignIds();
    int inConstructs = 0;
    for (int r : view_->selectedSourceRows()) inConstructs += model_->row(r).designId && model_->row(r).construct != nullptr;
    if (ids.isEmpty()) return project_->reportError(tr("Order"), tr("Order: select the stored designs to order in the designs table first."));
    OrderDialog dialog(int(ids.size()), inConstructs, project_->constructs(), services_->window());
    if (dialog.exec() != QDialog::Accepted) return;
    ExportRequest request = dialog.request();
    static const QHash<int, QPair<QString, QString>> kFilters = {
        {int(ExportFormat::TwistCsv), {tr("Twist oligo pool (*.csv)"), QStringLiteral(".csv")}},
        {int(ExportFormat::IdtXlsx), {tr("IDT plates (*.xlsx)"), QStringLiteral(".xlsx")}},
        {int(ExportFormat::ConstructsFasta), {tr("FASTA (*.fa)"), QStringLiteral(".fa")}},
        {int(ExportFormat::ConstructsGenBank), {tr("GenBank (*.gb)"), QStringLiteral(".gb")}},
    };
    QString path = services_->chooseFile(true, tr("Order"), kFilters[int(request.format)].first);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += kFilters[int(request.format)].second;
    request.path = path;
    request.designIds = ids;
    exportOrder(request);
}

void DesignsController::chooseDiverseInteractive() {
    if (!project_->isOpen())
        return project_->reportError(tr("Choose designs"), tr("Choose designs: a selection is stored in a project; open or create one first."));
    QList<qint64> candidates;
    for (int r : view_->shownSourceRows())
        if (model_->row(r).designId && model_->row(r).flag != QLatin1String("discarded")) candidates << model_->row(r).designId;
    QStringList scores;
    for (const std::string& c : carbon::runs::design_score_columns()) scores << QString::fromStdString(c);
    for (const DesignTableModel::PredictionKey& k : model_->predictionKeys())
        scores << QString::fromStdString(k.predictor + ":" + k.output);
    ChooseDesignsDialog dialog(candidates, scores, project_->selections(), services_->window());
    if (dialog.exec() != QDialog::Accepted) return;
    const carbon::runs::DesignChoiceRequest request = dialog.request();
    services_->message(tr("Choosing %1 of %2 design(s)…").arg(request.count).arg(candidates.size()), 5000);
    store_->post([token = ++chooseToken_, request](ProjectStore* s) { s->chooseDesigns(token, request); });
}

void DesignsController::exportOrder(const ExportRequest& request) {
    store_->post([request](ProjectStore* s) { s->exportFile(request); });
}

void DesignsController::exportDesignsInteractive(ExportFormat format) {
    if (!project_->isOpen())
        return project_->reportError(tr("Export"), tr("Export: designs are exported from a project; open or create one first (new runs are stored in it)."));
    static const QHash<int, QPair<QString, QString>> kFilters = {
        {int(ExportFormat::DesignsFasta), {tr("FASTA (*.fa)"), QStringLiteral(".fa")}},
        {int(ExportFormat::DesignsTsv), {tr("Tab-separated (*.tsv)"), QStringLiteral(".tsv")}},
        {int(ExportFormat::DesignsCsv), {tr("Comma-separated (*.csv)"), QStringLiteral(".csv")}},
        {int(ExportFormat::GenBank), {tr("GenBank (*.gb)"), QStringLiteral(".gb")}},
        {int(ExportFormat::BedGraph), {tr("bedGraph (*.bedgraph)"), QStringLiteral(".bedgraph")}},
        {int(ExportFormat::Wig), {tr("WIG (*.wig)"), QStringLiteral(".wig")}},
        {int(ExportFormat::BigWig), {tr("bigWig (*.bw)"), QStringLiteral(".bw")}},
        {int(ExportFormat::SequencesFasta), {tr("FASTA (*.fa)"), QStringLiteral(".fa")}},
    };
    ExportRequest request;
    request.format = format;
    for (int r : view_->selectedSourceRows())
        if (model_->row(r).designId) request.designIds << model_->row(r).designId;
    const bool perDesign = format == ExportFormat::GenBank || format == ExportFormat::BedGraph || format == ExportFormat::Wig ||
                           format == ExportFormat::BigWig;
    if (perDesign && request.designIds.isEmpty())
        return project_->reportError(tr("Export"), tr("Export: select a stored design in the designs table first."));
    QString path = services_->chooseFile(true, tr("Export"), kFilters[int(format)].first);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += kFilters[int(format)].second;
    request.path = path;
    store_->post([request](ProjectStore* s) { s->exportFile(request); });
}

void DesignsController::overlaySelectedDesigns() {
    const QList<int> rows = view_->selectedSourceRows();
    if (rows.isEmpty()) return services_->message(tr("Select designs to overlay in the designs table."), 5000);
    QList<qint64> ids;
    for (int r : rows)
        if (model_->row(r).designId) ids << model_->row(r).designId;
    if (ids.isEmpty()) return services_->message(tr("Only stored designs have tracks to overlay: open a project before the run."), 8000);
    store_->post([token = ++overlayToken_, ids](ProjectStore* s) { s->loadDesignTracks(token, ids, QStringLiteral("logp")); });
}

void DesignsController::onDesignTracks(quint64 token, const QList<qint64>& ids, const QList<QVector<float>>& values) {
    if (token != overlayToken_) return;
    QList<TrackChartView::Track> tracks;
    for (qsizetype i = 0; i < ids.size(); ++i) {
        QString name = tr("design %1").arg(ids[i]);
        for (int r = 0; r < model_->rowCount(); ++r)
            if (model_->row(r).designId == ids[i]) name = tr("run %1 rank %2").arg(model_->row(r).run).arg(model_->row(r).design.rank);
        tracks.append({name, values[i], false});
    }
    chart_->setTracks(tracks, 1, tr("log p per base"));
    services_->raiseDock(QStringLiteral("designTracksDock"));
}

}  // namespace carbon::ui
