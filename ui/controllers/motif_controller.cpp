// MotifController: loading, scanning and counting transcription-factor matrices (see
// motif_controller.h).
#include "motif_controller.h"

#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include "controllers/window_services.h"
#include "document/sequence_document.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/sequence_editor.h"
#include "workers/motif_set.h"

namespace carbon::ui {

MotifController::MotifController(SequenceDocument* doc, SequenceEditor* editor, DesignTableModel* designs, GenerationPanel* panel,
                                 WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), designs_(designs), panel_(panel), services_(services), rescan_(new QTimer(this)) {
    rescan_->setSingleShot(true);
    rescan_->setInterval(300);
    connect(rescan_, &QTimer::timeout, this, &MotifController::rescan);
    connect(doc_, &SequenceDocument::changed, this, [this] {
        if (motifs_) rescan_->start();
    });
    // Every design the table gets is counted: new runs' and the project's.
    connect(designs_, &DesignTableModel::rowsInserted, this, [this](const QModelIndex&, int first, int last) { countDesigns(first, last); });
    connect(designs_, &DesignTableModel::modelReset, this, [this] { countDesigns(0, designs_->rowCount() - 1); });
}

void MotifController::addEditActions(QMenu* edit) {
    QAction* scan = edit->addAction(tr("Scan Transcription-Factor &Motifs…"));
    scan->setToolTip(tr("Frame the hits of JASPAR / MEME / TRANSFAC matrices in the sequence and count them per design"));
    connect(scan, &QAction::triggered, this, [this] {
        const QString path = services_->chooseFile(false, tr("Transcription-factor matrices"),
                                                   tr("Matrices (*.jaspar *.pfm *.meme *.txt *.transfac *.dat);;All files (*)"));
        if (path.isEmpty()) return;
        bool ok = false;
        const QString text = QInputDialog::getText(services_->window(), tr("Motif threshold"),
                                                   tr("Frame hits with a p-value of at most (e.g. 1e-4, 0.001):"), QLineEdit::Normal,
                                                   QStringLiteral("1e-4"), &ok);
        if (!ok) return;
        double p = 0;
        const QString why = parsePvalue(text, p);
        if (!why.isEmpty()) return services_->error(tr("Scan motifs: %1").arg(why));
        loadMotifs(path, p);
    });
    edit->addAction(tr("Clear Motifs"), this, &MotifController::clearMotifs);
}

void MotifController::loadMotifs(const QString& path, double maxPvalue) {
    const quint64 token = ++token_;
    services_->message(tr("Reading %1…").arg(path), 0);
    QPointer<MotifController> self(this);
    QThreadPool::globalInstance()->start([self, path, maxPvalue, token] {
        std::shared_ptr<const MotifSet> set;
        QString error;
        try {
            set = MotifSet::load(path, maxPvalue);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, set, error, path, token] {
            if (!self || token != self->token_) return;
            if (!error.isEmpty()) return self->services_->error(tr("Cannot read motifs: %1").arg(error));
            self->motifs_ = set;
            self->panel_->setMotifSet(set);
            QStringList names;
            for (int i = 0; i < set->size(); ++i) names << set->name(i);
            self->designs_->setMotifNames(names);
            self->countDesigns(0, self->designs_->rowCount() - 1);
            self->services_->note(tr("Loaded %n matrices from %1 (hits at p ≤ %2)", nullptr, set->size()).arg(path).arg(set->maxPvalue(), 0, 'g', 3));
            // A short matrix cannot reach a small p-value (6 bp: at best 4^-6 = 2.4e-4): say so
            // rather than show no hits without a reason.
            const QStringList never = set->unreachable();
            if (!never.isEmpty())
                self->services_->error(tr("%n of the %1 matrices can never have a hit at p ≤ %2, however well a window matches: %3. "
                                          "Scan again with a larger p-value to see their hits.", nullptr, int(never.size()))
                                           .arg(set->size())
                                           .arg(set->maxPvalue(), 0, 'g', 3)
                                           .arg(never.join(QStringLiteral("; "))));
            self->rescan();
        }, Qt::QueuedConnection);
    });
}

void MotifController::clearMotifs() {
    ++token_;
    motifs_.reset();
    panel_->setMotifSet(nullptr);
    rescan_->stop();
    editor_->setMotifFrames({});
    designs_->setMotifNames({});
    services_->message(tr("Motifs cleared"), 5000);
}

void MotifController::rescan() {
    if (!motifs_) return;
    const quint64 token = ++token_;
    QPointer<MotifController> self(this);
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
            if (!self || token != self->token_) return;
            self->editor_->setMotifFrames(frames);
            self->services_->message(
                tr("%n motif hit(s) of %1 matrices at p ≤ %2", nullptr, int(frames.size())).arg(set->size()).arg(set->maxPvalue(), 0, 'g', 3), 8000);
            emit self->motifsScanned(int(frames.size()));
        }, Qt::QueuedConnection);
    });
}

void MotifController::countDesigns(int first, int last) {
    if (!motifs_) return;
    for (int row = first; row <= last && row < designs_->rowCount(); ++row)
        designs_->setMotifHits(row, motifs_->counts(QByteArray::fromStdString(designs_->row(row).design.bases)));
}

}  // namespace carbon::ui
