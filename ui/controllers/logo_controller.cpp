// LogoController: the Sequence Logo dock's sources and export (see logo_controller.h).
#include "logo_controller.h"

#include "controllers/designs_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/window_services.h"
#include "document/sequence_document.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/logo_panel.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

namespace {
constexpr qint64 kMaxLogoColumns = 2000;  // wider logos are unreadable; the panel says so
}

LogoController::LogoController(SequenceDocument* doc, SequenceEditor* editor, LikelihoodController* likelihood, ModelController* models,
                               DesignsController* designs, WindowServices* services, QObject* parent)
    : QObject(parent), doc_(doc), editor_(editor), likelihood_(likelihood), models_(models), designs_(designs), services_(services),
      panel_(new LogoPanel) {
    dock_ = makeDock(panel_, tr("Sequence Logo"), "logoDock", Qt::BottomDockWidgetArea, false);
    connect(panel_, &LogoPanel::fromSelectionRequested, this, &LogoController::logoFromSelection);
    connect(panel_, &LogoPanel::fromDesignsRequested, this, &LogoController::logoFromDesigns);
    connect(panel_, &LogoPanel::exportRequested, this, &LogoController::exportLogo);
    auto follow = [this] {
        if (panel_->followsSelection() && panel_->isVisible()) logoFromSelection();
    };
    connect(editor_, &SequenceEditor::selectionChanged, this, follow);
    connect(likelihood_, &LikelihoodController::trackReady, this, follow);
    // A logo of the sequence shown before is not this one's; one of selected designs stays.
    connect(doc_, &SequenceDocument::opened, this, [this] {
        if (panel_->followsSelection())
            panel_->clear(tr("%1: select bases in the editor to see the model's distributions there as a logo.").arg(doc_->displayName()));
    });
}

void LogoController::logoFromSelection() {
    const qint64 a = editor_->selectionStart(), b = editor_->selectionEnd();
    if (b <= a) return panel_->setMessage(tr("Select bases in the editor to see the model's distributions there as a logo."));
    if (b - a > kMaxLogoColumns)
        return panel_->setMessage(tr("The selection is %1 bases; a logo shows at most %2.").arg(b - a).arg(kMaxLogoColumns));
    const ScoreTrack& track = likelihood_->score();
    if (!models_->isReady() || !track || !likelihood_->isCurrent())
        return panel_->setMessage(tr("The logo needs the likelihood track of the current sequence: load a model and wait for it."));
    SequenceLogo logo = SequenceLogo::fromScore(*track, a, b);
    logo.title = tr("%1: %2–%3, model distributions").arg(doc_->displayName()).arg(a + 1).arg(b);
    double total = 0;
    for (const LogoColumn& c : logo.columns) total += c.bits;
    panel_->setLogo(std::move(logo), tr("Bases %1–%2: %3 bits of information in all (2 per base at most).").arg(a + 1).arg(b).arg(total, 0, 'f', 1));
}

void LogoController::logoFromDesigns() {
    QList<QByteArray> seqs;
    for (int r : designs_->view()->selectedSourceRows()) seqs << QByteArray::fromStdString(designs_->model()->row(r).design.bases);
    if (seqs.size() < 2) return panel_->setMessage(tr("Select two or more designs in the designs table for a logo of their bases."));
    qsizetype longest = 0;
    for (const QByteArray& s : seqs) longest = std::max(longest, s.size());
    if (longest > kMaxLogoColumns)
        return panel_->setMessage(tr("The designs are up to %1 bases long; a logo shows at most %2.").arg(longest).arg(kMaxLogoColumns));
    SequenceLogo logo = SequenceLogo::fromSequences(seqs);
    logo.title = tr("Base frequencies of %n design(s)", nullptr, int(seqs.size()));
    panel_->setLogo(std::move(logo), tr("%n designs, aligned from their first base; small-sample correction for %n sequences.", nullptr, int(seqs.size())));
}

void LogoController::exportLogo(bool svg) {
    const QString path = services_->chooseFile(true, svg ? tr("Export logo as SVG") : tr("Export logo as PNG"),
                                               svg ? tr("SVG image (*.svg)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    const QSize size = panel_->view()->size().expandedTo(QSize(900, 260));
    QString error;
    const bool ok = svg ? panel_->view()->exportSvg(path, size, &error) : panel_->view()->exportPng(path, size, &error);
    services_->report(ok ? tr("Logo exported to %1").arg(path) : tr("Logo export failed: %1").arg(error), 10000);
}

}  // namespace carbon::ui
