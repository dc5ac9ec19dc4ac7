// MainWindow's transcription-factor matrices: Edit > Scan Motifs loads a JASPAR / MEME / TRANSFAC
// file (on a worker thread: 100 matrices' score distributions take a moment) with a p-value
// threshold; the current sequence is scanned on a worker thread after every load and, debounced,
// after edits, its hits framed in the editor; each design gets its hits per matrix in the
// designs table.
#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QMenu>
#include <QPointer>
#include <QStatusBar>
#include <QThreadPool>
#include <QTimer>

#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "main_window.h"
#include "workers/motif_set.h"
#include "views/run_log.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

void MainWindow::setupMotifs(QMenu* edit) {
    QAction* scan = edit->addAction(tr("Scan Transcription-Factor &Motifs…"));
    scan->setToolTip(tr("Frame the hits of JASPAR / MEME / TRANSFAC matrices in the sequence and count them per design"));
    connect(scan, &QAction::triggered, this, [this] {
        const QString path = chooseFile(false, tr("Transcription-factor matrices"),
                                        tr("Matrices (*.jaspar *.pfm *.meme *.txt *.transfac *.dat);;All files (*)"));
        if (path.isEmpty()) return;
        bool ok = false;
        const double p = QInputDialog::getDouble(this, tr("Motif threshold"), tr("Report hits with a p-value of at most:"), 1e-4, 1e-12,
                                                 0.05, 10, &ok);
        if (ok) loadMotifs(path, p);
    });
    edit->addAction(tr("Clear Motifs"), this, &MainWindow::clearMotifs);
    motifRescan_ = new QTimer(this);
    motifRescan_->setSingleShot(true);
    motifRescan_->setInterval(300);
    connect(motifRescan_, &QTimer::timeout, this, &MainWindow::rescanMotifs);
    connect(doc_, &SequenceDocument::changed, this, [this] {
        if (motifs_) motifRescan_->start();
    });
}

void MainWindow::loadMotifs(const QString& path, double maxPvalue) {
    const quint64 token = ++motifToken_;
    statusBar()->showMessage(tr("Reading %1…").arg(path));
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, path, maxPvalue, token] {
        std::shared_ptr<const MotifSet> set;
        QString error;
        try {
            set = MotifSet::load(path, maxPvalue);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, set, error, path, token] {
            if (!self || token != self->motifToken_) return;
            if (!error.isEmpty()) {
                const QString text = tr("Cannot read motifs: %1").arg(error);
                self->statusBar()->showMessage(text, 15000);
                self->runLog_->note(text);
                return;
            }
            self->motifs_ = set;
            self->generation_->setMotifSet(set);
            QStringList names;
            for (int i = 0; i < set->size(); ++i) names << set->name(i);
            self->designs_->setMotifNames(names);
            for (int r = 0; r < self->designs_->rowCount(); ++r) self->countDesignMotifs(r);
            self->runLog_->note(tr("Loaded %n matrices from %1 (hits at p ≤ %2)", nullptr, set->size()).arg(path).arg(set->maxPvalue()));
            self->rescanMotifs();
        }, Qt::QueuedConnection);
    });
}

void MainWindow::clearMotifs() {
    ++motifToken_;
    motifs_.reset();
    generation_->setMotifSet(nullptr);
    motifRescan_->stop();
    editor_->setMotifFrames({});
    designs_->setMotifNames({});
    statusBar()->showMessage(tr("Motifs cleared"), 5000);
}

void MainWindow::rescanMotifs() {
    if (!motifs_) return;
    const quint64 token = ++motifToken_;
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, set = motifs_, bases = doc_->bases(), token] {
        const QVector<MotifMark> marks = set->scan(bases);
        QVector<SequenceEditor::MotifFrame> frames;
        frames.reserve(marks.size());
        for (const MotifMark& m : marks)
            frames.append({m.start, m.end, m.strand,
                           tr("%1 (%2 strand), bases %3–%4: %5 bits, p = %6")
                               .arg(set->name(m.motif), QString(QLatin1Char(m.strand)))
                               .arg(m.start + 1)
                               .arg(m.end)
                               .arg(m.score, 0, 'f', 2)
                               .arg(m.pvalue, 0, 'g', 3)});
        QMetaObject::invokeMethod(qApp, [self, frames = std::move(frames), set, token] {
            if (!self || token != self->motifToken_) return;
            self->editor_->setMotifFrames(frames);
            self->statusBar()->showMessage(tr("%n motif hit(s) of %1 matrices at p ≤ %2", nullptr, int(frames.size()))
                                               .arg(set->size())
                                               .arg(set->maxPvalue()),
                                           8000);
            emit self->motifsScanned(int(frames.size()));
        }, Qt::QueuedConnection);
    });
}

void MainWindow::countDesignMotifs(int row) {
    if (!motifs_ || row < 0 || row >= designs_->rowCount()) return;
    designs_->setMotifHits(row, motifs_->counts(QByteArray::fromStdString(designs_->row(row).design.bases)));
}

}  // namespace carbon::ui
