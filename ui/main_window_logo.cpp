// MainWindow's Sequence Logo dock: the model's distributions over the editor's selection (redrawn
// when the selection or the likelihood track changes, while the dock follows the selection), or
// the base frequencies of the designs selected in the designs table; exported as SVG or PNG.
#include <QDockWidget>
#include <QStatusBar>

#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "controllers/likelihood_controller.h"
#include "views/logo_panel.h"
#include "main_window.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"

namespace carbon::ui {

namespace {
constexpr qint64 kMaxLogoColumns = 2000;  // wider logos are unreadable; the panel says so
}

void MainWindow::setupLogo() {
    logo_ = new LogoPanel;
    addPanel(logo_, tr("Sequence Logo"), "logoDock", Qt::BottomDockWidgetArea, false);
    connect(logo_, &LogoPanel::fromSelectionRequested, this, &MainWindow::logoFromSelection);
    connect(logo_, &LogoPanel::fromDesignsRequested, this, &MainWindow::logoFromDesigns);
    connect(logo_, &LogoPanel::exportRequested, this, &MainWindow::exportLogo);
    auto follow = [this] {
        if (logo_->followsSelection() && logo_->isVisible()) logoFromSelection();
    };
    connect(editor_, &SequenceEditor::selectionChanged, this, follow);
    connect(likelihood_, &LikelihoodController::trackReady, this, follow);
}

void MainWindow::logoFromSelection() {
    const qint64 a = editor_->selectionStart(), b = editor_->selectionEnd();
    if (b <= a) return logo_->setMessage(tr("Select bases in the editor to see the model's distributions there as a logo."));
    if (b - a > kMaxLogoColumns)
        return logo_->setMessage(tr("The selection is %1 bases; a logo shows at most %2.").arg(b - a).arg(kMaxLogoColumns));
    const ScoreTrack& track = likelihood_->score();
    if (!modelReady_ || !track || !likelihood_->isCurrent())
        return logo_->setMessage(tr("The logo needs the likelihood track of the current sequence: load a model and wait for it."));
    SequenceLogo logo = SequenceLogo::fromScore(*track, a, b);
    logo.title = tr("%1: %2–%3, model distributions").arg(sequenceName()).arg(a + 1).arg(b);
    double total = 0;
    for (const LogoColumn& c : logo.columns) total += c.bits;
    logo_->setLogo(std::move(logo), tr("Bases %1–%2: %3 bits of information in all (2 per base at most).").arg(a + 1).arg(b).arg(total, 0, 'f', 1));
}

void MainWindow::logoFromDesigns() {
    QList<QByteArray> seqs;
    for (int r : designsView_->selectedSourceRows()) seqs << QByteArray::fromStdString(designs_->row(r).design.bases);
    if (seqs.size() < 2) return logo_->setMessage(tr("Select two or more designs in the designs table for a logo of their bases."));
    qsizetype longest = 0;
    for (const QByteArray& s : seqs) longest = std::max(longest, s.size());
    if (longest > kMaxLogoColumns)
        return logo_->setMessage(tr("The designs are up to %1 bases long; a logo shows at most %2.").arg(longest).arg(kMaxLogoColumns));
    SequenceLogo logo = SequenceLogo::fromSequences(seqs);
    logo.title = tr("Base frequencies of %n design(s)", nullptr, int(seqs.size()));
    logo_->setLogo(std::move(logo), tr("%n designs, aligned from their first base; small-sample correction for %n sequences.", nullptr, int(seqs.size())));
}

void MainWindow::exportLogo(bool svg) {
    const QString path = chooseFile(true, svg ? tr("Export logo as SVG") : tr("Export logo as PNG"),
                                    svg ? tr("SVG image (*.svg)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    const QSize size = logo_->view()->size().expandedTo(QSize(900, 260));
    QString error;
    const bool ok = svg ? logo_->view()->exportSvg(path, size, &error) : logo_->view()->exportPng(path, size, &error);
    const QString text = ok ? tr("Logo exported to %1").arg(path) : tr("Logo export failed: %1").arg(error);
    statusBar()->showMessage(text, 10000);
    runLog_->note(text);
}

}  // namespace carbon::ui
