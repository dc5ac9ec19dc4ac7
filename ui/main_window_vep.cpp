// MainWindow's variant effect results: File > Open Variant Effects (or a dropped vep TSV) reads
// the result on a worker thread into the Variant Effects dock; activating a variant fetches its
// window from the result's reference genome (htslib faidx, on a worker thread: a first open may
// index the genome) into the editor, selects the variant and opens the Base Inspector on it.
// Score Variants scores a VCF against the open project's sequences in the background (progress
// and Stop in the dock) and stores the rows as a "vep" run; a row of such a run opens its stored
// sequence with the variant selected.
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
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryFile>
#include <QPointer>
#include <QStatusBar>
#include <QThreadPool>
#include <QUndoStack>
#include <algorithm>

#include "views/base_inspector.h"
#include "workers/engine_worker.h"
#include "controllers/likelihood_controller.h"
#include "views/project_browser.h"
#include "workers/project_store.h"
#include "carbon/storage/reference.h"
#include "main_window.h"
#include "views/run_log.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"
#include "views/vep_view.h"

namespace carbon::ui {

void MainWindow::setupVep() {
    vep_ = new VepView;
    addPanel(vep_, tr("Variant Effects"), "vepDock", Qt::BottomDockWidgetArea, false);
    connect(vep_, &VepView::variantActivated, this, &MainWindow::openVepVariant);
    connect(vep_, &VepView::stopRequested, this, &MainWindow::stopScoringVcf);
    connect(browser_, &ProjectBrowser::openVepRun, this, &MainWindow::openVepRun);

    // Score Variants: project store (sequences) -> engine (rows to a TSV) -> project store (a run).
    auto ended = [this](const QString& text, qint64 runId, qint64 rows, bool cancelled) {
        vep_->setRunning(false);
        if (!vepRunTsv_.isEmpty()) QFile::remove(vepRunTsv_);
        vepRunTsv_.clear();
        vepRun_ = 0;
        statusBar()->showMessage(text, 15000);
        runLog_->note(text);
        emit vepRunFinished(runId, rows, cancelled);
    };
    connect(store_, &ProjectStore::vepSequencesReady, this, [this](quint64 token, const VepRunRequest& request) {
        if (token != vepRun_) return;
        QMetaObject::invokeMethod(worker_, [w = worker_, token, request] { w->scoreVcf(token, request); }, Qt::QueuedConnection);
    });
    connect(worker_, &EngineWorker::analysisProgress, this, [this](quint64 id, qint64 done, qint64 total) {
        if (id == vepRun_ && vepRun_) vep_->setProgress(done, total);
    });
    connect(worker_, &EngineWorker::vcfScored, this, [this](quint64 id, const VepRunDone& done) {
        if (id != vepRun_) return;
        vep_->setMessage(tr("Storing %n variant row(s) in the project…", nullptr, int(done.rows)));
        QMetaObject::invokeMethod(store_, [s = store_, id, done] { s->storeVepRun(id, done); }, Qt::QueuedConnection);
    });
    connect(store_, &ProjectStore::vepRunStored, this, [this, ended](quint64 token, const StoredRun& run, qint64 rows) {
        if (token != vepRun_) return;
        browser_->addRun(run);
        const bool cancelled = run.status == QLatin1String("cancelled");  // as storeVepRun stored it
        ended(cancelled ? tr("Scoring stopped: the %n variant row(s) scored are stored as run %1 (cancelled).", nullptr, int(rows)).arg(run.id)
                        : tr("Variant effects stored as project run %1: %n row(s).", nullptr, int(rows)).arg(run.id),
              run.id, rows, cancelled);
        openVepRun(run.id);
    });
    connect(worker_, &EngineWorker::analysisCancelled, this, [this, ended](quint64 id) {
        if (id == vepRun_ && vepRun_) ended(tr("Scoring variants stopped before any record was scored; nothing was stored."), 0, 0, true);
    });
    connect(worker_, &EngineWorker::analysisFailed, this, [this, ended](quint64 id, const QString& error) {
        if (id != vepRun_ || !vepRun_) return;
        vep_->setMessage(tr("Scoring variants failed: %1").arg(error));
        ended(tr("Scoring variants failed: %1").arg(error), 0, 0, false);
    });
    connect(store_, &ProjectStore::failed, this, [this, ended](const QString& what, const QString& error) {
        if (!vepRun_ || (what != tr("Score variants") && what != tr("Store variant effects"))) return;
        vep_->setMessage(tr("%1 failed: %2").arg(what, error));
        ended(tr("%1 failed: %2").arg(what, error), 0, 0, false);
    });
    connect(store_, &ProjectStore::vepRunLoaded, this, [this](quint64 token, const VepResult& result) {
        if (token != vepToken_) return;
        const int n = int(result.rows.size());
        const QString path = result.path;
        vep_->setResult(result);
        emit vepResultOpened(path, n);
    });
}

void MainWindow::scoreProjectVcf(const QString& vcfPath, qint64 windowBp, bool reverseComplement) {
    if (vepRun_) return statusBar()->showMessage(tr("Variants are being scored already: stop that run first."), 8000);
    if (projectPath_.isEmpty()) return statusBar()->showMessage(tr("Open a project first: its sequences are what the VCF is scored against."), 10000);
    if (!modelReady_) return statusBar()->showMessage(tr("No model is loaded: open a model folder first."), 10000);
    flushAutosave();  // the sequence being edited is scored as it is now
    QTemporaryFile tsv(QDir::temp().filePath(QStringLiteral("carbon-vep-XXXXXX.tsv")));
    tsv.setAutoRemove(false);
    if (!tsv.open()) return statusBar()->showMessage(tr("Cannot create a temporary file: %1").arg(tsv.errorString()), 10000);
    VepRunRequest request;
    request.vcfPath = vcfPath;
    request.tsvPath = tsv.fileName();
    request.windowBp = windowBp;
    request.reverseComplement = reverseComplement;
    vepRunTsv_ = request.tsvPath;
    vepRun_ = nextAnalysisId();
    vep_->setRunning(true);
    vep_->setMessage(tr("Scoring %1 against the project's sequences (window %2 bp%3)…")
                         .arg(QFileInfo(vcfPath).fileName())
                         .arg(windowBp)
                         .arg(reverseComplement ? tr(", both strands") : QString()));
    bringForward(QStringLiteral("vepDock"));
    QMetaObject::invokeMethod(store_, [s = store_, id = vepRun_, request] { s->collectVepSequences(id, request); }, Qt::QueuedConnection);
}

void MainWindow::stopScoringVcf() {
    if (!vepRun_) return;
    worker_->cancelAnalysis(vepRun_);
    vep_->setMessage(tr("Stopping after the current variant…"));
}

void MainWindow::openVepRun(qint64 runId) {
    const quint64 token = ++vepToken_;
    vep_->setMessage(tr("Reading run %1…").arg(runId));
    bringForward(QStringLiteral("vepDock"));
    QMetaObject::invokeMethod(store_, [s = store_, token, runId] { s->loadVepRun(token, runId); }, Qt::QueuedConnection);
}

void MainWindow::addVepActions(QMenu* file) {
    auto* a = file->addAction(tr("Open &Variant Effects (carbon-cli vep result)…"));
    connect(a, &QAction::triggered, this, [this] {
        const QString path = chooseFile(false, tr("Open variant effects"), tr("carbon-cli vep result (*.tsv);;All files (*)"));
        if (!path.isEmpty()) openVepResult(path);
    });
    auto* score = file->addAction(tr("Score Variants in a VCF against the Project…"));
    score->setToolTip(tr("Every variant of a VCF whose CHROM names a sequence of the open project, scored on a window around it"));
    connect(score, &QAction::triggered, this, [this] {
        QDialog dialog(this);
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
            const QString p = chooseFile(false, tr("Variants to score"), tr("VCF / BCF (*.vcf *.vcf.gz *.bcf);;All files (*)"));
            if (!p.isEmpty()) path->setText(p);
        });
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        if (dialog.exec() != QDialog::Accepted || path->text().trimmed().isEmpty()) return;
        scoreProjectVcf(path->text().trimmed(), window->value(), rc->isChecked());
    });
}

void MainWindow::openVepResult(const QString& path) {
    const quint64 token = ++vepToken_;
    vep_->setMessage(tr("Reading %1…").arg(path));
    bringForward(QStringLiteral("vepDock"));
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, path, token] {
        VepResult r;
        QString error;
        try {
            r = readVepResult(path);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, r = std::move(r), error, path, token]() mutable {
            if (!self || token != self->vepToken_) return;
            if (!error.isEmpty()) {
                const QString text = tr("Cannot open %1: %2").arg(path, error);
                self->vep_->setMessage(text);
                self->statusBar()->showMessage(text, 15000);
                self->runLog_->note(text);
                return;
            }
            const int n = int(r.rows.size());
            self->vep_->setResult(std::move(r));
            self->runLog_->note(tr("Opened variant effects %1: %n variant(s)", nullptr, n).arg(path));
            emit self->vepResultOpened(path, n);
        }, Qt::QueuedConnection);
    });
}

void MainWindow::openVepVariant(const VepRow& row) {
    if (!row.scored()) {
        statusBar()->showMessage(tr("%1:%2 %3>%4 was not scored (%5): it has no window to open.")
                                     .arg(row.chrom).arg(row.pos).arg(row.ref, row.alt, row.status), 10000);
        return;
    }
    // A row on a stored sequence (a run scored against the project): that sequence, the variant
    // selected and, for a substitution, inspected with its alternative.
    if (row.sequenceId > 0 && !projectPath_.isEmpty()) {
        if (row.ref.size() == 1 && row.alt.size() == 1) return openVariant(row.sequenceId, row.pos - 1, row.alt.at(0).toUpper().toLatin1());
        pendingVariantPos_ = -1;
        pendingSelection_ = {row.pos - 1, row.pos - 1 + std::max<qint64>(1, row.ref.size())};
        if (row.sequenceId != sequenceId_) return openStoredSequence(row.sequenceId);
        editor_->setSelection(pendingSelection_.first, pendingSelection_.second);
        editor_->scrollToPosition(pendingSelection_.first);
        pendingSelection_ = {-1, -1};
        return;
    }
    // The reference as the result names it; a relative name is taken from the result's folder
    // when it is not found from the current one.
    const VepResult& res = vep_->model()->result();
    QString ref = res.reference;
    if (QFileInfo(ref).isRelative() && !QFileInfo::exists(ref)) ref = QFileInfo(res.path).dir().filePath(ref);
    const quint64 token = ++vepToken_;
    const QString locus = QStringLiteral("%1:%2-%3").arg(row.chrom).arg(row.windowStart).arg(row.windowEnd);
    statusBar()->showMessage(tr("Reading %1 from %2…").arg(locus, ref));
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, ref, row, locus, token] {
        QByteArray bases;
        QString error;
        try {
            const auto genome = storage::ReferenceGenome::open(ref.toStdString(), storage::ReferenceGenome::default_index_dir());
            const std::string w = genome->fetch(row.chrom.toStdString(), row.windowStart - 1, row.windowEnd);
            bases = QByteArray::fromStdString(w);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, bases, error, row, locus, token] {
            if (!self || token != self->vepToken_) return;
            MainWindow& w = *self;
            if (!error.isEmpty()) {
                const QString text = tr("Cannot open the window %1: %2").arg(locus, error);
                w.statusBar()->showMessage(text, 15000);
                w.runLog_->note(text);
                return;
            }
            // The window replaces what the editor shows (a stored sequence's edits are saved
            // first); with a project open, editing it stores it as a new sequence.
            w.flushAutosave();
            w.sequenceId_ = 0;
            w.sequenceName_ = QStringLiteral("%1 %2>%3 (%4)").arg(locus, row.ref, row.alt, QString::number(row.pos));
            w.loadingSequence_ = true;
            w.doc_->setBases(SequenceDocument::normalizeBases(bases));
            w.doc_->setRegions({});
            w.undo_->clear();
            w.loadingSequence_ = false;
            w.setWindowTitle(tr("%1 — Carbon Studio").arg(w.sequenceName_));
            w.updateStatus();
            w.showEditor();
            const qint64 at = row.pos - row.windowStart;  // the variant in the window, 0-based
            w.editor_->setSelection(at, at + std::max<qint64>(1, row.ref.size()));
            w.editor_->scrollToPosition(at);
            w.statusBar()->showMessage(tr("%1: %2>%3 at window position %4 (Δ mean %5)")
                                           .arg(locus, row.ref, row.alt)
                                           .arg(at + 1)
                                           .arg(row.deltaMean), 15000);
            emit w.vepWindowOpened(locus);
            // A substitution of one base is inspected with its alternative chosen, once the
            // likelihood track is there; an indel is selected for the user to look at.
            if (row.ref.size() == 1 && row.alt.size() == 1) {
                w.pendingVariantPos_ = at;
                w.pendingVariantAlt_ = row.alt.at(0).toUpper().toLatin1();
                w.showPendingVariant();
            } else {
                w.inspectBase(at);
                w.bringForward(QStringLiteral("inspectorDock"));
            }
        }, Qt::QueuedConnection);
    });
}

}  // namespace carbon::ui
