// Transcription-factor hits in the application: a JASPAR file loaded with a p-value threshold,
// its hits framed in the editor at the positions and strands the engine's scan gives (what
// carbon-cli motifs scan reports), rescanned after an edit, counted per design in the designs
// table (with a tooltip per matrix); the loaded matrices required or forbidden in generation; a
// malformed file refused with its line; Clear Motifs. Restriction sites by enzyme name, framed the
// same way beside the hits.
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "carbon/motifs/enzymes.h"
#include "carbon/motifs/motif.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/motif_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/message_bar.h"
#include "views/sequence_editor.h"
#include "workers/motif_set.h"

using namespace carbon::ui;

class TestMotifHits : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString jaspar_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        // A TATA-box-like matrix: T A T A A A A, strongly.
        jaspar_ = tmp_.filePath(QStringLiteral("tata.jaspar"));
        QVERIFY(ui_test::writeFile(jaspar_, ">MA9999.1 TATAlike\n"
                                            "A [ 1 30  1 30 30 30 30 ]\n"
                                            "C [ 1  0  1  0  0  0  0 ]\n"
                                            "G [ 1  0  1  0  0  0  0 ]\n"
                                            "T [30  1 30  1  1  1  1 ]\n"));
    }

    void hitsAreFramedCountedAndRescanned() {
        QByteArray bases = ui_test::randomBases(600, 21);
        bases.replace(100, 7, "TATAAAA");
        bases.replace(300, 7, "TTTTATA");  // the reverse complement
        MainWindow w;
        w.document()->setBases(bases);
        DesignRow row;
        row.design.bases = "GGGTATAAAAGGGTATAAAACC";
        w.designs()->model()->addRow(row);
        row.design.bases = "GGGGGGGGGG";
        w.designs()->model()->addRow(row);
        QSignalSpy scanned(w.motifs(), &MotifController::motifsScanned);
        w.motifs()->loadMotifs(jaspar_, 1e-4);
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 1, 20000);

        // The frames are the engine's scan, position for position.
        const auto motifs = carbon::read_motifs(jaspar_.toStdString());
        const carbon::Pssm pssm = carbon::make_pssm(motifs[0], carbon::uniform_background(), 0.5);
        const carbon::ScoreDistribution dist(pssm);
        const auto want = carbon::scan_motif(pssm, dist, std::string_view(bases.constData(), size_t(bases.size())), 1e-4);
        const auto& frames = w.editor()->motifFrames();
        QCOMPARE(frames.size(), qsizetype(want.size()));
        bool plus = false, minus = false;
        for (qsizetype i = 0; i < frames.size(); ++i) {
            QCOMPARE(frames[i].start, qsizetype(want[size_t(i)].start));
            QCOMPARE(frames[i].end, qsizetype(want[size_t(i)].start + 7));
            QCOMPARE(frames[i].strand, want[size_t(i)].strand);
            QVERIFY(frames[i].label.contains(QStringLiteral("TATAlike")));
            plus |= frames[i].start == 100 && frames[i].strand == '+';
            minus |= frames[i].start == 300 && frames[i].strand == '-';
        }
        QVERIFY(plus && minus);
        QCOMPARE(scanned.first().at(0).toInt(), int(frames.size()));

        // Designs: hits per matrix, the total in the column.
        const DesignTableModel* m = w.designs()->model();
        QCOMPARE(m->data(m->index(0, DesignTableModel::MotifHitsColumn)).toInt(), 2);
        QVERIFY(m->data(m->index(0, DesignTableModel::MotifHitsColumn), Qt::ToolTipRole).toString().contains(QStringLiteral("TATAlike: 2 hit")));
        QCOMPARE(m->data(m->index(1, DesignTableModel::MotifHitsColumn)).toInt(), 0);

        // An edit before the hits: cleared at once, rescanned shifted.
        w.document()->insert(0, "CCCCC");
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 2, 20000);
        bool shifted = false;
        for (const auto& f : w.editor()->motifFrames()) shifted |= f.start == 105 && f.strand == '+';
        QVERIFY(shifted);

        w.motifs()->clearMotifs();
        QVERIFY(w.editor()->motifFrames().isEmpty());
        QCOMPARE(m->data(m->index(0, DesignTableModel::MotifHitsColumn)).toString(), QString());
    }

    // Restriction sites by enzyme name: framed where the engine's enzyme_sites finds them (the
    // table Bio.Restriction is held to), both strands, beside the matrix hits; a name that is not
    // an enzyme is refused with the suggestion and changes nothing; an edit rescans; "" clears.
    void restrictionSitesAreFramedByName() {
        QByteArray bases = ui_test::randomBases(600, 33);
        for (const char* site : {"GAATTC", "GGTCTC", "GAGACC", "CGTCTC", "GAGACG"})  // strip chance sites of the three
            for (qsizetype at; (at = bases.indexOf(site)) >= 0;) bases[at] = bases[at] == 'A' ? 'C' : 'A';
        bases.replace(100, 6, "GAATTC");  // EcoRI
        bases.replace(300, 6, "GGTCTC");  // BsaI, + strand
        bases.replace(400, 6, "GAGACC");  // BsaI, - strand
        bases.replace(200, 7, "TATAAAA");
        MainWindow w;
        w.document()->setBases(bases);
        QSignalSpy scanned(w.motifs(), &MotifController::motifsScanned);
        w.motifs()->loadMotifs(jaspar_, 1e-4);
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 1, 20000);
        const qsizetype tfHits = w.editor()->motifFrames().size();
        QVERIFY(tfHits >= 1);

        QCOMPARE(w.motifs()->showEnzymeSites(QStringLiteral("EcoRI, BsaI BsmBI")), QString());
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 2, 20000);
        QCOMPARE(w.motifs()->enzymeNames(), (QStringList{QStringLiteral("EcoRI"), QStringLiteral("BsaI"), QStringLiteral("BsmBI")}));
        const auto want = [&](const QByteArray& seq) {
            QVector<QPair<qsizetype, char>> sites;
            for (const char* name : {"EcoRI", "BsaI", "BsmBI"})
                for (const carbon::EnzymeSite& s : carbon::enzyme_sites(*carbon::EnzymeTable::builtin().find(name),
                                                                         std::string_view(seq.constData(), size_t(seq.size()))))
                    sites.append({qsizetype(s.start), s.reverse ? '-' : '+'});
            return sites;
        };
        auto framedSites = [&] {
            QVector<QPair<qsizetype, char>> got;
            for (const auto& f : w.editor()->motifFrames())
                if (f.label.contains(QStringLiteral(" site "))) got.append({f.start, f.strand});
            return got;
        };
        auto sorted = [](QVector<QPair<qsizetype, char>> v) {
            std::sort(v.begin(), v.end());
            return v;
        };
        QCOMPARE(sorted(framedSites()), sorted(want(bases)));
        QCOMPARE(sorted(framedSites()), (QVector<QPair<qsizetype, char>>{{100, '+'}, {300, '+'}, {400, '-'}}));
        QCOMPARE(w.editor()->motifFrames().size(), tfHits + 3);  // beside the matrix hits
        for (const auto& f : w.editor()->motifFrames())
            if (f.start == 400 && f.label.contains(QStringLiteral(" site "))) QVERIFY(f.label.startsWith(QStringLiteral("BsaI site GGTCTC (- strand)")));

        // Not an enzyme: refused with the right spelling, nothing changed.
        const QString why = w.motifs()->showEnzymeSites(QStringLiteral("EcoRI, bsai"));
        QVERIFY2(why.contains(QStringLiteral("BsaI")), qPrintable(why));
        QCOMPARE(w.motifs()->enzymeNames().size(), 3);

        // An edit before the sites: rescanned, shifted.
        w.document()->insert(0, "CC");
        QTRY_VERIFY_WITH_TIMEOUT(sorted(framedSites()) == sorted(want(w.document()->bases())) && framedSites().size() == 3 &&
                                     sorted(framedSites()).first().first == 102,
                                 20000);

        QCOMPARE(w.motifs()->showEnzymeSites(QString()), QString());
        QVERIFY(framedSites().isEmpty());
        QCOMPARE(w.editor()->motifFrames().size(), tfHits);  // the matrix hits stay
    }

    // The loaded matrices as generation constraints: the panel offers them once loaded; "require"
    // with a span gives designs that each hold a hit there (framed by the same scan), "forbid"
    // designs with none; Clear Motifs takes the offer back.
    void loadedMatricesConstrainGeneration() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        MainWindow w;
        GenerationPanel* g = w.generation()->panel();
        QVERIFY(!g->matrixUseCombo()->isEnabled());
        w.document()->setBases(ui_test::randomBases(300, 8));
        QSignalSpy scanned(w.motifs(), &MotifController::motifsScanned);
        w.motifs()->loadMotifs(jaspar_, 1e-3);
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 1, 20000);
        QVERIFY(g->matrixUseCombo()->isEnabled());
        const int require = g->matrixUseCombo()->findText(QStringLiteral("require MA9999.1 TATAlike"), Qt::MatchStartsWith);
        QVERIFY(require > 0);
        g->matrixUseCombo()->setCurrentIndex(require);
        QVERIFY(g->requiredFromSpin()->isEnabled());
        g->requiredFromSpin()->setValue(11);
        g->requiredToSpin()->setValue(30);
        g->lengthSpin()->setValue(40);
        g->countSpin()->setValue(12);

        carbon::DesignRequest req;
        QString error;
        QVERIFY2(g->buildRequest(req, error), qPrintable(error));
        QCOMPARE(req.constraints.required_matrices.size(), size_t(1));
        const auto& rm = req.constraints.required_matrices[0];
        QCOMPARE(rm.from, size_t(10));
        QCOMPARE(rm.to, size_t(30));
        QCOMPARE(rm.max_pvalue, 1e-3);
        QCOMPARE(rm.label, std::string("MA9999.1 TATAlike"));

        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        w.editor()->setSelection(100, 140);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 60000);
        QCOMPARE(w.designs()->model()->rowCount(), 12);
        for (int r = 0; r < 12; ++r) {
            const QByteArray bases = QByteArray::fromStdString(w.designs()->model()->row(r).design.bases);
            bool inside = false;
            for (const MotifMark& h : w.motifs()->set()->scan(bases)) inside |= h.start >= 10 && h.end <= 30;
            QVERIFY2(inside, bases.constData());
        }

        const int forbid = g->matrixUseCombo()->findText(QStringLiteral("forbid every loaded matrix"), Qt::MatchStartsWith);
        QVERIFY(forbid > 0);
        g->matrixUseCombo()->setCurrentIndex(forbid);
        QVERIFY(!g->requiredFromSpin()->isEnabled());
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 60000);
        QCOMPARE(w.designs()->model()->rowCount(), 24);
        for (int r = 12; r < 24; ++r)
            QVERIFY(w.motifs()->set()->scan(QByteArray::fromStdString(w.designs()->model()->row(r).design.bases)).isEmpty());

        // A reversed span is refused by name; Clear Motifs withdraws the matrices.
        g->matrixUseCombo()->setCurrentIndex(require);
        g->requiredFromSpin()->setValue(30);
        g->requiredToSpin()->setValue(11);
        QVERIFY(!g->buildRequest(req, error));
        QVERIFY(error.contains(QStringLiteral("span is empty")));
        w.motifs()->clearMotifs();
        QVERIFY(!g->matrixUseCombo()->isEnabled());
        carbon::DesignRequest plain;
        QVERIFY(g->buildRequest(plain, error));
        QVERIFY(plain.constraints.required_matrices.empty() && plain.constraints.forbidden_matrices.empty());
    }

    void aMalformedFileIsRefusedWithItsLine() {
        const QString bad = tmp_.filePath(QStringLiteral("bad.jaspar"));
        QVERIFY(ui_test::writeFile(bad, ">MA1 x\nA [ 1 2 ]\nC [ 1 ]\nG [ 1 2 ]\nT [ 1 2 ]\n"));
        MainWindow w;
        w.show();
        w.motifs()->loadMotifs(bad, 1e-4);
        QTRY_VERIFY_WITH_TIMEOUT(w.messageBar()->text().contains(QStringLiteral("Cannot read motifs")), 20000);
        QVERIFY2(w.messageBar()->text().contains(bad + QStringLiteral(":")), qPrintable(w.messageBar()->text()));
        QVERIFY(!w.motifs()->set());
    }

    // The threshold as typed: scientific notation or decimals, refused with the reason otherwise.
    void thePvalueIsReadAsTypedAndRefusedWithTheRange() {
        double p = 0;
        QVERIFY(parsePvalue(QStringLiteral("1e-4"), p).isEmpty());
        QCOMPARE(p, 1e-4);
        QVERIFY(parsePvalue(QStringLiteral(" 0.001 "), p).isEmpty());
        QCOMPARE(p, 1e-3);
        QVERIFY(parsePvalue(QStringLiteral("abc"), p).contains(QStringLiteral("not a number")));
        QVERIFY(parsePvalue(QStringLiteral("0"), p).contains(QStringLiteral("at most 0.05")));
        QVERIFY(parsePvalue(QStringLiteral("0.5"), p).contains(QStringLiteral("at most 0.05")));
        QVERIFY(parsePvalue(QStringLiteral("nan"), p).contains(QStringLiteral("not a number")));
        QCOMPARE(p, 1e-3);  // unchanged by a refusal
    }

    // A 6-bp matrix cannot reach p <= 1e-4 (at best 4^-6 = 2.4e-4): the window says so, naming it;
    // the 7-bp one beside it can, and is not named.
    void aMatrixThatCanNeverReachTheThresholdIsNamed() {
        const QString two = tmp_.filePath(QStringLiteral("short.jaspar"));
        QVERIFY(ui_test::writeFile(two, ">MA0001.1 SHORT6\n"
                                        "A [ 30 1 1 1 30 1 ]\nC [ 1 30 1 1 1 1 ]\nG [ 1 1 30 1 1 1 ]\nT [ 1 1 1 30 1 30 ]\n"
                                        ">MA9999.1 TATAlike\n"
                                        "A [ 1 30  1 30 30 30 30 ]\nC [ 1  0  1  0  0  0  0 ]\nG [ 1  0  1  0  0  0  0 ]\nT [30  1 30  1  1  1  1 ]\n"));
        MainWindow w;
        w.show();
        w.document()->setBases(ui_test::randomBases(300, 4));
        w.motifs()->loadMotifs(two, 1e-4);
        QTRY_VERIFY_WITH_TIMEOUT(w.messageBar()->text().contains(QStringLiteral("never")), 20000);
        const QString text = w.messageBar()->text();
        QVERIFY2(text.contains(QStringLiteral("1 of the 2 matrices can never have a hit at p ≤ 0.0001")) &&
                     text.contains(QStringLiteral("MA0001.1 SHORT6 (6 bp, at best p = 2.4e-04)")) && !text.contains(QStringLiteral("TATAlike")),
                 qPrintable(text));
        QVERIFY(w.motifs()->set());  // loaded all the same: the 7-bp matrix scans
        QVERIFY(w.motifs()->set()->bestPvalue(0) > 2.4e-4 && w.motifs()->set()->bestPvalue(0) < 2.5e-4);
    }
};

QTEST_MAIN(TestMotifHits)
#include "test_motif_hits.moc"
