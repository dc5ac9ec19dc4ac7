// Transcription-factor hits in the application: a JASPAR file loaded with a p-value threshold,
// its hits framed in the editor at the positions and strands the engine's scan gives (what
// carbon-cli motifs scan reports), rescanned after an edit, counted per design in the designs
// table (with a tooltip per matrix); a malformed file refused with its line; Clear Motifs.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "carbon/motif.h"
#include "design_table_model.h"
#include "main_window.h"
#include "motif_set.h"
#include "sequence_document.h"
#include "sequence_editor.h"
#include "ui_test_support.h"

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
        w.designs()->addRow(row);
        row.design.bases = "GGGGGGGGGG";
        w.designs()->addRow(row);
        QSignalSpy scanned(&w, &MainWindow::motifsScanned);
        w.loadMotifs(jaspar_, 1e-4);
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
        const DesignTableModel* m = w.designs();
        QCOMPARE(m->data(m->index(0, DesignTableModel::MotifHitsColumn)).toInt(), 2);
        QVERIFY(m->data(m->index(0, DesignTableModel::MotifHitsColumn), Qt::ToolTipRole).toString().contains(QStringLiteral("TATAlike: 2 hit")));
        QCOMPARE(m->data(m->index(1, DesignTableModel::MotifHitsColumn)).toInt(), 0);

        // An edit before the hits: cleared at once, rescanned shifted.
        w.document()->insert(0, "CCCCC");
        QTRY_COMPARE_WITH_TIMEOUT(scanned.count(), 2, 20000);
        bool shifted = false;
        for (const auto& f : w.editor()->motifFrames()) shifted |= f.start == 105 && f.strand == '+';
        QVERIFY(shifted);

        w.clearMotifs();
        QVERIFY(w.editor()->motifFrames().isEmpty());
        QCOMPARE(m->data(m->index(0, DesignTableModel::MotifHitsColumn)).toString(), QString());
    }

    void aMalformedFileIsRefusedWithItsLine() {
        const QString bad = tmp_.filePath(QStringLiteral("bad.jaspar"));
        QVERIFY(ui_test::writeFile(bad, ">MA1 x\nA [ 1 2 ]\nC [ 1 ]\nG [ 1 2 ]\nT [ 1 2 ]\n"));
        MainWindow w;
        w.loadMotifs(bad, 1e-4);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().contains(QStringLiteral("Cannot read motifs")), 20000);
        QVERIFY2(w.statusBar()->currentMessage().contains(bad + QStringLiteral(":")), qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(!w.motifs());
    }
};

QTEST_MAIN(TestMotifHits)
#include "test_motif_hits.moc"
