// MotifController: loading, scanning and counting transcription-factor matrices (see
// motif_controller.h).
#include "motif_controller.h"

#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QRegularExpression>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <string_view>

#include "carbon/motifs/enzymes.h"
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
        synthesisFrames_.clear();  // at the old positions: the SynthesisController rechecks and sets them again
        if (motifs_ || !enzymes_.empty()) rescan_->start();
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
    QAction* sites = edit->addAction(tr("Show &Restriction Sites…"));
    sites->setToolTip(tr("Frame the recognition sites of restriction enzymes named from REBASE (EcoRI, BsaI, BsmBI…) on both strands"));
    connect(sites, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(services_->window(), tr("Restriction sites"),
                                                   tr("Enzymes (REBASE names, comma-separated; empty to clear):"), QLineEdit::Normal,
                                                   enzymeNames().join(QStringLiteral(", ")), &ok);
        if (!ok) return;
        const QString why = showEnzymeSites(text);
        if (!why.isEmpty()) services_->error(tr("Restriction sites: %1").arg(why));
    });
}

QStringList MotifController::enzymeNames() const {
    QStringList names;
    for (const Enzyme* e : enzymes_) names << QString::fromStdString(e->name);
    return names;
}

QString MotifController::showEnzymeSites(const QString& text) {
    const EnzymeTable& table = EnzymeTable::builtin();
    std::vector<const Enzyme*> chosen;
    for (const QString& part : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        const std::string name = part.toStdString();
        const Enzyme* e = table.find(name);
        if (!e) {
            try {
                table.site_or_motif(name);  // a motif's letters, or an Error with the names that differ in case
            } catch (const std::exception& err) {
                return QString::fromUtf8(err.what());
            }
            return tr("'%1' is not a restriction enzyme of the table (REBASE's commercially available enzymes)").arg(part);
        }
        if (std::find(chosen.begin(), chosen.end(), e) == chosen.end()) chosen.push_back(e);
    }
    enzymes_ = std::move(chosen);
    if (enzymes_.empty()) {
        ++siteToken_;
        siteFrames_.clear();
        showFrames();
        services_->message(tr("Restriction sites cleared"), 5000);
        return {};
    }
    scanEnzymes();
    return {};
}

void MotifController::scanEnzymes() {
    const quint64 token = ++siteToken_;
    QPointer<MotifController> self(this);
    QThreadPool::globalInstance()->start([self, enzymes = enzymes_, bases = doc_->bases(), token] {
        QVector<SequenceEditor::MotifFrame> frames;
        const std::string_view seq(bases.constData(), size_t(bases.size()));
        for (const Enzyme* e : enzymes)
            for (const EnzymeSite& site : enzyme_sites(*e, seq)) {
                const qsizetype start = qsizetype(site.start), end = start + qsizetype(e->site.size());
                frames.append({start, end, site.reverse ? '-' : '+',
                               tr("%1 site %2 (%3 strand), bases %4–%5")
                                   .arg(QString::fromStdString(e->name), QString::fromStdString(e->site))
                                   .arg(QLatin1Char(site.reverse ? '-' : '+'))
                                   .arg(start + 1)
                                   .arg(end)});
            }
        QMetaObject::invokeMethod(qApp, [self, frames = std::move(frames), token] {
            if (!self || token != self->siteToken_) return;
            self->siteFrames_ = frames;
            self->showFrames();
            self->services_->message(tr("%n restriction site(s) of %1", nullptr, int(frames.size())).arg(self->enzymeNames().join(QStringLiteral(", "))), 8000);
            emit self->motifsScanned(int(self->motifFrames_.size() + self->siteFrames_.size()));
        }, Qt::QueuedConnection);
    });
}

void MotifController::setSynthesisFrames(QVector<SequenceEditor::MotifFrame> frames) {
    synthesisFrames_ = std::move(frames);
    showFrames();
}

void MotifController::showFrames() {
    QVector<SequenceEditor::MotifFrame> all = motifFrames_;
    all += siteFrames_;
    all += synthesisFrames_;
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    editor_->setMotifFrames(std::move(all));
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
    motifFrames_.clear();
    showFrames();
    designs_->setMotifNames({});
    services_->message(tr("Motifs cleared"), 5000);
}

void MotifController::rescan() {
    if (!enzymes_.empty()) scanEnzymes();
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
            self->motifFrames_ = frames;
            self->showFrames();
            self->services_->message(
                tr("%n motif hit(s) of %1 matrices at p ≤ %2", nullptr, int(frames.size())).arg(set->size()).arg(set->maxPvalue(), 0, 'g', 3), 8000);
            emit self->motifsScanned(int(self->motifFrames_.size() + self->siteFrames_.size()));
        }, Qt::QueuedConnection);
    });
}

void MotifController::countDesigns(int first, int last) {
    if (!motifs_) return;
    for (int row = first; row <= last && row < designs_->rowCount(); ++row)
        designs_->setMotifHits(row, motifs_->counts(QByteArray::fromStdString(designs_->row(row).design.bases)));
}

}  // namespace carbon::ui
