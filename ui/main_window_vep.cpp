// MainWindow's variant effect results: File > Open Variant Effects (or a dropped vep TSV) reads
// the result on a worker thread into the Variant Effects dock; activating a variant fetches its
// window from the result's reference genome (htslib faidx, on a worker thread: a first open may
// index the genome) into the editor, selects the variant and opens the Base Inspector on it.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QPointer>
#include <QStatusBar>
#include <QThreadPool>
#include <QUndoStack>
#include <algorithm>

#include "base_inspector.h"
#include "carbon/storage/reference.h"
#include "main_window.h"
#include "run_log.h"
#include "sequence_document.h"
#include "sequence_editor.h"
#include "vep_view.h"

namespace carbon::ui {

void MainWindow::setupVep() {
    vep_ = new VepView;
    addPanel(vep_, tr("Variant Effects"), "vepDock", Qt::BottomDockWidgetArea, false);
    connect(vep_, &VepView::variantActivated, this, &MainWindow::openVepVariant);
}

void MainWindow::addVepActions(QMenu* file) {
    auto* a = file->addAction(tr("Open &Variant Effects (carbon-cli vep result)…"));
    connect(a, &QAction::triggered, this, [this] {
        const QString path = chooseFile(false, tr("Open variant effects"), tr("carbon-cli vep result (*.tsv);;All files (*)"));
        if (!path.isEmpty()) openVepResult(path);
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
