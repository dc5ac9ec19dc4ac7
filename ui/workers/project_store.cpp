// ProjectStore: storage calls behind queued slots; see project_store.h.
#include "project_store.h"

#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "carbon/runs/predictor_records.h"
#include "carbon/runs/run_records.h"
#include "carbon/runs/run_writers.h"
#include "carbon/runs/vep_run.h"
#include "carbon/storage/browser_tracks.h"
#include "carbon/storage/fasta.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/measurements.h"
#include "carbon/storage/order_files.h"
#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "carbon/storage/vep_result.h"
#include "carbon/support/common.h"
#include "carbon/support/visible_text.h"
#include "carbon/support/output_file.h"
#include "document/feature_regions.h"

namespace carbon::ui {

namespace st = carbon::storage;

void registerProjectMetaTypes() {
    qRegisterMetaType<carbon::ui::ProjectSnapshot>();
    qRegisterMetaType<carbon::storage::SequenceRecord>();
    qRegisterMetaType<carbon::storage::Run>();
    qRegisterMetaType<carbon::storage::DesignRecord>();
    qRegisterMetaType<carbon::storage::VariantRecord>();
    qRegisterMetaType<QList<carbon::storage::VariantRecord>>();
    qRegisterMetaType<carbon::ui::RunToStore>();
    qRegisterMetaType<carbon::ui::GenerationRunPtr>();
    qRegisterMetaType<carbon::ui::ExportRequest>();
    qRegisterMetaType<QList<carbon::ui::Region>>();
    qRegisterMetaType<QList<carbon::storage::SequenceRecord>>();
    qRegisterMetaType<QList<carbon::storage::DesignRecord>>();
    qRegisterMetaType<QList<qint64>>();
    qRegisterMetaType<QList<QVector<float>>>();
    qRegisterMetaType<carbon::ui::VepResult>();
    qRegisterMetaType<carbon::ui::VepRunRequest>();
    qRegisterMetaType<carbon::ui::VepRunDone>();
    qRegisterMetaType<carbon::ui::StoredPredictor>();
    qRegisterMetaType<carbon::ui::MeasurementTablePtr>();
    qRegisterMetaType<carbon::ui::ProbePtr>();
    qRegisterMetaType<carbon::storage::ConstructRecord>();
    qRegisterMetaType<carbon::storage::SelectionRecord>();
    qRegisterMetaType<carbon::ui::ConstructList>();
    qRegisterMetaType<carbon::ui::SelectionList>();
    qRegisterMetaType<carbon::runs::DesignChoiceRequest>();
    qRegisterMetaType<carbon::ui::DesignPredictionList>();
}

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

Region::Kind editorKind(st::RegionKind k) {
    switch (k) {
        case st::RegionKind::Design: return Region::Kind::Design;
        case st::RegionKind::Pinned: return Region::Kind::PinnedMotif;
        case st::RegionKind::Annotation: break;
    }
    return Region::Kind::Annotation;
}

st::RegionKind fileKind(Region::Kind k) {
    switch (k) {
        case Region::Kind::Design: return st::RegionKind::Design;
        case Region::Kind::PinnedMotif: return st::RegionKind::Pinned;
        case Region::Kind::Annotation: break;
    }
    return st::RegionKind::Annotation;
}

// Exports go through OutputFile: a regular file is replaced only once the new one is complete,
// a device or pipe is written in place, a folder is refused.
template <class Write>
void writeAtomically(const QString& path, Write&& write) {
    OutputFile out(path.toStdString());
    write(out.stream());
    out.commit();
}

// The listing entries of the given sequences (length from SQL, the bases are not read).
QList<st::SequenceRecord> sequenceInfos(st::Project& p, const std::vector<int64_t>& ids) {
    const std::unordered_set<int64_t> wanted(ids.begin(), ids.end());
    QList<st::SequenceRecord> out;
    for (const st::SequenceRecord& s : p.list_sequences(false))
        if (wanted.count(s.id)) out.append(s);
    return out;
}

// A sequence's imported variants (a VCF panel; scored variants are run results), the first
// kMaxListedVariants of them.
QList<st::VariantRecord> importedVariants(st::Project& p, qint64 sequenceId) {
    QList<st::VariantRecord> out;
    for (const st::VariantRecord& v : p.variants_of_sequence(sequenceId)) {
        if (v.run_id != 0) continue;
        if (out.size() >= kMaxListedVariants) break;
        out.append(v);
    }
    return out;
}

}  // namespace

namespace {

StoredPredictor storedPredictor(const st::PredictorRecord& r, const QString& projectPath) {
    StoredPredictor p;
    p.id = r.id;
    p.name = QString::fromStdString(r.name);
    try {
        p.probe = std::make_shared<const carbon::Probe>(runs::probe_of(r, projectPath.toStdString()));
    } catch (const std::exception& e) {
        p.error = QString::fromUtf8(e.what());
    }
    return p;
}

}  // namespace

ProjectStore::ProjectStore(QObject* parent) : QObject(parent) { registerProjectMetaTypes(); }

void ProjectStore::readMeasurements(quint64 token, const QString& path) {
    try {
        auto table = std::make_shared<st::MeasurementTable>(st::read_measurement_table(path.toStdString()));
        bool unresolved = false;
        for (const st::MeasurementRow& r : table->rows) unresolved |= r.sequence.empty();
        if (unresolved && project_) {
            const std::string where = "project " + project_->path();
            st::resolve_measurement_sequences(
                *table,
                [this](const std::string& name) -> std::optional<std::string> {
                    // find_sequence refuses a name several sequences share, listing them.
                    const std::optional<st::SequenceRecord> s = project_->find_sequence(name);
                    if (!s) return std::nullopt;
                    return s->bases;
                },
                where);
        }
        for (const st::MeasurementRow& r : table->rows)
            if (r.sequence.empty())
                throw Error(table->path + ":" + std::to_string(r.line) + ": '" + visible_text(r.name, 80) + "' has no sequence in the table" +
                            (project_ ? " and the project holds no sequence of that name" : " and no project is open to find it in"));
        emit measurementsRead(token, std::move(table));
    } catch (const std::exception& e) {
        emit failed(tr("Fit predictor"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::storeDesignPredictions(quint64 token, const QList<qint64>& designIds, const DesignPredictionList& predictions) {
    if (!project_) return emit failed(tr("Store predictions"), tr("No project is open."));
    try {
        std::vector<std::pair<int64_t, st::DesignPrediction>> rows;
        for (qsizetype i = 0; i < designIds.size() && i < predictions.size(); ++i)
            for (const st::DesignPrediction& p : predictions[i]) rows.push_back({designIds[i], p});
        project_->set_design_predictions(rows);
        emit designPredictionsStored(token, qint64(designIds.size()));
    } catch (const std::exception& e) {
        emit failed(tr("Store predictions"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::storePredictor(quint64 token, const QString& name, const ProbePtr& probe) {
    if (!project_) return emit failed(tr("Store predictor"), tr("No project is open."));
    try {
        const st::PredictorRecord record = runs::predictor_record(*probe, name.toStdString());
        const int64_t id = project_->add_predictor(record);
        StoredPredictor p;
        p.id = id;
        p.name = name;
        p.probe = probe;
        emit predictorStored(token, p);
    } catch (const std::exception& e) {
        emit failed(tr("Store predictor"), QString::fromUtf8(e.what()));
    }
}
ProjectStore::~ProjectStore() = default;

bool ProjectStore::requireOpen(const QString& what) {
    if (project_) return true;
    emit failed(what, tr("No project is open: create or open one first (File > New Project or Open Project)."));
    return false;
}

void ProjectStore::open(const QString& path, bool create) {
    try {
        st::OpenOptions o;
        o.create = create;
        o.busy_timeout_ms = writeWaitSeconds_ * 1000;
        o.on_wait = [this, path](double waited, double limit) {
            emit waiting(tr("Waiting for another program writing to %1 (%2 s so far, at most %3 s)...")
                             .arg(QFileInfo(path).fileName())
                             .arg(qRound(waited))
                             .arg(qRound(limit)));
        };
        // The integrity check runs after the listing is shown (below), on this thread, before any
        // queued write: reading a large project's pages must not delay its window.
        o.check = st::IntegrityCheck::None;
        if (!create && !QFileInfo::exists(path)) throw Error(path.toStdString() + ": no such project file");
        auto p = st::Project::open(path.toStdString(), o);
        ProjectSnapshot snap;
        snap.path = path;
        for (const auto& s : p->list_sequences()) snap.sequences.append(s);
        for (const st::SequenceRecord& s : snap.sequences) snap.importedVariants += importedVariants(*p, s.id);
        {
            std::unordered_map<int64_t, std::vector<st::DesignPrediction>> predicted;
            for (auto& [id, v] : p->list_design_predictions()) predicted[id].push_back(std::move(v));
            for (auto& d : p->list_designs(0, true)) {
                if (auto it = predicted.find(d.id); it != predicted.end()) d.predictions = std::move(it->second);
                snap.designs.append(std::move(d));
                ++snap.designsPerRun[snap.designs.back().run_id];
            }
        }
        for (const auto& r : p->list_runs()) snap.runs.append(r);
        for (const st::PredictorRecord& r : p->list_predictors(true)) snap.predictors.append(storedPredictor(r, path));
        for (st::ConstructRecord& c : p->list_constructs()) snap.constructs.append(std::move(c));
        for (st::SelectionRecord& sel : p->list_selections()) snap.selections.append(std::move(sel));
        snap.variants = p->count("variants");
        project_ = std::move(p);
        emit opened(snap);
    } catch (const std::exception& e) {
        emit failed(tr("Open project"), QString::fromUtf8(e.what()));
        return;
    }
    // A damaged file is closed before anything is written into it.
    try {
        const std::vector<std::string> problems = project_->check_integrity(false);
        if (problems.empty()) return;
        QStringList list;
        for (const std::string& p : problems) list << q(p);
        project_.reset();
        emit failed(tr("Open project"), tr("%1 is damaged and was closed without writing to it (SQLite quick_check: %2). "
                                           "Restore it from a backup; File > Save Project As on an intact copy keeps it safe.")
                                            .arg(path, list.join(QStringLiteral("; "))));
        emit closed();
    } catch (const std::exception& e) {
        project_.reset();
        emit failed(tr("Open project"), QString::fromUtf8(e.what()));
        emit closed();
    }
}

void ProjectStore::close() {
    project_.reset();
    emit closed();
}

void ProjectStore::loadSequence(qint64 id) {
    if (!requireOpen(tr("Open sequence"))) return;
    try {
        const auto s = project_->sequence(id);
        if (!s) throw Error(project_->path() + ": no sequence with id " + std::to_string(id));
        QList<Region> regions;
        for (const st::Region& r : project_->regions_of_sequence(id)) {
            Region e;
            e.kind = editorKind(r.kind);
            e.start = qsizetype(r.start);
            e.end = qsizetype(r.end);
            e.label = q(r.label);
            e.templ = QByteArray::fromStdString(r.template_iupac);
            regions.append(e);
        }
        regions += featureRegions(project_->features_of_sequence(id), qint64(s->bases.size()));
        st::SequenceRecord info = *s;
        info.length = int64_t(info.bases.size());
        const QByteArray bases = QByteArray::fromStdString(std::exchange(info.bases, {}));  // the bases travel once
        emit sequenceLoaded(info, bases, regions);
    } catch (const std::exception& e) {
        emit failed(tr("Open sequence"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::saveSequence(quint64 token, qint64 id, const QString& name, const QByteArray& bases, const QList<Region>& regions) {
    if (!requireOpen(tr("Save sequence"))) return emit saveFailed(token);
    try {
        std::vector<st::Region> rs;
        for (const Region& r : regions) {
            if (r.feature >= 0) continue;  // a part of an imported feature: written back with its feature below
            st::Region f;
            f.kind = fileKind(r.kind);
            f.start = r.start;
            f.end = r.end;
            f.label = r.label.toStdString();
            f.template_iupac = r.templ.toStdString();
            rs.push_back(f);
        }
        if (id == 0) {
            st::Transaction t(*project_);  // the new sequence and its regions together
            st::SequenceRecord s;
            s.name = name.toStdString();
            s.bases = bases.toStdString();
            s.origin = "edited in Carbon Studio";
            id = project_->add_sequence(s);
            for (st::Region& r : rs) {
                r.sequence_id = id;
                project_->add_region(r);
            }
            t.commit();
            emit sequencesAdded(sequenceInfos(*project_, {id}), {});
        } else {
            const std::vector<st::FeatureRecord> features = featuresFromRegions(project_->features_of_sequence(id), regions);
            project_->update_sequence(id, bases.toStdString(), rs, &features);
        }
        project_->checkpoint();  // a plain copy of the .carbon file holds it too
        emit sequenceSaved(token, id);
    } catch (const std::exception& e) {
        emit failed(tr("Save sequence"), QString::fromUtf8(e.what()));
        emit saveFailed(token);
    }
}

void ProjectStore::importFasta(const QString& path) {
    if (!requireOpen(tr("Import FASTA"))) return;
    try {
        const st::FastaImportResult r = st::import_fasta(*project_, path.toStdString());
        const QList<st::SequenceRecord> added = sequenceInfos(*project_, r.sequence_ids);
        QString summary = tr("%1: %n sequence(s), %2 bp imported", nullptr, int(r.sequence_ids.size()))
                              .arg(QFileInfo(path).fileName(), QLocale().toString(qint64(r.bases)));
        if (r.unnamed) summary += tr("; %n record(s) without a name were named record_N", nullptr, int(r.unnamed));
        project_->checkpoint();
        emit sequencesAdded(added, summary);
    } catch (const std::exception& e) {
        emit failed(tr("Import FASTA"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::importFlatFile(const QString& path) {
    if (!requireOpen(tr("Import GenBank / EMBL"))) return;
    try {
        const st::FlatImportResult r = st::import_flat_file(*project_, path.toStdString());
        const QList<st::SequenceRecord> added = sequenceInfos(*project_, r.sequence_ids);
        QString summary = tr("%1: %n sequence(s), %2 bp, %3 feature(s) imported", nullptr, int(r.sequence_ids.size()))
                              .arg(QFileInfo(path).fileName(), QLocale().toString(qint64(r.bases)), QLocale().toString(qint64(r.features)));
        if (!r.notices.empty())
            summary += tr("; %n note(s), the first: %1", nullptr, int(r.notices.size())).arg(QString::fromStdString(r.notices.front()));
        project_->checkpoint();
        emit sequencesAdded(added, summary);
    } catch (const std::exception& e) {
        emit failed(tr("Import GenBank / EMBL"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::importVcf(const QString& path, qint64 sequenceId) {
    if (!requireOpen(tr("Import VCF"))) return;
    try {
        const st::VcfImportResult r = st::import_vcf(*project_, path.toStdString(), int64_t(sequenceId));
        QStringList skipped;
        for (const std::string& s : r.skipped) skipped << q(s);
        project_->checkpoint();
        emit variantsImported(tr("%1: %n SNV(s) imported", nullptr, int(r.imported)).arg(QFileInfo(path).fileName()) +
                                  (skipped.isEmpty() ? QString() : tr(", %n record(s) skipped", nullptr, int(skipped.size()))),
                              skipped);
        emit variantsListed(sequenceId, importedVariants(*project_, sequenceId));
        emit variantsCounted(project_->count("variants"));
    } catch (const std::exception& e) {
        emit failed(tr("Import VCF"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::storeDesigned(quint64 number, const QString& what, const std::function<std::vector<int64_t>(st::Project&, int64_t&)>& write) {
    if (!requireOpen(what)) return;
    try {
        QList<st::DesignRecord> stored;
        int64_t runId = 0;
        // The run, every design, its tracks and regions: all or nothing; kept in a recovery
        // project when the project cannot take it.
        const st::StoreOutcome outcome = st::store_or_keep(*project_, [&](st::Project& p) {
            stored.clear();
            for (int64_t id : write(p, runId))
                if (auto back = p.design(id)) stored.append(*back);
        });
        if (!outcome.stored) {
            const QString where = outcome.kept_in.empty()
                                      ? tr("Keeping it in a recovery project failed too: %1. The designs are still in the designs table: "
                                           "export them now.")
                                            .arg(q(outcome.keep_error))
                                      : tr("Nothing of it is in the project; it is kept whole in %1 (store it later with "
                                           "carbon-cli project import %2 --recover %1).")
                                            .arg(q(outcome.kept_in), q(project_->path()));
            throw Error(outcome.error + "\n" + where.toStdString());
        }
        const auto back = project_->run(runId);
        project_->checkpoint();  // a plain copy of the .carbon file holds it too
        emit runStored(number, back ? *back : st::Run{}, stored);
    } catch (const std::exception& e) {
        emit failed(what, QString::fromUtf8(e.what()));
    }
}

void ProjectStore::storeRun(const RunToStore& run) {
    storeDesigned(run.number, tr("Store run"), [&](st::Project& p, int64_t& runId) {
        if (!run.run) throw Error("no run to store");
        // Where in the edited sequence the designs go: the application's own settings.
        runs::RunSettings placement = {{"sequence_id", std::to_string(run.sequenceId)},
                                       {"region_start", std::to_string(run.regionStart)},
                                       {"region_length", std::to_string(run.regionLength)}};
        if (run.construct)
            for (auto& kv : st::construct_settings(*run.construct)) placement.push_back(std::move(kv));
        std::vector<std::string> notes;
        const runs::StoredGeneration s = runs::write_generation_run(p, *run.run, runs::DesignedIn{run.sequenceId, {}}, placement, notes);
        runId = s.run_id;
        return s.design_ids;
    });
}

void ProjectStore::storeEvolution(const EvolutionToStore& run) {
    storeDesigned(run.number, tr("Store evolution"), [&](st::Project& p, int64_t& runId) {
        if (!run.run) throw Error("no evolution to store");
        runs::RunSettings settings = run.run->settings;
        if (run.construct)
            for (auto& kv : st::construct_settings(*run.construct)) settings.push_back(std::move(kv));
        const runs::StoredEvolution s =
            runs::write_evolution(p, run.run->modelDir, run.run->backend, runs::EvolvedRegion{run.sequenceId, size_t(run.regionStart)},
                                  run.run->result, run.run->record, settings);
        runId = s.run_id;
        return s.design_ids;
    });
}

void ProjectStore::setDesignFlag(qint64 designId, const QString& flag) {
    if (!requireOpen(tr("Star / discard design"))) return;
    try {
        project_->set_design_flag(designId, flag.toStdString());
    } catch (const std::exception& e) {
        emit failed(tr("Star / discard design"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::exportFile(const ExportRequest& request) {
    if (!requireOpen(tr("Export"))) return;
    try {
        std::vector<int64_t> ids(request.designIds.begin(), request.designIds.end());
        auto firstDesign = [&]() -> int64_t {
            if (ids.empty()) throw Error("select a design to export first");
            return ids.front();
        };
        std::vector<std::string> notes;  // what the export had to change to stay in its format
        writeAtomically(request.path, [&](std::ostream& out) {
            switch (request.format) {
                case ExportFormat::DesignsFasta: notes = st::export_designs_fasta(*project_, out, ids, 60); break;
                case ExportFormat::DesignsTsv: st::export_designs_table(*project_, out, ids, '\t'); break;
                case ExportFormat::DesignsCsv: st::export_designs_table(*project_, out, ids, ','); break;
                case ExportFormat::GenBank: notes = st::export_genbank(*project_, out, firstDesign()); break;
                case ExportFormat::BedGraph:
                case ExportFormat::Wig:
                case ExportFormat::BigWig: {
                    st::TrackOwner owner;
                    if (request.sequenceId) owner.sequence_id = request.sequenceId;
                    else owner.design_id = firstDesign();
                    const std::string kind = request.trackKind.toStdString();
                    if (request.format == ExportFormat::BedGraph) st::export_track_bedgraph(*project_, out, owner, kind);
                    else if (request.format == ExportFormat::Wig) st::export_track_wig(*project_, out, owner, kind);
                    else st::export_track_bigwig(*project_, out, request.path.toStdString(), owner, kind);
                    break;
                }
                case ExportFormat::SequencesFasta: notes = st::export_sequences_fasta(*project_, out, 60); break;
                case ExportFormat::TwistCsv:
                case ExportFormat::IdtXlsx:
                case ExportFormat::ConstructsFasta:
                case ExportFormat::ConstructsGenBank: {
                    st::OrderSelection sel = st::order_constructs(
                        *project_, ids,
                        request.runConstructs ? std::nullopt
                                              : std::optional(st::ConstructFlanks{request.upstream.toStdString(), request.downstream.toStdString()}));
                    notes = std::move(sel.notes);
                    if (request.format == ExportFormat::TwistCsv) st::write_twist_pool_csv(out, sel.constructs);
                    else if (request.format == ExportFormat::ConstructsFasta) st::write_constructs_fasta(out, sel.constructs, 60);
                    else if (request.format == ExportFormat::IdtXlsx)
                        st::write_idt_plates_xlsx(out, request.path.toStdString(), sel.constructs, request.plateWells,
                                                  request.fillRows ? st::PlateFill::Rows : st::PlateFill::Columns);
                    else {
                        const auto more = st::write_constructs_genbank(out, sel.constructs);
                        notes.insert(notes.end(), more.begin(), more.end());
                    }
                    break;
                }
            }
        });
        QStringList said;
        for (const std::string& n : notes) said << QString::fromStdString(n);
        emit exported(request.path, said);
    } catch (const std::exception& e) {
        emit failed(tr("Export"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::exportVepForIgv(qint64 runId, const QString& sessionPath) {
    if (!requireOpen(tr("Export for a genome browser"))) return;
    try {
        st::VepBrowserExport request;
        request.run_id = runId;
        request.session_path = sessionPath.toStdString();
        request.index_dir = st::ReferenceGenome::default_index_dir();
        st::VepBrowserFiles files;
        writeAtomically(sessionPath, [&](std::ostream& out) { files = st::export_vep_for_igv(*project_, out, request); });
        QStringList notes;
        for (const std::string& n : files.notes) notes << QString::fromStdString(n);
        emit vepBrowserExported(runId, sessionPath, QString::fromStdString(files.bigwig), qint64(files.summary.positions), notes);
    } catch (const std::exception& e) {
        emit failed(tr("Export for a genome browser"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::saveCopy(const QString& path) {
    if (!requireOpen(tr("Save project as"))) return;
    try {
        project_->save_copy(path.toStdString());
    } catch (const std::exception& e) {
        emit failed(tr("Save project as"), QString::fromUtf8(e.what()));
        return;
    }
    open(path, false);
}

void ProjectStore::loadDesignTracks(quint64 token, const QList<qint64>& designIds, const QString& kind) {
    if (!requireOpen(tr("Load design tracks"))) return;
    try {
        QList<qint64> ids;
        QList<QVector<float>> values;
        for (qint64 id : designIds) {
            for (const st::Track& t : project_->tracks_of_design(id)) {
                if (t.kind != kind.toStdString() || t.width != 1) continue;
                ids << id;
                values << QVector<float>(t.values.begin(), t.values.end());
                break;
            }
        }
        emit designTracks(token, ids, values);
    } catch (const std::exception& e) {
        emit failed(tr("Load design tracks"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::createSample(const QString& path, const QString& fasta, const QString& vcf, const QString& regionsTsv) {
    try {
        if (QFileInfo::exists(path)) throw Error(path.toStdString() + ": already exists");
        {
            auto p = st::Project::open(path.toStdString());
            const st::FastaImportResult r = st::import_fasta(*p, fasta.toStdString());
            for (int64_t id : r.sequence_ids) {
                const std::string name = p->sequence(id)->name;
                st::import_vcf(*p, vcf.toStdString(), name);  // records of the other sequences are skipped
            }
            QFile f(regionsTsv);
            if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) throw Error(regionsTsv.toStdString() + ": cannot read");
            int line = 0;
            st::Transaction t(*p);
            while (!f.atEnd()) {
                const QString text = QString::fromUtf8(f.readLine()).trimmed();
                ++line;
                if (text.isEmpty() || text.startsWith(QLatin1Char('#')) || text.startsWith(QLatin1String("name\t"))) continue;
                const QStringList c = text.split(QLatin1Char('\t'));
                const auto where = regionsTsv.toStdString() + ":" + std::to_string(line);
                if (c.size() < 4) throw Error(where + ": expected name, kind, start, end[, label] separated by tabs");
                const auto s = p->find_sequence(c[0].toStdString());
                if (!s) throw Error(where + ": no sequence named '" + c[0].toStdString() + "' in " + fasta.toStdString());
                st::Region reg;
                reg.sequence_id = s->id;
                const std::string kind = c[1].toStdString();
                if (kind != "design" && kind != "pinned" && kind != "annotation")
                    throw Error(where + ": unknown region kind '" + kind + "' (expected design, pinned or annotation)");
                reg.kind = st::parse_region_kind(kind);
                bool okA = false, okB = false;
                reg.start = c[2].toLongLong(&okA);
                reg.end = c[3].toLongLong(&okB);
                if (!okA || !okB || reg.start < 0 || reg.end <= reg.start || reg.end > int64_t(s->bases.size()))
                    throw Error(where + ": '" + c[2].toStdString() + "-" + c[3].toStdString() + "' is not a span of " + s->name);
                reg.label = c.value(4).toStdString();
                p->add_region(reg);
            }
            t.commit();
        }
        open(path, false);
    } catch (const std::exception& e) {
        for (const char* suffix : {"", "-wal", "-shm"}) QFile::remove(path + QLatin1String(suffix));
        emit failed(tr("Create the sample project"), QString::fromUtf8(e.what()));
        emit sampleFailed();
    }
}

void ProjectStore::collectVepSequences(quint64 token, VepRunRequest request) {
    if (!requireOpen(tr("Score variants"))) return;
    try {
        request.projectPath = q(project_->path());
        for (const st::SequenceRecord& s : project_->list_sequences(true)) {
            request.sequenceIds.append(s.id);
            request.sequenceNames.append(q(s.name));
            request.sequenceBases.append(QByteArray::fromStdString(s.bases));
        }
        if (request.sequenceIds.isEmpty()) throw Error(project_->path() + ": the project has no sequences to score variants on");
        emit vepSequencesReady(token, request);
    } catch (const std::exception& e) {
        emit failed(tr("Score variants"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::storeVepRun(quint64 token, const VepRunDone& done) {
    if (!requireOpen(tr("Store variant effects"))) return;
    try {
        std::vector<std::pair<std::string, int64_t>> ids;
        for (qsizetype i = 0; i < done.request.sequenceIds.size(); ++i)
            ids.emplace_back(done.request.sequenceNames[i].toStdString(), done.request.sequenceIds[i]);
        const st::Run identity = runs::make_run(done.modelDir.toStdString(), done.backend.toStdString(), "vep", 0, {});
        const runs::RunSettings counts = {{"records_scored", std::to_string(done.records)},
                                          {"records_in_vcf", std::to_string(done.recordsTotal)}};
        st::VepStored stored;
        const st::StoreOutcome outcome = st::store_or_keep(*project_, [&](st::Project& p) {
            stored = runs::write_vep_run(p, done.request.tsvPath.toStdString(), identity, done.cancelled ? "cancelled" : "finished",
                                         counts, ids);
        });
        if (!outcome.stored) {
            const QString where = outcome.kept_in.empty()
                                      ? tr("Keeping it in a recovery project failed too: %1; the rows are in %2.")
                                            .arg(q(outcome.keep_error), done.request.tsvPath)
                                      : tr("Nothing of it is in the project; it is kept whole in %1 (store it later with "
                                           "carbon-cli project import %2 --recover %1).")
                                            .arg(q(outcome.kept_in), q(project_->path()));
            throw Error(outcome.error + "\n" + where.toStdString());
        }
        const auto back = project_->run(stored.run_id);
        project_->checkpoint();  // a plain copy of the .carbon file holds it too
        emit vepRunStored(token, back ? *back : st::Run{}, stored.rows);
    } catch (const std::exception& e) {
        emit failed(tr("Store variant effects"), QString::fromUtf8(e.what()));
    }
}

void ProjectStore::loadVepRun(quint64 token, qint64 runId) {
    if (!requireOpen(tr("Open variant effects"))) return;
    try {
        const auto run = project_->run(runId);
        if (!run || run->kind != "vep") throw Error(project_->path() + ": no vep run " + std::to_string(runId));
        VepResult r;
        r.runId = runId;
        r.path = tr("run %1 of %2").arg(runId).arg(QFileInfo(q(project_->path())).fileName());
        r.reference = q(run->setting("reference").value_or(""));
        r.model = q(run->model_path);
        r.windowBp = QString::fromStdString(run->setting("window_bp").value_or("0")).toLongLong();
        for (const st::VepRow& row : project_->vep_rows(runId)) r.add(row);
        emit vepRunLoaded(token, r);
    } catch (const std::exception& e) {
        emit failed(tr("Open variant effects"), QString::fromUtf8(e.what()));
    }
}

}  // namespace carbon::ui
