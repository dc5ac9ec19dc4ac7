// Renders each main view of the window at a given size (default 1600x1000) into a folder, following the welcome page's
// walkthrough on the sample project with a tiny random checkpoint (so the numbers on screen are a
// random model's, the layout is the product's):
//   welcome.png, main-window.png, design-tracks.png, variant.png, mutagenesis.png, logo.png,
//   model-manager.png, predictors.png (a predictor fitted to a table of random measurements: its
//   cross-validation report), dark.png, features.png, features-dark.png (a GenBank entry with its
//   features), generation-dark.png, evolution.png (an evolution of 60 bases by that predictor: the
//   objective section, the Evolution dock, the last round opened with its edits marked), objective-section.png,
//   design-map.png (every design of the table on its first two principal components, by cluster)
// Usage: carbon_screenshots OUT_DIR [WIDTHxHEIGHT]   (tests/screenshots/render.sh runs it under
// Xvfb into docs/screenshots/ at 1600x1000 and docs/screenshots/1366x768/ at a laptop's size; the CTest ui.screenshots runs it offscreen into a temporary folder and checks
// every image is written and not blank).
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QImage>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QFile>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <cstdio>
#include <filesystem>

#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/logo_controller.h"
#include "controllers/model_controller.h"
#include "controllers/motif_controller.h"
#include "controllers/synthesis_controller.h"
#include "controllers/predictor_controller.h"
#include "controllers/project_controller.h"
#include "controllers/vep_controller.h"
#include "main_window.h"
#include "views/base_inspector.h"
#include "views/choose_designs_dialog.h"
#include "views/construct_dialog.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "controllers/design_map_controller.h"
#include "views/design_map_view.h"
#include "views/designs_view.h"
#include "views/evolution_view.h"
#include "views/generation_panel.h"
#include "views/objective_section.h"
#include "views/order_dialog.h"
#include "views/logo_panel.h"
#include "views/model_panel.h"
#include "views/mutagenesis_heat_map.h"
#include "views/project_browser.h"
#include "views/sequence_editor.h"
#include "views/theme.h"
#include "views/track_chart_view.h"
#include "views/vep_result.h"
#include "views/vep_view.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace fs = std::filesystem;

namespace {

bool waitFor(const std::function<bool()>& done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) return false;
        QTest::qWait(20);
    }
    return true;
}

// A blank capture (one colour everywhere) means the view did not render.
bool blank(const QImage& img) {
    const QRgb first = img.pixel(0, 0);
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7)
            if (img.pixel(x, y) != first) return false;
    return true;
}

int failures = 0;

// Grabs a window or a floating dock into DIR/NAME; counts a blank or unwritten image as a failure.
void shoot(QWidget& w, const QString& dir, const char* name) {
    QTest::qWait(250);  // layouts and charts settle
    const QImage img = w.grab().toImage();
    const QString path = dir + QLatin1Char('/') + QLatin1String(name);
    const bool ok = !img.isNull() && !blank(img) && img.save(path);
    std::printf("%s %s (%dx%d)\n", ok ? "wrote" : "FAILED", qPrintable(path), img.width(), img.height());
    failures += ok ? 0 : 1;
}

void raise(MainWindow& w, const char* dock) {
    if (auto* d = w.findChild<QDockWidget*>(QLatin1String(dock))) {
        d->show();
        d->raise();
    }
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // the sample project and settings go to a test location
    QSize size(1600, 1000);
    if (argc == 3) {
        const QStringList wh = QString::fromLatin1(argv[2]).split(QLatin1Char('x'));
        if (wh.size() == 2) size = QSize(wh[0].toInt(), wh[1].toInt());
    }
    if ((argc != 2 && argc != 3) || size.width() < 320 || size.height() < 240) {
        std::fprintf(stderr, "usage: carbon_screenshots OUT_DIR [WIDTHxHEIGHT]\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    QSettings().clear();
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    for (const char* f : {"/sample.carbon", "/sample.carbon-wal", "/sample.carbon-shm"}) QFile::remove(data + QLatin1String(f));

    // A tiny checkpoint, also offered as a Hugging Face cache snapshot to the model manager.
    QTemporaryDir tmp;
    const fs::path hub = tmp.filePath(QStringLiteral("hub")).toStdString();
    const fs::path snap = hub / "models--HuggingFaceBio--Carbon-500M" / "snapshots" / "3f9c2e1a";
    carbon::make_test_model(snap, {});
    fs::create_directories(hub / "models--HuggingFaceBio--Carbon-500M" / "refs");
    { std::FILE* f = std::fopen((hub / "models--HuggingFaceBio--Carbon-500M" / "refs" / "main").c_str(), "w"); std::fputs("3f9c2e1a", f); std::fclose(f); }
    qputenv("HF_HUB_CACHE", QByteArray::fromStdString(hub.string()));
    const QString model = QString::fromStdString(snap.string());

    applyTheme(Theme::Light);
    MainWindow w;
    w.resize(size);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return 1;
    waitFor([&] { return !w.models()->panel()->isScanning(); }, 20000);
    shoot(w, out, "welcome.png");

    QSignalSpy seq(w.project(), &ProjectController::sequenceOpened);
    w.project()->openSampleProject();
    if (!waitFor([&] { return seq.count() > 0; }, 20000)) return 1;
    w.models()->load(model);
    if (!waitFor([&] { return w.models()->isReady(); }, 60000)) return 1;
    QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
    w.generation()->panel()->countSpin()->setValue(8);
    w.generation()->runGeneration();
    if (!waitFor([&] { return stored.count() > 0 && w.designs()->model()->rowCount() == 8 && w.designs()->model()->row(7).designId > 0; }, 120000))
        return 1;
    w.editor()->setSelection(640, 720);
    w.editor()->scrollToPosition(560);
    raise(w, "designsDock");
    shoot(w, out, "main-window.png");

    w.designs()->view()->table()->selectRow(0);
    for (int r = 1; r < 4; ++r)
        w.designs()->view()->table()->selectionModel()->select(w.designs()->view()->proxy()->index(r, 0),
                                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
    w.designs()->overlaySelectedDesigns();
    waitFor([&] { return w.designs()->chart()->seriesCount() == 4; }, 20000);
    shoot(w, out, "design-tracks.png");

    // The designs checked against IDT's oPools rules: the Synthesis column, a breach's tooltip.
    w.designs()->view()->setSynthesisRules(QStringLiteral("idt-opool"));
    raise(w, "designsDock");
    w.designs()->view()->table()->scrollTo(w.designs()->view()->proxy()->index(0, DesignTableModel::SynthesisColumn));
    shoot(w, out, "designs-synthesis.png");
    w.designs()->view()->setSynthesisRules(QString());

    // A construct: the New Construct dialog with a pair of MPRA adapters, then stored in the
    // project and chosen in the Generation panel.
    {
        ConstructDialog d(w.project()->constructs(), &w);
        d.nameEdit()->setText(QStringLiteral("MPRA v1"));
        d.upstreamEdit()->setPlainText(QStringLiteral("ACTGGCCGCTTGACGCACTGCGG"));
        d.downstreamEdit()->setPlainText(QStringLiteral("CACTGCGGCTCCTGCGATCGC"));
        d.descriptionEdit()->setText(QStringLiteral("lentiMPRA adapters, round 1"));
        d.show();
        shoot(d, out, "construct-dialog.png");
        QSignalSpy added(w.project()->store(), &ProjectStore::constructAdded);
        w.project()->storeThread()->post([c = d.construct()](ProjectStore* s) { s->addConstruct(0, c); });
        waitFor([&] { return added.count() > 0 && w.generation()->panel()->constructCombo()->count() == 2; }, 20000);
        w.generation()->panel()->selectConstruct(QStringLiteral("MPRA v1"));
        raise(w, "generationDock");
        shoot(w, out, "generation-construct.png");
        w.generation()->panel()->selectConstruct(QString());
    }

    // Choose Diverse: the dialog over the eight stored designs, then the selection in the table.
    {
        QList<qint64> ids;
        for (int r = 0; r < w.designs()->model()->rowCount(); ++r) ids << w.designs()->model()->row(r).designId;
        ChooseDesignsDialog d(ids, {QStringLiteral("design_logp"), QStringLiteral("ranking_logp"), QStringLiteral("min_base_logp")},
                              w.project()->selections(), &w);
        d.nameEdit()->setText(QStringLiteral("twist pool 1"));
        d.countSpin()->setValue(4);
        d.minDistanceSpin()->setValue(3);
        d.show();
        shoot(d, out, "choose-diverse.png");
        QSignalSpy chosen(w.project()->store(), &ProjectStore::designsChosen);
        w.project()->storeThread()->post([r = d.request()](ProjectStore* s) { s->chooseDesigns(0, r); });
        waitFor([&] { return chosen.count() > 0 && w.designs()->view()->selectionCombo()->count() == 2; }, 20000);
        w.designs()->view()->showSelection(QStringLiteral("twist pool 1"));
        raise(w, "designsDock");
        shoot(w, out, "designs-selection.png");
        w.designs()->view()->showSelection(QString());
    }

    // The Order dialog over the four selected designs: IDT plates, an MPRA adapter pair, and a
    // flank typed with a letter that cannot be ordered, said in place.
    {
        OrderDialog order(4, 0, w.project()->constructs(), &w);
        order.formatCombo()->setCurrentIndex(order.formatCombo()->findData(int(ExportFormat::IdtXlsx)));
        order.upstreamEdit()->setText(QStringLiteral("ACTGGCCGCTTGACGNNNN"));
        order.downstreamEdit()->setText(QStringLiteral("CACTGCGGCTCCTGCGATCGC"));
        order.show();
        shoot(order, out, "order-dialog.png");
    }

    // The variant fos_TATA_T703G from the project browser to the Base Inspector, scored.
    QTreeWidgetItem* fos = w.project()->browser()->tree()->topLevelItem(0)->child(0);
    for (int i = 0; i < fos->childCount(); ++i)
        if (fos->child(i)->text(1) == QLatin1String("fos_TATA_T703G")) emit w.project()->browser()->tree()->itemActivated(fos->child(i), 0);
    waitFor([&] { return w.analysis()->inspector()->position() == 702; }, 60000);
    for (QPushButton* b : w.analysis()->inspector()->findChildren<QPushButton*>())
        if (b->text().contains(QStringLiteral("Score"))) b->click();
    waitFor([&] { return w.analysis()->inspector()->chart()->seriesCount() >= 3; }, 60000);
    raise(w, "inspectorDock");
    shoot(w, out, "variant.png");

    w.editor()->setSelection(690, 720);
    w.analysis()->scanMutagenesis(false);
    raise(w, "mutagenesisDock");
    shoot(w, out, "mutagenesis.png");

    // The model's distributions over the TATA box and its flanks as a sequence logo, the dock
    // floated at a readable size.
    if (auto* d = w.findChild<QDockWidget*>(QStringLiteral("logoDock"))) {
        d->setFloating(true);
        d->resize(1100, 340);
        d->show();
        w.editor()->setSelection(680, 730);
        w.logo()->logoFromSelection();
        waitFor([&] { return w.logo()->panel()->view()->logo().columns.size() == 50; }, 20000);
        shoot(*d, out, "logo.png");
        d->setFloating(false);
    }

    // The model manager with room to read: its dock floated over the window.
    if (auto* d = w.findChild<QDockWidget*>(QStringLiteral("modelDock"))) {
        d->setFloating(true);
        d->resize(760, 760);
        d->move(w.geometry().center() - QPoint(380, 380));
    }
    w.models()->panel()->folderList()->setCurrentItem(w.models()->panel()->folderList()->topLevelItem(0));
    if (auto* d = w.findChild<QDockWidget*>(QStringLiteral("modelDock"))) {
        shoot(*d, out, "model-manager.png");
        d->setFloating(false);
    }

    // A predictor fitted to 40 random sequences' random measurements (a random model, so its
    // held-out r is near 0 and the warnings say so), its report in the Predictors dock, floated.
    {
        QTemporaryDir tableDir;
        QByteArray table = "name\tsequence\tK562\tHepG2\n";
        QRandomGenerator rng(5);
        for (int i = 0; i < 40; ++i) {
            QByteArray bases(120, 'A');
            for (char& c : bases) c = "ACGT"[rng.bounded(4)];
            table += "enh" + QByteArray::number(i) + "\t" + bases + "\t" + QByteArray::number(rng.generateDouble() * 4 - 1) + "\t" +
                     QByteArray::number(rng.generateDouble() * 2) + "\n";
        }
        const QString tablePath = tableDir.filePath(QStringLiteral("mpra_round1.tsv"));
        QFile f(tablePath);
        if (f.open(QIODevice::WriteOnly)) f.write(table);
        f.close();
        QSignalSpy fitted(w.predictors(), &PredictorController::fitFinished);
        w.predictors()->fitFromTable(tablePath);
        waitFor([&] { return fitted.count() > 0; }, 120000);
        if (auto* d = w.findChild<QDockWidget*>(QStringLiteral("predictorsDock"))) {
            d->show();
            d->setFloating(true);
            d->resize(620, 720);
            d->move(w.geometry().center() - QPoint(310, 360));
            shoot(*d, out, "predictors.png");
            d->setFloating(false);
        }
    }

    // Directed evolution of 60 bases of the sample sequence by that predictor (K562, budget 5): the
    // objective section, the Evolution dock, and the last round opened with its edits marked.
    {
        ObjectiveSection* o = w.generation()->panel()->objective();
        o->setChecked(true);
        o->optimiserCombo()->setCurrentIndex(o->optimiserCombo()->findData(int(ObjectiveOrder::Optimiser::Evolve)));
        o->objectiveCombo()->setCurrentIndex(o->objectiveCombo()->findText(QStringLiteral("K562")));
        o->budgetSpin()->setValue(5);
        w.generation()->panel()->templateEdit()->clear();
        w.editor()->setSelection(40, 100);
        w.generation()->runGeneration();
        waitFor([&] { return !w.generation()->isGenerating(); }, 120000);
        EvolutionView* v = w.generation()->evolutionView();
        if (v->roundCount() > 0) emit v->openRound(v->run(), v->roundCount() - 1);
        raise(w, "evolutionDock");
        raise(w, "generationDock");
        shoot(w, out, "evolution.png");
        shoot(*o, out, "objective-section.png");
        o->setChecked(false);
    }

    // The map of every design in the table (the run's and the evolution's), coloured by cluster.
    {
        QSignalSpy mapped(w.designMap(), &DesignMapController::mapped);
        w.designs()->view()->table()->clearSelection();
        w.designMap()->mapDesigns();
        waitFor([&] { return mapped.count() > 0; }, 120000);
        DesignMapView* m = w.designMap()->view();
        m->colouring()->setCurrentIndex(m->colouring()->findText(QStringLiteral("Cluster")));
        raise(w, "designMapDock");
        shoot(w, out, "design-map.png");
    }

    // Variants of the sample sequence scored against the project (Score Variants), the run then
    // written for a genome browser: the Variant Effects dock with its table, plot and message.
    {
        const QString name = w.project()->sequenceName();
        const QByteArray bases = w.document()->bases();
        QByteArray vcf = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n";
        for (int p = 600; p < 800 && p < bases.size(); p += 9)
            vcf += name.toUtf8() + "\t" + QByteArray::number(p) + "\t.\t" + bases.mid(p - 1, 1) + "\t" + (bases[p - 1] == 'A' ? "G" : "A") + "\n";
        QTemporaryDir vepDir;
        QFile f(vepDir.filePath(QStringLiteral("sample.vcf")));
        if (f.open(QIODevice::WriteOnly)) f.write(vcf);
        f.close();
        QSignalSpy finished(w.variantEffects(), &VepController::vepRunFinished);
        w.variantEffects()->scoreProjectVcf(f.fileName(), 600, false);
        waitFor([&] { return finished.count() > 0; }, 120000);
        waitFor([&] { return w.variantEffects()->view()->model()->rowCount() > 0; }, 20000);
        QSignalSpy exported(w.project()->store(), &ProjectStore::vepBrowserExported);
        if (finished.count() > 0) {
            w.setNextFileAnswer(vepDir.filePath(QStringLiteral("fos-variants.xml")));
            w.variantEffects()->exportForGenomeBrowser(finished.first().at(0).toLongLong());
            waitFor([&] { return exported.count() > 0; }, 20000);
        }
        raise(w, "vepDock");
        shoot(w, out, "variant-effects.png");
    }

    applyTheme(Theme::Dark);
    raise(w, "designsDock");
    shoot(w, out, "dark.png");
    applyTheme(Theme::Light);

    // A feature-rich GenBank entry (a reporter construct), imported into the project: the
    // feature track, the sequence map and the Features dock, in both palettes.
    QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
    w.openPath(QStringLiteral(CARBON_TEST_SOURCE_DIR "/storage/data/flatfile/reporter_construct.gb"));
    if (!waitFor([&] { return w.document()->size() == 3120; }, 20000)) return 1;
    raise(w, "featuresDock");
    w.editor()->setSelection(359, 640);  // the promoter
    w.editor()->centreOn(500);
    shoot(w, out, "features.png");
    applyTheme(Theme::Dark);
    shoot(w, out, "features-dark.png");
    raise(w, "generationDock");  // its check boxes and lists in the dark palette
    shoot(w, out, "generation-dark.png");
    applyTheme(Theme::Light);

    // The editor centred on its first framed motif, site or breach, the cursor on it.
    const auto showFirstFrame = [&w] {
        const qsizetype first = w.editor()->motifFrames().isEmpty() ? 0 : w.editor()->motifFrames().front().start;
        w.editor()->setSelection(first, first);
        w.editor()->centreOn(first + 60);
    };
    // The construct's restriction sites by enzyme name (Edit > Show Restriction Sites), framed in
    // the editor over its multiple cloning region.
    {
        QSignalSpy scanned(w.motifs(), &MotifController::motifsScanned);
        w.motifs()->showEnzymeSites(QStringLiteral("EcoRI, BamHI, HindIII, XbaI, BsaI, NotI"));
        waitFor([&] { return scanned.count() > 0; }, 20000);
        showFirstFrame();
        shoot(w, out, "restriction-sites.png");
        w.motifs()->showEnzymeSites(QString());
    }
    // The construct checked against IDT gBlocks rules (Edit > Check Synthesis of the
    // Sequence): each breach framed, the whole-sequence rules said in the status bar.
    {
        QSignalSpy checked(w.synthesis(), &SynthesisController::checked);
        w.synthesis()->checkSequence(QStringLiteral("idt-gblock"));
        waitFor([&] { return checked.count() > 0; }, 20000);
        showFirstFrame();
        shoot(w, out, "synthesis-check.png");
        w.synthesis()->checkSequence(QString());
    }
    return failures ? 1 : 0;
}
