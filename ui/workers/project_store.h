// ProjectStore: the open project file, on its own thread. It owns the only SQLite connection the
// application holds; the GUI reaches it through queued signals and gets results back the same
// way, so neither a 10,000-design listing nor a large import ever runs on the GUI thread.
// Every write is one transaction (a run with its designs, tracks and regions lands whole, or
// nothing of it does), checkpointed into the project file after it (so that a copy of the file
// taken while the application runs holds it, not only the -wal file beside it); errors come
// back as failed() with the storage layer's message. A write
// waits up to kWriteWaitSeconds for another program writing to the file, saying so through
// waiting(); a run that still cannot be stored is kept in a recovery project (failed() names it).
#pragma once

#include <QObject>
#include <functional>
#include <memory>

#include "analysis_types.h"
#include "carbon/runs/design_choice.h"
#include "project_types.h"
#include "views/vep_result.h"

namespace carbon::storage {
class Project;
}

namespace carbon::ui {

constexpr int kWriteWaitSeconds = 60;

class ProjectStore : public QObject {
    Q_OBJECT
public:
    explicit ProjectStore(QObject* parent = nullptr);
    ~ProjectStore() override;

public slots:
    // How long a write waits for another program writing to the file (from the next open).
    void setWriteWait(int seconds) { writeWaitSeconds_ = seconds; }
    void open(const QString& path, bool create);
    void close();
    void loadSequence(qint64 id);
    // Autosave of the edited sequence: id 0 adds it (sequenceSaved reports the new id).
    void saveSequence(quint64 token, qint64 id, const QString& name, const QByteArray& bases, const QList<carbon::ui::Region>& regions);
    void importFasta(const QString& path);
    // Every entry of a GenBank or EMBL file with its feature table (all or nothing).
    void importFlatFile(const QString& path);
    void importVcf(const QString& path, qint64 sequenceId);  // by id: names need not be unique
    void storeRun(const carbon::ui::RunToStore& run);
    // An evolution of a design region (runs::write_evolution for a region; all or nothing, kept
    // in a recovery project when the project cannot take it): runStored with its designs, the
    // start first, then each round.
    void storeEvolution(const carbon::ui::EvolutionToStore& run);
    void setDesignFlag(qint64 designId, const QString& flag);
    void exportFile(const carbon::ui::ExportRequest& request);
    // A stored vep run's scores as a bigWig beside an IGV session that opens them with the genome
    // and the VCF (storage's export_vep_for_igv, as carbon-cli project export --format igv).
    void exportVepForIgv(qint64 runId, const QString& sessionPath);
    void saveCopy(const QString& path);  // Save As: a copy of the committed project, then opened
    void loadDesignTracks(quint64 token, const QList<qint64>& designIds, const QString& kind);
    // Score Variants: the project's sequences for the engine (vepSequencesReady); the engine's
    // rows kept as a "vep" run (vepRunStored; a recovery project when it cannot be stored); a
    // stored vep run read back for the Variant Effects dock (vepRunLoaded).
    void collectVepSequences(quint64 token, carbon::ui::VepRunRequest request);
    void storeVepRun(quint64 token, const carbon::ui::VepRunDone& done);
    void loadVepRun(quint64 token, qint64 runId);
    // The sample project: a new file at `path` with the sequences of `fasta`, the SNVs of `vcf`
    // on each of them, and the regions listed in `regionsTsv` (name, kind, start, end, label;
    // 0-based half-open); then opened. A sample that fails half way is removed, not left behind.
    // A measurement table for fitting a predictor (storage::read_measurement_table), each row
    // without a sequence given one by name from the open project's sequences (a name two
    // sequences share is refused); measurementsRead, or failed("Fit predictor", why).
    void readMeasurements(quint64 token, const QString& path);
    // A fitted predictor under `name` (refused when the project has one of that name); then
    // predictorStored with it as listed.
    void storePredictor(quint64 token, const QString& name, const carbon::ui::ProbePtr& probe);
    // What a predictor said of stored designs (Project::set_design_predictions, one transaction);
    // designPredictionsStored, or failed("Store predictions", why).
    void storeDesignPredictions(quint64 token, const QList<qint64>& designIds, const carbon::ui::DesignPredictionList& predictions);
    void createSample(const QString& path, const QString& fasta, const QString& vcf, const QString& regionsTsv);
    // A construct under a new name (Project::add_construct); constructAdded, or failed("Add
    // construct", why).
    void addConstruct(quint64 token, const carbon::storage::ConstructRecord& construct);
    // Diverse designs chosen and stored as a selection (runs::choose_designs, as carbon-cli select
    // --project does); designsChosen, or failed("Choose designs", why) with nothing stored.
    void chooseDesigns(quint64 token, const carbon::runs::DesignChoiceRequest& request);

signals:
    void opened(const carbon::ui::ProjectSnapshot& snapshot);
    void closed();
    void sequenceLoaded(const carbon::storage::SequenceRecord& info, const QByteArray& bases, const QList<carbon::ui::Region>& regions);
    void sequenceSaved(quint64 token, qint64 id);
    void saveFailed(quint64 token);  // besides failed(): the autosave may try again
    void sampleFailed();             // besides failed(): the sample's temporary files can go
    // New sequences after an import, with a one-line summary for the user.
    void sequencesAdded(const QList<carbon::storage::SequenceRecord>& sequences, const QString& summary);
    void variantsImported(const QString& summary, const QStringList& skipped);
    void variantsListed(qint64 sequenceId, const QList<carbon::storage::VariantRecord>& variants);
    void variantsCounted(qint64 variants);  // every variant row of the project, after an import
    void runStored(quint64 number, const carbon::storage::Run& run, const QList<carbon::storage::DesignRecord>& designs);
    void exported(const QString& path, const QStringList& notes);  // notes: what the format made it change
    // exportVepForIgv done: the session, the bigWig beside it and its positions; notes: what was
    // left out or written besides (a VCF no longer there, the project's sequences as FASTA).
    void vepBrowserExported(qint64 runId, const QString& session, const QString& bigwig, qint64 positions, const QStringList& notes);
    void vepSequencesReady(quint64 token, const carbon::ui::VepRunRequest& request);
    void vepRunStored(quint64 token, const carbon::storage::Run& run, qint64 rows);
    void vepRunLoaded(quint64 token, const carbon::ui::VepResult& result);
    void designTracks(quint64 token, const QList<qint64>& designIds, const QList<QVector<float>>& values);
    // `what` says which operation failed ("Import FASTA", "Open project", ...).
    void measurementsRead(quint64 token, const carbon::ui::MeasurementTablePtr& table);
    void predictorStored(quint64 token, const carbon::ui::StoredPredictor& predictor);
    void designPredictionsStored(quint64 token, qint64 designs);
    // The project's constructs after one was added (`name`).
    void constructAdded(quint64 token, const QString& name, const carbon::ui::ConstructList& constructs);
    // The selection stored, what the choice reached in words, and every selection of the project.
    void designsChosen(quint64 token, const carbon::storage::SelectionRecord& selection, const QString& summary,
                       const carbon::ui::SelectionList& selections);
    void failed(const QString& what, const QString& error);
    // While a write waits for another program writing to the project (every few seconds).
    void waiting(const QString& text);

private:
    // A run with designs written by `write` (it sets the run's id and returns the designs'), in
    // one transaction or kept whole in a recovery project; runStored or failed(what, ...).
    void storeDesigned(quint64 number, const QString& what,
                       const std::function<std::vector<int64_t>(carbon::storage::Project&, int64_t&)>& write);

    bool requireOpen(const QString& what);

    std::unique_ptr<carbon::storage::Project> project_;
    int writeWaitSeconds_ = kWriteWaitSeconds;
};

// Registers the project types used in queued signals (call once before connecting).
void registerProjectMetaTypes();

}  // namespace carbon::ui

Q_DECLARE_METATYPE(carbon::runs::DesignChoiceRequest)
