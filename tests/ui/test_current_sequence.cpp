// Every panel describes the sequence in the editor and says which (issue 29): after another stored
// sequence is opened, the Base Inspector (and its variant chart), the mutagenesis heat map, the
// sequence logo and the specificity track of the sequence before are gone, and the inspector and
// the heat map name the sequence they describe; a click on a base is that base everywhere (the
// cursor and the inspected base agree, whichever half of it was clicked); runs are numbered as the
// project numbers them, each with a new seed unless the user keeps one; the Project dock counts
// variants imported after it opened; a vep result that cannot be read leaves no other result in
// the table; tag names are text in chart legends.
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QtCharts/QLineSeries>

#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/logo_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/specificity_controller.h"
#include "controllers/vep_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/base_inspector.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/logo_panel.h"
#include "views/mutagenesis_heat_map.h"
#include "views/project_browser.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"
#include "views/sequence_logo.h"
#include "views/track_chart_view.h"
#include "views/vep_view.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestCurrentSequence : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;
    QByteArray first_ = ui_test::randomBases(300, 41), second_ = ui_test::randomBases(240, 42);

    // A project with two sequences (and `runs` finished runs before any of the window's).
    QString project(const QString& name, int runs = 0) {
        const QString path = tmp_.filePath(name);
        auto p = st::Project::open(path.toStdString());
        for (const auto& [n, b] : {std::pair{"alpha", first_}, std::pair{"beta", second_}}) {
            st::SequenceRecord s;
            s.name = n;
            s.bases = b.toStdString();
            p->add_sequence(s);
        }
        for (int i = 0; i < runs; ++i) {
            st::Run r;
            r.kind = "score";
            p->finish_run(p->begin_run(r), "finished", 0);
        }
        return path;
    }

    // The window on `path`, its first sequence open and scored by the tiny model.
    static void openWithModel(MainWindow& w, const QString& path, const QString& model) {
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.models()->load(model);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
    }

    void panelsForgetTheSequenceShownBefore() {
        MainWindow w;
        openWithModel(w, project(QStringLiteral("panels.carbon")), model_);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(w.document()->name(), QStringLiteral("alpha"));
        BaseInspector* inspector = w.analysis()->inspector();
        // What the panels show of alpha: an inspected base with its variant tracks, a heat map, a
        // logo of a selection, a specificity track.
        w.analysis()->inspectBase(40);
        QCOMPARE(inspector->position(), qint64(40));
        QVERIFY(inspector->findChild<QLabel*>()->text().startsWith(QStringLiteral("alpha, position 41")));
        inspector->selectAlternative(first_[40] == 'A' ? 'C' : 'A');
        emit inspector->scoreVariantRequested(40, first_[40] == 'A' ? 'C' : 'A', 120);
        QTRY_COMPARE_WITH_TIMEOUT(inspector->chart()->seriesCount(), 3, 60000);
        w.editor()->setSelection(30, 60);
        w.analysis()->scanMutagenesis(false);
        QCOMPARE(w.analysis()->heatMap()->matrix().length, qint64(30));
        QLabel* subject = w.analysis()->heatMap()->parentWidget()->findChild<QLabel*>();
        QVERIFY(subject);
        QCOMPARE(subject->text(), QStringLiteral("alpha, bases 31–60 (from the marginals)"));
        w.editor()->setSelection(10, 30);
        w.logo()->logoFromSelection();
        QCOMPARE(w.logo()->panel()->view()->logo().columns.size(), qsizetype(20));
        GenerationPanel* g = w.generation()->panel();
        g->findChild<QListWidget*>()->item(0)->setCheckState(Qt::Checked);
        g->negativeTagsEdit()->setText(QStringLiteral("<fungi>"));
        w.specificity()->runSpecificityTrack();
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->chart()->seriesCount(), 1, 60000);
        // Names are text: the legend (rich text in Qt Charts) gets them escaped.
        const QString legend = w.designs()->chart()->chart()->series().first()->name();
        QVERIFY2(legend.startsWith(QStringLiteral("alpha: ")) && legend.contains(QStringLiteral("&lt;fungi&gt;")), qPrintable(legend));

        // Beta opened: none of alpha's results are left, and the panels name beta.
        w.project()->openStoredSequence(2);
        QTRY_COMPARE_WITH_TIMEOUT(w.document()->name(), QStringLiteral("beta"), 20000);
        QCOMPARE(inspector->position(), qint64(-1));
        QCOMPARE(inspector->chart()->seriesCount(), 0);
        QVERIFY2(inspector->findChild<QLabel*>()->text().startsWith(QStringLiteral("beta: click a base")),
                 qPrintable(inspector->findChild<QLabel*>()->text()));
        QCOMPARE(w.analysis()->heatMap()->matrix().length, qint64(0));
        QCOMPARE(subject->text(), QStringLiteral("beta: nothing scanned yet"));
        QVERIFY(w.logo()->panel()->view()->logo().columns.isEmpty());
        QCOMPARE(w.designs()->chart()->seriesCount(), 0);
        // And beta's own results come back for beta.
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
        w.analysis()->inspectBase(7);
        QVERIFY(inspector->findChild<QLabel*>()->text().startsWith(QStringLiteral("beta, position 8")));
    }

    void aClickOnABaseIsThatBaseEverywhere() {
        SequenceDocument doc;
        doc.setBases(ui_test::randomBases(400, 3));
        SequenceEditor editor(&doc);
        editor.resize(900, 400);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QSignalSpy clicked(&editor, &SequenceEditor::baseClicked);
        int onBases = 0;
        for (int x = 40; x < 700; x += 3) {  // every few pixels along the first line: both halves of bases, and the gaps
            clicked.clear();
            QTest::mouseClick(editor.viewport(), Qt::LeftButton, {}, QPoint(x, 24));
            if (clicked.isEmpty()) continue;
            ++onBases;
            QCOMPARE(editor.cursorPosition(), clicked.first().at(0).toLongLong());  // the status bar's position is the inspected base
        }
        QVERIFY(onBases > 100);
    }

    void runsAreNumberedAsTheProjectNumbersThemWithANewSeedEach() {
        const QString path = project(QStringLiteral("runs.carbon"), 4);
        MainWindow w;
        openWithModel(w, path, model_);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(w.generation()->nextRunNumber(), qint64(5));
        GenerationPanel* g = w.generation()->panel();
        g->countSpin()->setValue(2);
        g->lengthSpin()->setValue(24);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        QList<int> seeds;
        for (int run = 0; run < 3; ++run) {
            if (run == 2) g->newSeedCheck()->setChecked(false);  // the seed shown is kept
            w.editor()->setSelection(100, 124);
            w.generation()->runGeneration();
            seeds << g->seedSpin()->value();
            QTRY_COMPARE_WITH_TIMEOUT(stored.count(), run + 1, 120000);
            // The spy counts in the store's thread; the window hears of the stored run a moment later.
            QTRY_VERIFY_WITH_TIMEOUT(w.findChild<RunLog*>()->toPlainText().contains(QStringLiteral("Run %1 stored in the project").arg(5 + run)), 20000);
        }
        auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
        const auto runs = p->list_runs();
        QCOMPARE(int(runs.size()), 7);
        for (int run = 0; run < 3; ++run) {
            QCOMPARE(runs[size_t(4 + run)].id, int64_t(5 + run));
            QCOMPARE(runs[size_t(4 + run)].setting("seed").value_or(""), std::to_string(seeds[run]));  // shown and stored
        }
        QVERIFY(seeds[0] != seeds[1]);  // a new seed each run (equal by chance: 1 in 2^31)
        QCOMPARE(seeds[2], seeds[1]);
        // The table and the log know each run by the project's number, from its start.
        for (int r = 0; r < w.designs()->model()->rowCount(); ++r) QVERIFY(w.designs()->model()->row(r).run >= 5);
        const QString log = w.findChild<RunLog*>()->toPlainText();
        for (int n : {5, 6, 7}) {
            QVERIFY2(log.contains(QStringLiteral("Run %1 started").arg(n)), qPrintable(log));
            QVERIFY2(log.contains(QStringLiteral("Run %1 stored in the project").arg(n)), qPrintable(log));
        }
        QVERIFY2(!log.contains(QStringLiteral("Run 1 ")) && !log.contains(QStringLiteral("stored as project run")), qPrintable(log));
        QCOMPARE(w.generation()->nextRunNumber(), qint64(8));
    }

    void theProjectDockCountsVariantsImportedAfterItOpened() {
        const QString path = project(QStringLiteral("variants.carbon"));
        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        QLabel* header = w.project()->browser()->findChild<QLabel*>();
        QCOMPARE(header->text(), QStringLiteral("variants.carbon"));
        QByteArray vcf = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n";
        for (int pos : {11, 21, 31, 41})
            vcf += "alpha\t" + QByteArray::number(pos) + "\t.\t" + first_.mid(pos - 1, 1) + "\t" + (first_[pos - 1] == 'G' ? "T" : "G") + "\n";
        const QString file = tmp_.filePath(QStringLiteral("four.vcf"));
        QVERIFY(ui_test::writeFile(file, vcf));
        w.project()->importVcf(file);
        QTRY_COMPARE_WITH_TIMEOUT(header->text(), QStringLiteral("variants.carbon  (4 variant(s))"), 20000);
    }

    void aVepResultThatCannotBeReadLeavesNoOtherInTheTable() {
        const QString good = tmp_.filePath(QStringLiteral("good.tsv")), bad = tmp_.filePath(QStringLiteral("bad.tsv"));
        QVERIFY(ui_test::writeFile(good, "##carbon-cli vep 0.1.0\n##model=m\n##reference=r.fa\n##vcf=v.vcf\n##window_bp=100\n"
                                         "##reverse_complement=0\n##tags=\n##regions=\n##yarn=\n##prefix_sharing=1\n"
                                         "#chrom\tpos\tid\tref\talt\tstatus\twindow_start\twindow_end\tsite_log_odds\twindow_delta\t"
                                         "window_delta_rc\twindow_delta_mean\n"
                                         "chr1\t50\t.\tA\tC\tok\t1\t100\t0.5\t-0.1\tNA\t-0.1\n"));
        QVERIFY(ui_test::writeFile(bad, "##carbon-cli vep 0.1.0\nnot a vep result\n"));
        MainWindow w;
        QSignalSpy opened(w.variantEffects(), &VepController::vepResultOpened);
        w.variantEffects()->openVepResult(good);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        QCOMPARE(w.variantEffects()->view()->model()->rowCount(), 1);
        w.variantEffects()->openVepResult(bad);
        QTRY_COMPARE_WITH_TIMEOUT(w.variantEffects()->view()->model()->rowCount(), 0, 20000);
        bool said = false;
        for (QLabel* l : w.variantEffects()->view()->findChildren<QLabel*>()) said |= l->text().startsWith(QStringLiteral("Cannot open ") + bad);
        QVERIFY(said);
    }
};

QTEST_MAIN(TestCurrentSequence)
#include "test_current_sequence.moc"
