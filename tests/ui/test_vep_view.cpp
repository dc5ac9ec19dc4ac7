// The Variant Effects dock: a carbon-cli vep result read back (and files that are not one
// refused with file and line), the table's status and text filters and numeric sorting (NA
// last), the plot of the selected row's contig, and activating a variant: its window comes from
// the result's reference (a relative name found beside the result) into the editor with the
// variant selected, and with a model loaded the Base Inspector opens on it with the alternative
// chosen; a variant that was not scored opens nothing and says why. Score Variants against the
// open project's sequences: rows equal to storage's scorer, stored as a run, opened on the
// stored sequence, and stopped with what was scored kept.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "carbon/model.h"
#include "carbon/runs/vep_run.h"
#include "carbon/storage/project.h"
#include "carbon/storage/vcf.h"
#include "carbon/support/common.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/vep_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/base_inspector.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"
#include "views/vep_view.h"

using namespace carbon::ui;

class TestVepView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QByteArray chr1_, chr2_;
    QString tsv_;

    static QByteArray fastaRecord(const char* name, const QByteArray& s) {
        QByteArray out = QByteArray(">") + name + "\n";
        for (qsizetype i = 0; i < s.size(); i += 60) out += s.mid(i, 60) + "\n";
        return out;
    }
    QByteArray row(const char* chrom, qint64 pos, const QByteArray& ref, const QByteArray& alt, const char* status, qint64 ws,
                   qint64 we, const char* site, const char* delta) const {
        const QByteArray w = ws ? QByteArray::number(ws) + "\t" + QByteArray::number(we) : QByteArray("NA\tNA");
        return QByteArray(chrom) + "\t" + QByteArray::number(pos) + "\t.\t" + ref + "\t" + alt + "\t" + status + "\t" + w + "\t" +
               site + "\t" + delta + "\tNA\t" + delta + "\n";
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        chr1_ = ui_test::randomBases(3000, 7);
        chr2_ = ui_test::randomBases(900, 8);
        QVERIFY(ui_test::writeFile(tmp_.filePath("ref.fa"), fastaRecord("chr1", chr1_) + fastaRecord("chr2", chr2_)));
        const char alt1 = chr1_[1499] == 'A' ? 'C' : 'A';
        QByteArray t = "##carbon-cli vep 0.1.0\n##model=tiny\n##reference=ref.fa\n##vcf=v.vcf.gz\n##window_bp=1000\n"
                       "##reverse_complement=0\n##tags=\n##regions=\n##yarn=\n##prefix_sharing=1\n"
                       "#chrom\tpos\tid\tref\talt\tstatus\twindow_start\twindow_end\tsite_log_odds\twindow_delta\twindow_delta_rc\twindow_delta_mean\n";
        t += row("chr1", 10, chr1_.mid(9, 1), "G", "window_clipped", 1, 509, "0.5", "-0.01");
        t += row("chr1", 1500, chr1_.mid(1499, 1), QByteArray(1, alt1), "ok", 1000, 1999, "1.25", "-0.04");
        t += row("chr1", 2000, chr1_.mid(1999, 3), chr1_.mid(1999, 1), "ok", 1501, 2500, "NA", "0.02");
        t += row("chr1", 2500, "A", "C", "ref_mismatch", 0, 0, "NA", "NA");
        t += row("chr2", 300, chr2_.mid(299, 1), chr2_.mid(299, 1) + "TT", "ok", 1, 800, "NA", "-0.3");
        t += row("chr2", 700, chr2_.mid(699, 1), "<DEL>", "symbolic_allele", 0, 0, "NA", "NA");
        t += row("chrUn", 5, "A", "C", "missing_contig", 0, 0, "NA", "NA");
        tsv_ = tmp_.filePath("scores.tsv");
        QVERIFY(ui_test::writeFile(tsv_, t));
    }

    void readsAResultAndRefusesOtherFiles() {
        const VepResult r = readVepResult(tsv_);
        QCOMPARE(r.rows.size(), qsizetype(7));
        QCOMPARE(r.reference, QStringLiteral("ref.fa"));
        QCOMPARE(r.windowBp, qint64(1000));
        QCOMPARE(r.statuses, (QStringList{"window_clipped", "ok", "ref_mismatch", "symbolic_allele", "missing_contig"}));
        QVERIFY(std::isnan(r.rows[2].site_log_odds));
        QCOMPARE(r.rows[1].site_log_odds, 1.25);
        QVERIFY(looksLikeVepResult(tsv_));
        const QString other = tmp_.filePath("other.tsv");
        QVERIFY(ui_test::writeFile(other, "chrom\tpos\n1\t2\n"));
        QVERIFY(!looksLikeVepResult(other));
        try {
            readVepResult(other);
            QFAIL("a TSV that is not a vep result was read");
        } catch (const carbon::Error& e) {
            QVERIFY2(QString(e.what()).contains(other + ":1: not a carbon-cli vep result"), e.what());
        }
        QFile in(tsv_);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray broken = in.readAll();
        broken.replace("\t1500\t", "\tfifteen\t");
        const QString bad = tmp_.filePath("bad.tsv");
        QVERIFY(ui_test::writeFile(bad, broken));
        try {
            readVepResult(bad);
            QFAIL("a row with a broken position was read");
        } catch (const carbon::Error& e) {
            QVERIFY2(QString(e.what()).contains(bad + ":13: field 2 (pos) is 'fifteen'"), e.what());
        }
    }

    void tableFiltersAndSortsNumbers() {
        VepView v;
        v.setResult(readVepResult(tsv_));
        QCOMPARE(v.proxy()->rowCount(), 7);
        v.statusFilter()->setCurrentIndex(v.statusFilter()->findData(QStringLiteral("scored")));
        QCOMPARE(v.proxy()->rowCount(), 4);
        v.statusFilter()->setCurrentIndex(v.statusFilter()->findData(QStringLiteral("ref_mismatch")));
        QCOMPARE(v.proxy()->rowCount(), 1);
        v.statusFilter()->setCurrentIndex(0);
        v.proxy()->setText(QStringLiteral("chr2"));
        QCOMPARE(v.proxy()->rowCount(), 2);
        v.proxy()->setText(QStringLiteral("chr1:15"));
        QCOMPARE(v.proxy()->rowCount(), 1);
        v.proxy()->setText({});
        // Δ mean ascending: -0.3, -0.04, -0.01, 0.02, then the three NA rows.
        v.table()->sortByColumn(VepTableModel::DeltaMean, Qt::AscendingOrder);
        auto delta = [&](int r) { return v.proxy()->index(r, VepTableModel::DeltaMean).data().toString(); };
        QCOMPARE(delta(0), QStringLiteral("-0.3"));
        QCOMPARE(delta(1), QStringLiteral("-0.04"));
        QCOMPARE(delta(3), QStringLiteral("0.02"));
        QCOMPARE(delta(4), QStringLiteral("NA"));
        QCOMPARE(delta(6), QStringLiteral("NA"));
    }

    void plotFollowsTheSelectedContig() {
        VepView v;
        v.setResult(readVepResult(tsv_));
        QCOMPARE(v.plottedContig(), QStringLiteral("chr1"));  // the first row's
        QCOMPARE(v.plottedPoints(), 3);                        // chr1's scored variants
        v.selectRow(4);
        QCOMPARE(v.plottedContig(), QStringLiteral("chr2"));
        QCOMPARE(v.plottedPoints(), 1);
    }

    void activatingAVariantOpensItsWindow() {
        MainWindow w;
        QSignalSpy opened(w.variantEffects(), &VepController::vepResultOpened);
        w.variantEffects()->openVepResult(tsv_);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        QCOMPARE(opened.first().at(1).toInt(), 7);
        QCOMPARE(w.variantEffects()->view()->model()->rowCount(), 7);

        // A variant that was not scored: nothing opens, the status bar says why.
        const QByteArray before = w.document()->bases();
        w.variantEffects()->openVepVariant(w.variantEffects()->view()->model()->row(3));
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("was not scored (ref_mismatch)")));
        QCOMPARE(w.document()->bases(), before);

        // The 3-base deletion at chr1:2000: its window [1501, 2500] from the reference (found
        // beside the result, as the name is relative), the deleted bases selected.
        QSignalSpy window(w.variantEffects(), &VepController::vepWindowOpened);
        w.variantEffects()->openVepVariant(w.variantEffects()->view()->model()->row(2));
        QTRY_COMPARE_WITH_TIMEOUT(window.count(), 1, 30000);
        QCOMPARE(window.first().at(0).toString(), QStringLiteral("chr1:1501-2500"));
        QCOMPARE(w.document()->bases(), chr1_.mid(1500, 1000));
        QCOMPARE(w.editor()->selectionStart(), qint64(2000 - 1501));
        QCOMPARE(w.editor()->selectionEnd(), qint64(2000 - 1501 + 3));
    }

    void withAModelTheInspectorOpensOnTheVariant() {
        const QString model = tmp_.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(model.toStdString(), {});
        MainWindow w;
        w.models()->load(model);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QSignalSpy opened(w.variantEffects(), &VepController::vepResultOpened);
        w.variantEffects()->openVepResult(tsv_);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        const VepRow snv = w.variantEffects()->view()->model()->row(1);  // chr1:1500, window [1000, 1999]
        emit w.variantEffects()->view()->variantActivated(snv);
        QTRY_COMPARE_WITH_TIMEOUT(w.analysis()->inspector()->position(), qint64(1500 - 1000), 60000);
        QCOMPARE(w.document()->bases(), chr1_.mid(999, 1000));
        QCOMPARE(w.analysis()->inspector()->selectedAlternative(), snv.alt.at(0));
    }

    // Score Variants: a VCF scored against the open project's sequences in the background, the
    // rows those of the variant-effect run's VepScorer (the scorer carbon-cli vep runs) for the same settings,
    // stored as a "vep" run linked to the sequences, shown in the dock; a row opens its stored
    // sequence with the variant inspected; Stop keeps the records done as a cancelled run.
    void scoresAVcfAgainstTheProject() {
        const QString model = tmp_.filePath(QStringLiteral("tiny_project"));
        carbon::make_test_model(model.toStdString(), {});
        const QString project = tmp_.filePath(QStringLiteral("p.carbon"));
        qint64 id1 = 0, id2 = 0;
        {
            auto p = carbon::storage::Project::open(project.toStdString());
            carbon::storage::SequenceRecord s;
            s.name = "chr1";
            s.bases = chr1_.toStdString();
            id1 = p->add_sequence(s);
            s.name = "chr2";
            s.bases = chr2_.toStdString();
            id2 = p->add_sequence(s);
        }
        const char a1 = chr1_[1499] == 'A' ? 'C' : 'A';
        QByteArray vcf = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n";
        vcf += "chr1\t1500\trs1\t" + chr1_.mid(1499, 1) + "\t" + QByteArray(1, a1) + "\n";
        vcf += "chr1\t2000\t.\t" + chr1_.mid(1999, 3) + "\t" + chr1_.mid(1999, 1) + "\n";
        vcf += "chr2\t300\t.\t" + chr2_.mid(299, 1) + "\t" + chr2_.mid(299, 1) + "TT\n";
        vcf += "chrUn\t5\t.\tA\tC\n";
        const QString vcfPath = tmp_.filePath(QStringLiteral("project.vcf"));
        QVERIFY(ui_test::writeFile(vcfPath, vcf));

        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->openProject(project);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.models()->load(model);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QSignalSpy finished(w.variantEffects(), &VepController::vepRunFinished);
        QSignalSpy shown(w.variantEffects(), &VepController::vepResultOpened);
        w.variantEffects()->scoreProjectVcf(vcfPath, 600, true);
        QVERIFY(w.variantEffects()->view()->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        const qint64 runId = finished.first().at(0).toLongLong();
        QVERIFY2(runId > 0, qPrintable(w.statusBar()->currentMessage()));
        QCOMPARE(finished.first().at(1).toLongLong(), qint64(4));
        QCOMPARE(finished.first().at(2).toBool(), false);
        QVERIFY(!w.variantEffects()->view()->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 20000);
        const VepTableModel* m = w.variantEffects()->view()->model();
        QCOMPARE(m->rowCount(), 4);
        QCOMPARE(m->result().runId, runId);

        // The same rows as the variant-effect run's VepScorer with the same settings, number for number.
        auto loaded = carbon::Model::load(model.toStdString());
        carbon::storage::SequenceSetGenome genome("g", {{"chr1", chr1_.toStdString()}, {"chr2", chr2_.toStdString()}});
        carbon::runs::VepSettings settings;
        settings.options.window_bp = 600;
        settings.options.reverse_complement = true;
        carbon::runs::VepScorer scorer(settings, *loaded, genome);
        carbon::storage::VcfReader reader(vcfPath.toStdString(), {});
        carbon::storage::VcfRecord rec;
        int i = 0;
        while (reader.next(rec))
            for (const carbon::storage::VepRow& want : scorer.score(rec)) {
                const VepRow& got = m->row(i++);
                QCOMPARE(got.status, want.status);
                QCOMPARE(got.window_start, want.window_start);
                // The run goes through the vep TSV: 9 significant digits, as carbon-cli writes them.
                auto g9 = [](double v) { return QByteArray::number(v, 'g', 9); };
                QCOMPARE(g9(got.window_delta_mean), g9(want.window_delta_mean));
                QCOMPARE(g9(got.window_delta_rc), g9(want.window_delta_rc));
                QCOMPARE(g9(got.site_log_odds), g9(want.site_log_odds));
                QCOMPARE(qint64(got.sequence_id), want.chrom == "chr1" ? id1 : want.chrom == "chr2" ? id2 : 0);
            }
        QCOMPARE(i, 4);
        QCOMPARE(m->row(3).status, std::string("missing_contig"));

        // Genome Browser: the stored run's scores as bigWig beside an IGV session; the run was
        // scored on the project's own sequences, so they are written beside it as the genome.
        QPushButton* exportButton = nullptr;
        for (QPushButton* b : w.variantEffects()->view()->findChildren<QPushButton*>())
            if (b->text().startsWith(QStringLiteral("Genome Browser"))) exportButton = b;
        QVERIFY(exportButton && exportButton->isEnabled());
        const QString session = tmp_.filePath(QStringLiteral("igv/session.xml"));
        QVERIFY(QDir().mkpath(tmp_.filePath(QStringLiteral("igv"))));
        QSignalSpy exported(w.project()->storeThread()->worker(), &ProjectStore::vepBrowserExported);
        w.setNextFileAnswer(session);
        exportButton->click();
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 20000);
        QCOMPARE(exported.first().at(3).toLongLong(), qint64(3));  // the three scored rows, one position each
        const QString bigwig = tmp_.filePath(QStringLiteral("igv/session.vep-run%1.bw").arg(runId));
        QCOMPARE(exported.first().at(2).toString(), bigwig);
        QVERIFY(QFileInfo(bigwig).size() > 0 && QFileInfo(tmp_.filePath(QStringLiteral("igv/session.fa"))).size() > 0);
        QFile xml(session);
        QVERIFY(xml.open(QIODevice::ReadOnly));
        const QByteArray text = xml.readAll();
        QVERIFY2(text.contains("genome=\"session.fa\"") && text.contains("path=\"session.vep-run"), text.constData());
        // Said in the dock, where the user asked for it, on a line of its own: the summary still
        // says which run the dock shows.
        QVERIFY2(w.variantEffects()->view()->message().contains(QStringLiteral("IGV session")),
                 qPrintable(w.variantEffects()->view()->message()));
        QVERIFY2(w.variantEffects()->view()->summary().contains(QStringLiteral("variant(s)")) &&
                     !w.variantEffects()->view()->summary().contains(QStringLiteral("IGV session")),
                 qPrintable(w.variantEffects()->view()->summary()));

        // The SNV opens chr1 itself, the inspector on the variant with its alternative.
        emit w.variantEffects()->view()->variantActivated(m->row(0));
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->currentSequenceId(), id1, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.analysis()->inspector()->position(), qint64(1499), 60000);
        QCOMPARE(w.analysis()->inspector()->selectedAlternative(), a1);
        // The insertion on chr2: that sequence, the reference base selected.
        emit w.variantEffects()->view()->variantActivated(m->row(2));
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->currentSequenceId(), id2, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(w.editor()->selectionStart(), qint64(299), 20000);

        // Stop: a long VCF stopped at once keeps what was scored as a cancelled run (or nothing,
        // when it stopped before the first record), and says which.
        QByteArray many = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n";
        for (int p = 100; p < 2900; p += 3) many += "chr1\t" + QByteArray::number(p) + "\t.\t" + chr1_.mid(p - 1, 1) + "\t" + (chr1_[p - 1] == 'G' ? "T" : "G") + "\n";
        const QString manyPath = tmp_.filePath(QStringLiteral("many.vcf"));
        QVERIFY(ui_test::writeFile(manyPath, many));
        finished.clear();
        w.variantEffects()->scoreProjectVcf(manyPath, 2000, false);
        QTRY_VERIFY_WITH_TIMEOUT(w.variantEffects()->view()->isRunning(), 5000);
        QTest::qWait(300);
        w.variantEffects()->stopScoringVcf();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().at(2).toBool(), true);
        QVERIFY(finished.first().at(1).toLongLong() < 933);  // of 934 records
        // Said in the run log (the status bar may have moved on to another message by now).
        const auto* log = w.findChild<RunLog*>();
        QVERIFY(log && log->toPlainText().contains(QStringLiteral("stopped")));
    }
};

QTEST_MAIN(TestVepView)
#include "test_vep_view.moc"
