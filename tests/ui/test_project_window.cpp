// Projects in the window, headless: a project file written by the storage layer opens into the
// browser, editor and designs table; edits are autosaved into the file; a generation run lands
// in the project with its per-base tracks, and pinned motifs become fixed template bases; star /
// discard persist; FASTA and VCF import and every export go through the File menu (and a drop);
// bad input reports file and line and stores nothing; Save As copies; overlaid design tracks;
// another program's database is refused untouched, a VCF goes onto the open sequence by id, and
// a run the project cannot take is kept in a recovery project (issue 15).
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QMimeData>
#include <QRandomGenerator>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeWidget>
#include <QUndoStack>
#include <QUrl>

#include <sqlite3.h>

#include "carbon/model.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/commands/insert_bases_command.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "views/message_bar.h"
#include "views/order_dialog.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/generation_panel.h"
#include "views/project_browser.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"
#include "views/track_chart_view.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

// Note: a QSignalSpy on the store records on the store's thread, before the window's queued
// slot for the same signal has run; the window's own state is therefore awaited with QTRY_*.

namespace {

using ui_test::randomBases;
using ui_test::writeFile;

// A project as another session (or carbon-cli) leaves it: two sequences, one with regions, and a
// finished run with three designs, one of them starred.
void writeProject(const QString& path, const QByteArray& first) {
    auto p = st::Project::open(path.toStdString());
    st::SequenceRecord a;
    a.name = "promoter_a";
    a.bases = first.toStdString();
    const int64_t aid = p->add_sequence(a);
    st::Region design;
    design.sequence_id = aid;
    design.kind = st::RegionKind::Design;
    design.start = 100;
    design.end = 160;
    p->add_region(design);
    st::SequenceRecord b;
    b.name = "enhancer_b";
    b.bases = randomBases(300, 9).toStdString();
    p->add_sequence(b);
    st::Run run;
    run.kind = "generate";
    run.settings = {{"sequence_id", std::to_string(aid)}, {"region_start", "100"}, {"region_length", "60"}};
    const int64_t rid = p->begin_run(run);
    for (int i = 0; i < 3; ++i) {
        st::DesignRecord d;
        d.run_id = rid;
        d.name = "d" + std::to_string(i);
        d.bases = randomBases(60, quint32(20 + i)).toStdString();
        d.rank = i + 1;
        d.design_logp = -1.3 - 0.1 * i;
        d.flag = i == 1 ? "starred" : "";
        p->add_design(d);
    }
    p->finish_run(rid, "finished", 0);
}

QAction* menuAction(MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

}  // namespace

class TestProjectWindow : public QObject {
    Q_OBJECT
    // A new project made from `seq` in the editor (stored as its first sequence), with the model
    // at `modelDir` loaded.
    static void newProjectWithModel(MainWindow& w, const QString& path, const QByteArray& seq, const QString& modelDir) {
        w.document()->setBases(seq);
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->newProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->currentSequenceId() > 0, 20000);
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void openShowsBrowserEditorAndDesigns() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        const QByteArray first = randomBases(500, 3);
        writeProject(path, first);
        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && seqOpened.count() > 0, 20000);
        QCOMPARE(w.project()->path(), path);
        QTreeWidget* tree = w.project()->browser()->tree();
        QCOMPARE(tree->topLevelItemCount(), 2);
        QCOMPARE(tree->topLevelItem(0)->childCount(), 2);  // sequences
        QCOMPARE(tree->topLevelItem(0)->child(1)->text(0), QStringLiteral("enhancer_b"));
        QCOMPARE(tree->topLevelItem(1)->childCount(), 1);  // runs
        QCOMPARE(w.designs()->model()->rowCount(), 3);
        QVERIFY(w.designs()->model()->row(0).designId > 0);
        QCOMPARE(w.designs()->model()->row(1).flag, QStringLiteral("starred"));
        QCOMPARE(w.designs()->model()->row(0).regionStart, qsizetype(100));
        // The first sequence is in the editor with its design region.
        QCOMPARE(w.document()->bases(), first);
        QCOMPARE(w.document()->regions().size(), 1);
        QCOMPARE(w.document()->regions()[0].kind, Region::Kind::Design);
        QCOMPARE(w.project()->sequenceName(), QStringLiteral("promoter_a"));

        // Activating the other sequence loads it; the run filter shows one run's designs.
        seqOpened.clear();
        emit tree->itemActivated(tree->topLevelItem(0)->child(1), 0);
        QTRY_VERIFY_WITH_TIMEOUT(seqOpened.count() > 0, 20000);
        QCOMPARE(w.document()->size(), 300);
        QCOMPARE(w.document()->undoStack()->count(), 0);  // a loaded sequence is not an undoable edit
        w.designs()->view()->setFlagFilter(DesignsView::FlagFilter::Starred);
        QCOMPARE(w.designs()->view()->proxy()->rowCount(), 1);
        w.designs()->view()->setFlagFilter(DesignsView::FlagFilter::All);

        // A missing file is refused with its name.
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.project()->openProject(tmp.filePath(QStringLiteral("missing.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 0, 20000);
        QVERIFY(errors.last().at(1).toString().contains(QStringLiteral("missing.carbon")));
        QCOMPARE(w.project()->path(), path);  // the open project stays open
    }

    void editsAreAutosavedAndSurviveReopen() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        const QByteArray first = randomBases(500, 3);
        writeProject(path, first);
        QByteArray expected;
        {
            MainWindow w;
            QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
            w.project()->openProject(path);
            QTRY_VERIFY_WITH_TIMEOUT(seqOpened.count() > 0, 20000);
            QSignalSpy saved(w.project()->store(), &ProjectStore::sequenceSaved);
            w.document()->undoStack()->push(new InsertBasesCommand(w.document(), 10, QByteArray("GGGGCCCC")));
            w.editor()->setSelection(200, 230);
            w.editor()->addRegionFromSelection(Region::Kind::Annotation);
            QTRY_VERIFY_WITH_TIMEOUT(saved.count() > 0, 20000);
            expected = w.document()->bases();
            // One more edit, then close the window at once: the close flushes it to the file.
            w.document()->undoStack()->push(new InsertBasesCommand(w.document(), 0, QByteArray("TTT")));
            expected.prepend("TTT");
        }
        auto p = st::Project::open(path.toStdString(), {.create = false});
        const auto s = p->find_sequence("promoter_a");
        QVERIFY(s.has_value());
        QCOMPARE(QByteArray::fromStdString(s->bases), expected);
        const auto regions = p->regions_of_sequence(s->id);
        QCOMPARE(int(regions.size()), 2);
        QCOMPARE(regions[0].start, int64_t(100 + 8 + 3));  // shifted by both inserts
        QCOMPARE(regions[1].kind, st::RegionKind::Annotation);
        QCOMPARE(regions[1].start, int64_t(200 + 3));
    }

    void newProjectTakesTheEditorsSequence() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("new.carbon"));
        MainWindow w;
        const QByteArray seq = randomBases(120, 4);
        w.document()->setBases(seq);
        QSignalSpy saved(w.project()->store(), &ProjectStore::sequenceSaved);
        w.project()->newProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() > 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->currentSequenceId() > 0, 20000);
        auto p = st::Project::open(path.toStdString(), {.create = false});
        const auto all = p->list_sequences(true);
        QCOMPARE(int(all.size()), 1);
        QCOMPARE(QByteArray::fromStdString(all[0].bases), seq);
    }

    // Run takes the whole sequence around the design region; the engine's one rule fits it to
    // the model's context (a flank of a quarter, the nearest context): the stored run holds what
    // the model read, the same as fit_to_context gives, and the run says what it trimmed.
    void aRunReadsTheContextTheEnginesRuleKeeps() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny128"));
        carbon::TestModelOptions mo;
        mo.max_position = 128;
        carbon::make_test_model(modelDir.toStdString(), mo);
        const QString path = tmp.filePath(QStringLiteral("long.carbon"));
        const QByteArray seq = randomBases(6000, 21);
        MainWindow w;
        newProjectWithModel(w, path, seq, modelDir);
        if (QTest::currentTestFailed()) return;
        w.editor()->setSelection(3000, 3022);
        w.editor()->addRegionFromSelection(Region::Kind::Design);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->panel()->countSpin()->setValue(2);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);

        carbon::DesignRequest expected;
        expected.left_context = seq.left(3000).toStdString();
        expected.right_flank = seq.mid(3022).toStdString();
        expected.template_iupac = std::string(22, 'N');
        expected.context_tokens = 128;
        const auto model = carbon::Model::load(modelDir.toStdString(), {});
        QCOMPARE(carbon::fit_to_context(model->tokenizer(), expected).size(), size_t(2));
        auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
        const auto runs = p->list_runs();
        QCOMPARE(int(runs.size()), 1);
        QCOMPARE(runs[0].setting("left_context").value_or(""), expected.left_context);
        QCOMPARE(runs[0].setting("right_flank").value_or(""), expected.right_flank);
        QCOMPARE(runs[0].setting("region_start").value_or(""), std::string("3000"));
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<RunLog*>()->toPlainText().contains(QStringLiteral("left context trimmed to its nearest")), 20000);
    }

    void runIsStoredWithTracksAndPinnedMotif() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        QByteArray seq = randomBases(400, 7);
        seq.replace(130, 6, "TATAAT");  // the motif to pin
        MainWindow w;
        newProjectWithModel(w, path, seq, modelDir);
        if (QTest::currentTestFailed()) return;

        // Design region 120..168 with the pinned motif at 130..136: the template follows.
        w.editor()->setSelection(120, 168);
        w.editor()->addRegionFromSelection(Region::Kind::Design);
        w.editor()->setSelection(130, 136);
        w.editor()->addRegionFromSelection(Region::Kind::PinnedMotif);
        const QString templ = w.generation()->panel()->templateEdit()->text();
        QCOMPARE(templ.size(), 48);
        QCOMPARE(templ.mid(10, 6), QStringLiteral("TATAAT"));
        QCOMPARE(templ.count(QLatin1Char('N')), qsizetype(42));
        // Removing the pinned motif frees its bases again.
        w.document()->undoStack()->undo();
        QCOMPARE(w.generation()->panel()->templateEdit()->text(), QString(48, QLatin1Char('N')));
        w.document()->undoStack()->redo();
        QCOMPARE(w.generation()->panel()->templateEdit()->text().mid(10, 6), QStringLiteral("TATAAT"));

        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->panel()->countSpin()->setValue(3);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        QCOMPARE(w.designs()->model()->rowCount(), 3);
        QTRY_VERIFY_WITH_TIMEOUT(w.designs()->model()->row(2).designId > 0, 20000);  // the spy sees the store's signal first
        for (int r = 0; r < 3; ++r) {
            const DesignRow& row = w.designs()->model()->row(r);
            QVERIFY(row.designId > 0);
            QCOMPARE(row.design.bases.substr(10, 6), std::string("TATAAT"));
            QVERIFY(!std::isnan(row.minBaseLogp));
            QVERIFY(row.minBaseLogp <= row.design.design_logp);  // the minimum is at most the mean
        }
        w.designs()->view()->table()->selectRow(0);
        w.designs()->view()->starSelection();
        const qint64 starred = w.designs()->model()->row(w.designs()->view()->selectedSourceRows().first()).designId;

        // Overlay two stored designs' tracks in the chart.
        w.designs()->view()->table()->selectAll();
        QSignalSpy tracks(w.project()->store(), &ProjectStore::designTracks);
        w.designs()->overlaySelectedDesigns();
        QTRY_VERIFY_WITH_TIMEOUT(tracks.count() > 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->chart()->seriesCount(), 3, 20000);

        // What the file holds: the run with its settings, designs with 3 tracks each and regions.
        QTest::qWait(200);  // the star is a queued write
        auto p = st::Project::open(path.toStdString(), {.create = false});
        const auto runs = p->list_runs();
        QCOMPARE(int(runs.size()), 1);
        QCOMPARE(runs[0].status, std::string("finished"));
        QCOMPARE(runs[0].setting("template").value_or(""), templ.toStdString());
        QCOMPARE(runs[0].setting("sequence_id").value_or(""), std::to_string(w.project()->currentSequenceId()));
        const auto designs = p->list_designs(runs[0].id);
        QCOMPARE(int(designs.size()), 3);
        for (const auto& d : designs) {
            const auto t = p->tracks_of_design(d.id);
            QCOMPARE(int(t.size()), 3);
            QCOMPARE(t[0].length(), int64_t(48));
            double mean = 0;
            for (float v : t[0].values) mean += v;
            QVERIFY(std::abs(mean / 48 - d.design_logp) < 1e-3);  // the track is the design's own score
            const auto regions = p->regions_of_design(d.id);
            QVERIFY(regions.size() >= 2);
            QCOMPARE(regions[1].kind, st::RegionKind::Pinned);
            QCOMPARE(regions[1].label, std::string("TATAAT"));
        }
        QCOMPARE(p->design(starred)->flag, std::string("starred"));
    }

    void importAndExportThroughTheMenus() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        const QByteArray first = randomBases(500, 3);
        writeProject(path, first);
        MainWindow w;
        QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(seqOpened.count() > 0, 20000);
        QSignalSpy added(w.project()->store(), &ProjectStore::sequencesAdded);
        QSignalSpy errors(w.project(), &ProjectController::projectError);

        // Import FASTA from the menu.
        const QString fa = tmp.filePath(QStringLiteral("in.fa"));
        QVERIFY(writeFile(fa, ">alpha first\nACGTACGTAC\nGGCC\n>beta\nTTTTAAAA\n"));
        QAction* importFa = menuAction(w, QStringLiteral("&Import FASTA…"));
        QVERIFY(importFa);
        w.setNextFileAnswer(fa);
        importFa->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(added.count() > 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->browser()->tree()->topLevelItem(0)->childCount(), 4, 20000);
        // What was imported opens: its first record.
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->sequenceName(), QStringLiteral("alpha"), 20000);

        // A malformed FASTA: the error names file and line, and nothing of it is stored.
        const QString bad = tmp.filePath(QStringLiteral("bad.fa"));
        QVERIFY(writeFile(bad, ">ok\nACGT\n>broken\nAC1GT\n"));
        w.setNextFileAnswer(bad);
        importFa->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 0, 20000);
        QVERIFY2(errors.last().at(1).toString().contains(QStringLiteral("bad.fa:4")), qPrintable(errors.last().at(1).toString()));
        QCOMPARE(w.project()->browser()->tree()->topLevelItem(0)->childCount(), 4);

        // A drop of a FASTA file imports it too.
        const QString dropped = tmp.filePath(QStringLiteral("dropped.fasta"));
        QVERIFY(writeFile(dropped, ">gamma\nACGTTGCA\n"));
        added.clear();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(dropped)});
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QTRY_VERIFY_WITH_TIMEOUT(added.count() > 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->browser()->tree()->topLevelItem(0)->childCount(), 5, 20000);

        // A VCF onto the current sequence (promoter_a, opened again): REF must match the stored base.
        w.project()->openStoredSequence(1);
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->sequenceName(), QStringLiteral("promoter_a"), 20000);
        const QString vcf = tmp.filePath(QStringLiteral("v.vcf"));
        QVERIFY(writeFile(vcf, "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n"
                               "promoter_a\t5\tv1\t" + first.mid(4, 1) + "\t" + (first[4] == 'A' ? "C" : "A") + "\t.\t.\t.\n"));
        QSignalSpy variants(w.project()->store(), &ProjectStore::variantsImported);
        w.setNextFileAnswer(vcf);
        menuAction(w, QStringLiteral("Import &VCF onto Current Sequence…"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(variants.count() > 0, 20000);
        QVERIFY(variants.last().at(0).toString().contains(QStringLiteral("1 SNV")));

        // Export the selected designs as FASTA, and one as GenBank, from the menu.
        QSignalSpy exported(w.project()->store(), &ProjectStore::exported);
        w.designs()->view()->table()->selectRow(0);
        w.designs()->view()->table()->selectionModel()->select(w.designs()->view()->proxy()->index(2, 0),
                                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        const QString outFa = tmp.filePath(QStringLiteral("out.fa"));
        w.setNextFileAnswer(outFa);
        menuAction(w, QStringLiteral("Selected Designs as &FASTA…"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(exported.count() > 0, 20000);
        QVERIFY(exported.last().at(1).toStringList().isEmpty());  // nothing had to change to fit FASTA
        QFile out(outFa);
        QVERIFY(out.open(QIODevice::ReadOnly));
        const QByteArray text = out.readAll();
        QCOMPARE(text.count('>'), 2);
        QVERIFY(text.contains("rank=1") && text.contains("rank=3"));
        const QString gb = tmp.filePath(QStringLiteral("out"));
        w.setNextFileAnswer(gb);
        menuAction(w, QStringLiteral("Design as &GenBank…"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(exported.count() > 1, 20000);
        QFile gbFile(gb + QStringLiteral(".gb"));  // the format's extension is added
        QVERIFY(gbFile.open(QIODevice::ReadOnly));
        QVERIFY(gbFile.readAll().startsWith("LOCUS"));

        // Save As: the copy is opened and holds everything.
        const QString copy = tmp.filePath(QStringLiteral("copy.carbon"));
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->saveProjectAs(copy);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        QCOMPARE(w.project()->path(), copy);
        auto p = st::Project::open(copy.toStdString(), {.create = false});
        QCOMPARE(p->count("sequences"), int64_t(5));
        QCOMPARE(p->count("designs"), int64_t(3));
        QCOMPARE(p->count("variants"), int64_t(1));
    }

    void damagedProjectIsReportedAndClosed() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("damaged.carbon"));
        {
            auto p = st::Project::open(path.toStdString());
            st::Run run;
            run.kind = "generate";
            const int64_t rid = p->begin_run(run);
            for (int i = 0; i < 200; ++i) {
                st::DesignRecord d;
                d.run_id = rid;
                d.name = "d" + std::to_string(i);
                d.bases = randomBases(300, quint32(i)).toStdString();
                st::Track t;
                t.kind = "logp";
                t.values.assign(300, -1.0f);
                p->add_design(d, {t});
            }
            sqlite3_exec(p->handle(), "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
        }
        {  // garbage over a few pages in the middle
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(4096 * 7 + 100);
            f.write(QByteArray(9000, '\x5a'));
        }
        MainWindow w;
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 0, 20000);
        QVERIFY2(errors.last().at(1).toString().contains(QStringLiteral("damaged.carbon")), qPrintable(errors.last().at(1).toString()));
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->path().isEmpty(), 20000);
    }

    // Issue 15: another program's database is refused and left as it was; a VCF goes onto the
    // open sequence by its id when another sequence has the same name; a run the project cannot
    // take (another program holds the write lock) is kept whole in a recovery project.
    void anotherProgramsFileIsRefusedUntouched() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("contacts.db"));
        {
            sqlite3* db = nullptr;
            sqlite3_open(path.toUtf8().constData(), &db);
            sqlite3_exec(db, "CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES('Ada');", nullptr, nullptr, nullptr);
            sqlite3_close(db);
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        MainWindow w;
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 0, 20000);
        const QString msg = errors.last().at(1).toString();
        QVERIFY2(msg.contains(QStringLiteral("not a Carbon Studio project")) && msg.contains(QStringLiteral("contacts")), qPrintable(msg));
        QVERIFY(w.project()->path().isEmpty());
        // ... and in a dialog over the window, with the same reason.
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("warningDialog"))) != nullptr && box->isVisible());
        QVERIFY2(box->text().contains(QStringLiteral("not a Carbon Studio project")), qPrintable(box->text()));
        box->accept();
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
    }

    // A project someone sent with a trigger of its own (issue 31): File > Open refuses it at the
    // top of the window with the reason, and the file is byte-identical afterwards.
    void aTamperedProjectIsRefusedAtTheTopOfTheWindow() {
        QTemporaryDir tmp;
        const QString path = ui_test::projectWithSequence(tmp.filePath(QStringLiteral("sent.carbon")), "alpha", 200, 9);
        {
            sqlite3* db = nullptr;
            sqlite3_open(path.toUtf8().constData(), &db);
            sqlite3_exec(db, "PRAGMA journal_mode = DELETE; CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM sequences; END;",
                         nullptr, nullptr, nullptr);
            sqlite3_close(db);
        }
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        MainWindow w;
        w.show();
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 0, 20000);
        QTRY_VERIFY(w.messageBar()->isVisible());
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("not a project this version can trust")) &&
                     w.messageBar()->text().contains(QStringLiteral("trigger 'wipe'")),
                 qPrintable(w.messageBar()->text()));
        QVERIFY(w.project()->path().isEmpty());
        // ... and in a dialog over the window, with the same reason.
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("warningDialog"))) != nullptr && box->isVisible());
        QVERIFY2(box->text().contains(QStringLiteral("trigger 'wipe'")), qPrintable(box->text()));
        box->accept();
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
    }

    void vcfGoesOntoTheOpenSequenceByIdWhenNamesRepeat() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("dup.carbon"));
        int64_t second = 0;
        {
            auto p = st::Project::open(path.toStdString());
            st::SequenceRecord s;
            s.name = "chr1";
            s.bases = "ACGTACGTAC";
            p->add_sequence(s);
            s.bases = "TTTTGGGGCC";
            second = p->add_sequence(s);
        }
        MainWindow w;
        QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(seqOpened.count() > 0, 20000);
        w.project()->openStoredSequence(second);
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->bases() == QByteArray("TTTTGGGGCC"), 20000);
        const QString vcf = tmp.filePath(QStringLiteral("v.vcf"));
        QVERIFY(writeFile(vcf, "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\nchr1\t1\trs1\tT\tC\n"));  // T: the second one's base
        QSignalSpy variants(w.project()->store(), &ProjectStore::variantsImported);
        w.setNextFileAnswer(vcf);
        menuAction(w, QStringLiteral("Import &VCF onto Current Sequence…"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(variants.count() > 0, 20000);
        QVERIFY2(variants.last().at(0).toString().contains(QStringLiteral("1 SNV")), qPrintable(variants.last().at(0).toString()));
        w.project()->closeProject();
        auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
        QCOMPARE(int(p->variants_of_sequence(second).size()), 1);
        QCOMPARE(int(p->variants_of_sequence(1).size()), 0);
    }

    void aRunTheProjectCannotTakeIsKeptWhole() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("locked.carbon"));
        auto holder = st::Project::open(path.toStdString());
        ProjectStore store;  // on this thread: its slots run as direct calls
        store.setWriteWait(2);
        QSignalSpy opened(&store, &ProjectStore::opened);
        QSignalSpy failed(&store, &ProjectStore::failed);
        QSignalSpy waiting(&store, &ProjectStore::waiting);
        store.open(path, false);
        QCOMPARE(opened.count(), 1);
        RunToStore run;
        run.number = 7;
        auto generated = std::make_shared<carbon::runs::GenerationRun>();
        generated->model_dir = tmp.filePath(QStringLiteral("model")).toStdString();
        generated->backend = "cpu";
        for (int i = 0; i < 3; ++i) {
            carbon::Design d;
            d.index = size_t(i);
            d.bases = randomBases(40, quint32(i)).toStdString();
            d.rank = i + 1;
            generated->result.designs.push_back(d);
        }
        run.run = generated;
        {
            st::Transaction held(*holder);  // another program's write, for longer than the store waits
            st::SequenceRecord s;
            s.name = "held";
            s.bases = "ACGT";
            holder->add_sequence(s);
            store.storeRun(run);
        }
        QCOMPARE(failed.count(), 1);
        const QString msg = failed.last().at(1).toString();
        QVERIFY2(msg.contains(QStringLiteral("did not finish within 2 s")) && msg.contains(QStringLiteral("kept whole in")), qPrintable(msg));
        QVERIFY(waiting.count() >= 1);
        QCOMPARE(holder->count("designs"), int64_t(0));
        const QString kept = msg.section(QStringLiteral("kept whole in "), 1).section(QStringLiteral(" (store it"), 0, 0);
        QVERIFY2(QFile::exists(kept), qPrintable(kept));
        auto recovered = st::Project::open(kept.toStdString(), {.create = false, .read_only = true});
        QCOMPARE(recovered->count("designs"), int64_t(3));
        QCOMPARE(QByteArray::fromStdString(recovered->list_designs()[0].bases), QByteArray::fromStdString(run.run->result.designs[0].bases));
    }

    // Order Selected Designs: the dialog checks the flanks as they are typed (the bad letter and
    // its position in the dialog, OK off), offers the plate only for IDT; the export writes the
    // selected designs as constructs, the same as carbon-cli project export (order_files.h).
    void ordersSelectedDesignsAsConstructs() {
        OrderDialog dialog(2, 0, {});
        dialog.upstreamEdit()->setText(QStringLiteral("ACGTN"));
        QVERIFY(!dialog.okButton()->isEnabled());
        QVERIFY2(dialog.problemLabel()->text().contains(QStringLiteral("upstream flank: position 5 is 'N'")),
                 qPrintable(dialog.problemLabel()->text()));
        dialog.upstreamEdit()->setText(QStringLiteral("acgtac"));
        dialog.downstreamEdit()->setText(QStringLiteral("GGCC"));
        QVERIFY(dialog.okButton()->isEnabled() && dialog.problemLabel()->text().isEmpty());
        QVERIFY(!dialog.plateCombo()->isEnabled());
        dialog.formatCombo()->setCurrentIndex(dialog.formatCombo()->findData(int(ExportFormat::IdtXlsx)));
        QVERIFY(dialog.plateCombo()->isEnabled() && dialog.fillCombo()->isEnabled());
        dialog.formatCombo()->setCurrentIndex(dialog.formatCombo()->findData(int(ExportFormat::ConstructsFasta)));

        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        writeProject(path, randomBases(500, 3));
        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && w.designs()->model()->rowCount() == 3, 20000);
        ExportRequest request = dialog.request();
        QCOMPARE(request.upstream, QStringLiteral("acgtac"));
        request.path = tmp.filePath(QStringLiteral("order.fa"));
        request.designIds = {w.designs()->model()->row(0).designId, w.designs()->model()->row(2).designId};
        QSignalSpy exported(w.project()->store(), &ProjectStore::exported);
        w.designs()->exportOrder(request);
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
        QFile f(request.path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QCOMPARE(lines.size(), 7);  // two records of 70 bases, each a header and two lines (wrapped at 60), then the last line break
        QVERIFY(lines[0].startsWith(">d0 design="));
        QCOMPARE(lines[1], QByteArray("ACGTAC") + QByteArray::fromStdString(w.designs()->model()->row(0).design.bases).left(54));
    }

    void withoutAProjectNothingIsStoredAndExportSaysWhy() {
        MainWindow w;
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.designs()->exportDesignsInteractive(ExportFormat::DesignsFasta);
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.last().at(1).toString().contains(QStringLiteral("open or create")));
        QVERIFY(w.project()->browser()->tree()->topLevelItemCount() == 0);
    }
};

QTEST_MAIN(TestProjectWindow)
#include "test_project_window.moc"
