// VepController: vep results, Score Variants and opening a variant (see vep_controller.h).
#include "vep_controller.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryFile>
#include <QThreadPool>
#include <algorithm>

#include "carbon/storage/reference.h"
#include "controllers/analysis_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "views/project_browser.h"
#include "views/sequence_editor.h"
#include "views/vep_view.h"

namespace carbon::ui {

VepController::VepController(SequenceEditor* editor, WorkerThread<EngineWorker>* engine, ModelController* models,
                             ProjectController* project, AnalysisController* analysis, WindowServices* services, QObject* parent)
    : QObject(parent), editor_(editor), engine_(engine), store_(project->storeThread()), models_(models), project_(project),
      analysis_(analysis), services_(services), view_(new VepView) {
    dock_ = makeDock(view_, tr("Variant Effects"), "vepDock", Qt::BottomDockWidgetArea, false);
    connect(view_, &VepView::variantActivated, this, &VepController::openVepVariant);
    connect(view_, &VepView::stopRequested, this, &VepController::stopScoringVcf);
    connect(view_, &VepView::browserExportRequested, this, &VepController::exportForGenomeBrowser);
    connect(store_->worker(), &ProjectStore::vepBrowserExported, this,
            [this](qint64 runId, const QString& session, const QString& bigwig, qint64 positions, const QStringList& notes) {
                for (const QString& n : notes) services_->note(tr("Genome browser export: %1").arg(n));
                const QString text = tr("Run %1: IGV session %2, the scores at %3 position(s) in %4%5")
                                         .arg(runId)
                                         .arg(session)
                                         .arg(positions)
                                         .arg(bigwig)
                                         .arg(notes.isEmpty() ? QString() : tr(" (%n note(s) in the Run Log)", nullptr, int(notes.size())));
                view_->setMessage(text);
                services_->report(text, 15000);
            });
    connect(project_->browser(), &ProjectBrowser::openVepRun, this, &VepController::openVepRun);
    connect(project_, &ProjectController::sequenceOpened, this, [this] {
        if (pendingSelection_.first >= 0 && pendingSelection_.second <= editor_->document()->size()) {  // an indel of a vep run
            editor_->setSelection(pendingSelection_.first, pendingSelection_.second);
            editor_->scrollToPosition(pendingSelection_.first);
        }
        pendingSelection_ = {-1, -1};
    });
    connect(store_->worker(), &ProjectStore::vepRunLoaded, this, [this](quint64 token, const VepResult& result) {
        if (token != token_) return;
        const int n = int(result.rows.size());
        const QString path = result.path;
        view_->setResult(result);
        emit vepResultOpened(path, n);
    });
    setupScoring();
}

void VepController::setupScoring() {
    // Score Variants: project store (sequences) -> engine (rows to a TSV) -> project store (a run).
    connect(store_->worker(), &ProjectStore::vepSequencesReady, this, [this](quint64 token, const VepRunRequest& request) {
        if (token != run_) return;
        engine_->post([token, request](EngineWorker* w) { w->scoreVcf(token, request); });
    });
    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == run_ && run_) view_->setProgress(done, total);
    });
    connect(worker, &EngineWorker::vcfScored, this, [this](quint64 id, const VepRunDone& done) {
        if (id != run_) return;
        view_->setMessage(tr("Storing %n variant row(s) in the project…", nullptr, int(done.rows)));
        store_->post([id, done](ProjectStore* s) { s->storeVepRun(id, done); });
    });
    connect(store_->worker(), &ProjectStore::vepRunStored, this, [this](quint64 token, const carbon::storage::Run& run, qint64 rows) {
        if (token != run_) return;
        project_->browser()->addRun(run, 0);
        const bool cancelled = run.status == "cancelled";  // as storeVepRun stored it
        endRun(cancelled ? tr("Scoring stopped: the %n variant row(s) scored are stored as run %1 (cancelled).", nullptr, int(rows)).arg(run.id)
                         : tr("Variant effects stored as project run %1: %n row(s).", nullptr, int(rows)).arg(run.id),
               run.id, rows, cancelled);
        openVepRun(run.id);
    });
    connect(worker, &EngineWorker::analysisCancelled, this, [this](quint64 id) {
        if (id == run_ && run_) endRun(tr("Scoring variants stopped before any record was scored; nothing was stored."), 0, 0, true);
    });
    connect(worker, &EngineWorker::analysisFailed, this, [this](quint64 id, const QString& error) {
        if (id != run_ || !run_) return;
        view_->setMessage(tr("Scoring variants failed: %1").arg(error));
        endRun(tr("Scoring variants failed: %1").arg(error), 0, 0, false);
    });
    connect(store_->worker(), &ProjectStore::failed, this, [this](const QString& what, const QString& error) {
        if (what == tr("Export for a genome browser")) return view_->setMessage(tr("%1 failed: %2").arg(what, error));
        if (!run_ || (what != tr("Score variants") && what != tr("Store variant effects"))) return;
        view_->setMessage(tr("%1 failed: %2").arg(what, error));
        endRun(tr("%1 failed: %2").arg(what, error), 0, 0, false);
    });
}

void VepController::endRun(const QString& text, qint64 runId, qint64 rows, bool cancelled) {
    view_->setRunning(false);
    if (!runTsv_.isEmpty()) QFile::remove(runTsv_);
    runTsv_.clear();
    run_ = 0;
    services_->report(text);
    emit vepRunFinished(runId, rows, cancelled);
}

void VepController::scoreProjectVcf(const QString& vcfPath, qint64 windowBp, bool reverseComplement) {
    if (run_) return services_->message(tr("Variants are being scored already: stop that run first."), 8000);
    if (!project_->isOpen()) return services_->message(tr("Open a project first: its sequences are what the VCF is scored against."), 10000);
    if (!models_->isReady()) return services_->message(tr("No model is loaded: open a model folder first."), 10000);
    project_->flushAutosave();  // the sequence being edited is scored as it is now
    QTemporaryFile tsv(QDir::temp().filePath(QStringLiteral("carbon-vep-XXXXXX.tsv")));
    tsv.setAutoRemove(false);
    if (!tsv.open()) return services_->message(tr("Cannot create a temporary file: %1").arg(tsv.errorString()), 10000);
    VepRunRequest request;
    request.vcfPath = vcfPath;
    request.tsvPath = tsv.fileName();
    request.windowBp = windowBp;
    request.reverseComplement = reverseComplement;
    runTsv_ = request.tsvPath;
    run_ = nextAnalysisId();
    view_->setRunning(true);
    view_->setMessage(tr("Scoring %1 against the project's sequences (window %2 bp%3)…")
                          .arg(QFileInfo(vcfPath).fileName())
                          .arg(windowBp)
                          .arg(reverseComplement ? tr(", both strands") : QString()));
    services_->raiseDock(QStringLiteral("vepDock"));
    store_->post([id = run_, request](ProjectStore* s) { s->collectVepSequences(id, request); });
}

void VepController::stopScoringVcf() {
    if (!run_) return;
    engine_->worker()->cancelAnalysis(run_);
    view_->setMessage(tr("Stopping after the current variant…"));
}

void VepController::openVepRun(qint64 runId) {
    view_->setMessage(tr("Reading run %1…").arg(runId));
    services_->raiseDock(QStringLiteral("vepDock"));
    store_->post([token = ++token_, runId](ProjectStore* s) { s->loadVepRun(token, runId); });
}

void VepController::exportForGenomeBrowser(qint64 runId) {
    QString path = services_->chooseFile(true, tr("IGV session for run %1").arg(runId), tr("IGV session (*.xml)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".xml");
    view_->setMessage(tr("Writing run %1's scores for a genome browser…").arg(runId));
    store_->post([runId, path](ProjectStore* s) { s->exportVepForIgv(runId, path); });
}

void VepController::addFileActions(QMenu* file) {
    auto* a = file->addAction(tr("Open &Variant Effects (carbon-cli vep result)…"));
    connect(a, &QAction::triggered, this, [this] {
        const QString path = services_->chooseFile(false, tr("Open variant effects"), tr("carbon-cli vep result (*.tsv);;All files (*)"));
        if (!path.isEmpty()) openVepResult(path);
    });
    auto* score = file->addAction(tr("Score Variants in a VCF against the Project…"));
    score->setToolTip(tr("Every variant of a VCF whose CHROM names a sequence of the open project, scored on a window around it"));
    connect(score, &QAction::triggered, this, [this] {
        QDialog dialog(services_->window());
        dialog.setWindowTitle(tr("Score variants against the project"));
        auto* form = new QFormLayout(&dialog);
        auto* path = new QLineEdit;
        path->setPlaceholderText(tr("VCF or BCF, plain or bgzipped; CHROM = a sequence name"));
        auto* browse = new QPushButton(tr("Browse…"));
        auto* row = new QHBoxLayout;
        row->addWidget(path, 1);
        row->addWidget(browse);
        form->addRow(tr("Variants:"), row);
        auto* window = new QSpinBox;
        window->setRange(12, 1 << 20);
        window->setValue(8192);
        window->setSuffix(tr(" bp"));
        window->setToolTip(tr("The window centred on each variant over which S(alt) - S(ref) is computed"));
        form->addRow(tr("Window:"), window);
        auto* rc = new QCheckBox(tr("Also score the reverse complement (mean of both strands)"));
        form->addRow(rc);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        form->addRow(buttons);
        connect(browse, &QPushButton::clicked, &dialog, [this, path] {
            const QString p = services_->chooseFile(false, tr("Variants to score"), tr("VCF / BCF (*.vcf *.vcf.gz *.bcf);;All files (*)"));
            if (!p.isEmpty()) path->setText(p);
        });
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        if (dialog.exec() != QDialog::Accepted || path->text().trimmed().isEmpty()) return;
        scoreProjectVcf(path->text().trimmed(), window->value(), rc->isChecked());
    });
}

void VepController::openVepResult(const QString& path) {
    const quint64 token = ++token_;
    view_->setMessage(tr("Reading %1…").arg(path));
    services_->raiseDock(QStringLiteral("vepDock"));
    QPointer<VepController> self(this);
    QThreadPool::globalInstance()->start([self, path, token] {
        VepResult r;
        QString error;
        try {
            r = readVepResult(path);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, r = std::move(r), error, path, token]() mutable {
            if (!self || token != self->token_) return;
            if (!error.isEmpty()) {
                const QString text = tr("Cannot open %1: %2").arg(path, error);
                self->view_->setResult({});  // the result shown before is not this file's
                self->view_->setMessage(text);
                self->services_->report(text);
                return;
            }
            const int n = int(r.rows.size());
            self->view_->setResult(std::move(r));
            self->services_->note(tr("Opened variant effects %1: %n variant(s)", nullptr, n).arg(path));
            emit self->vepResultOpened(path, n);
        }, Qt::QueuedConnection);
    });
}

void VepController::openVepVariant(const VepRow& row) {
    const QString chrom = QString::fromStdString(row.chrom), alt = QString::fromStdString(row.alt);
    if (!row.scored()) {
        services_->message(tr("%1:%2 %3>%4 was not scored (%5): it has no window to open.")
                               .arg(chrom).arg(row.pos).arg(QString::fromStdString(row.ref), alt, QString::fromStdString(row.status)), 10000);
        return;
    }
    // A row on a stored sequence (a run scored against the project): that sequence, the variant
    // selected and, for a substitution, inspected with its alternative.
    if (row.sequence_id > 0 && project_->isOpen()) {
        if (row.ref.size() == 1 && row.alt.size() == 1) return project_->openVariant(row.sequence_id, row.pos - 1, alt.at(0).toUpper().toLatin1());
        analysis_->clearPendingVariant();
        pendingSelection_ = {row.pos - 1, row.pos - 1 + std::max<qint64>(1, qint64(row.ref.size()))};
        if (row.sequence_id != project_->currentSequenceId()) return project_->openStoredSequence(row.sequence_id);
        editor_->setSelection(pendingSelection_.first, pendingSelection_.second);
        editor_->scrollToPosition(pendingSelection_.first);
        pendingSelection_ = {-1, -1};
        return;
    }
    // The reference as the result names it; a relative name is taken from the result's folder
    // when it is not found from the current one.
    const VepResult& res = view_->model()->result();
    QString genome = res.reference;
    if (QFileInfo(genome).isRelative() && !QFileInfo::exists(genome)) genome = QFileInfo(res.path).dir().filePath(genome);
    const quint64 token = ++token_;
    const QString locus = QStringLiteral("%1:%2-%3").arg(chrom).arg(row.window_start).arg(row.window_end);
    services_->message(tr("Reading %1 from %2…").arg(locus, genome), 0);
    QPointer<VepController> self(this);
    QThreadPool::globalInstance()->start([self, genome, row, locus, token] {
        QByteArray bases;
        QString error;
        try {
            const auto reference = storage::ReferenceGenome::open(genome.toStdString(), storage::ReferenceGenome::default_index_dir());
            bases = QByteArray::fromStdString(reference->fetch(row.chrom, row.window_start - 1, row.window_end));
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, bases, error, row, locus, token] {
            if (!self || token != self->token_) return;
            if (!error.isEmpty()) return self->services_->report(tr("Cannot open the window %1: %2").arg(locus, error));
            self->showWindow(row, locus, bases);
        }, Qt::QueuedConnection);
    });
}

void VepController::showWindow(const VepRow& row, const QString& locus, const QByteArray& bases) {
    const QString ref = QString::fromStdString(row.ref), alt = QString::fromStdString(row.alt);
    project_->openUnstoredSequence(bases, QStringLiteral("%1 %2>%3 (%4)").arg(locus, ref, alt, QString::number(row.pos)));
    const qint64 at = row.pos - row.window_start;  // the variant in the window, 0-based
    editor_->setSelection(at, at + std::max<qint64>(1, qint64(row.ref.size())));
    editor_->scrollToPosition(at);
    services_->message(tr("%1: %2>%3 at window position %4 (Δ mean %5)").arg(locus, ref, alt).arg(at + 1).arg(row.window_delta_mean), 15000);
    emit vepWindowOpened(locus);
    // A substitution of one base is inspected with its alternative chosen, once the likelihood
    // track is there; an indel is selected for the user to look at.
    if (row.ref.size() == 1 && row.alt.size() == 1) {
        analysis_->showVariant(at, alt.at(0).toUpper().toLatin1());
    } else {
        analysis_->inspectBase(at);
        services_->raiseDock(QStringLiteral("inspectorDock"));
    }
}

}  // namespace carbon::ui
