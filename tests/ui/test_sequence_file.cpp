// Opening a sequence file in the editor refuses what carbon-cli refuses, with the same
// FILE:LINE:COL messages, and never concatenates records or lets junk through as bases; a refused
// file leaves the editor's sequence as it was.
#include <sys/stat.h>

#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <zlib.h>

#include "carbon/support/common.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "document/sequence_file.h"
#include "main_window.h"
#include "ui_test_support.h"

using namespace carbon::ui;

namespace {
QString errorOf(const QString& path) {
    try {
        readSequenceFile(path);
    } catch (const carbon::Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
}  // namespace

class TestSequenceFile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void readsFastaAndBareBases() {
        QTemporaryDir tmp;
        const QString multi = tmp.filePath(QStringLiteral("multi.fa"));
        QVERIFY(ui_test::writeFile(multi, ">first desc\nACGTN\nacgt\n>second\nTTTT\n>third\nGG\n"));
        SequenceFile f = readSequenceFile(multi);
        QCOMPARE(f.bases, QByteArray("ACGTNACGT"));  // the first record only, upper-cased
        QCOMPARE(f.records, 3);
        QCOMPARE(f.name, QStringLiteral("first"));
        const QString bare = tmp.filePath(QStringLiteral("bare.txt"));
        QVERIFY(ui_test::writeFile(bare, "ACGT ACGT\r\nRYKM\r\n"));
        f = readSequenceFile(bare);
        QCOMPARE(f.bases, QByteArray("ACGTACGTRYKM"));
        const QString gz = tmp.filePath(QStringLiteral("x.fa.gz"));
        gzFile g = gzopen(gz.toLocal8Bit().constData(), "wb");
        gzputs(g, ">gz\nACCA\n");
        gzclose(g);
        QCOMPARE(readSequenceFile(gz).bases, QByteArray("ACCA"));
    }
    void refusesWithFileLineColumn() {
        QTemporaryDir tmp;
        const QString junk = tmp.filePath(QStringLiteral("junk.txt"));
        QVERIFY(ui_test::writeFile(junk, "ACGT\nAC1GT\n"));
        QString e = errorOf(junk);
        QVERIFY2(e.contains(junk + QStringLiteral(":2:3")) && e.contains(QStringLiteral("'1'")), qPrintable(e));
        const QString binary = tmp.filePath(QStringLiteral("binary.bin"));
        QVERIFY(ui_test::writeFile(binary, QByteArray("AC\x00\x01GT", 6)));
        e = errorOf(binary);
        QVERIFY2(e.contains(QStringLiteral(":1:3")) && e.contains(QStringLiteral("byte 0x00")), qPrintable(e));
        const QString empty = tmp.filePath(QStringLiteral("empty.txt"));
        QVERIFY(ui_test::writeFile(empty, "\n\n"));
        QVERIFY(errorOf(empty).contains(QStringLiteral("no bases")));
        const QString fifo = tmp.filePath(QStringLiteral("pipe"));
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        e = errorOf(fifo);
        QVERIFY2(e.contains(QStringLiteral("not a regular file")), qPrintable(e));
        QVERIFY(!errorOf(tmp.filePath(QStringLiteral("missing.fa"))).isEmpty());
    }
    void windowKeepsItsSequenceOnARefusedFile() {
        QTemporaryDir tmp;
        MainWindow w;
        w.document()->setBases("ACGTACGT");
        const QString junk = tmp.filePath(QStringLiteral("junk.fa"));
        QVERIFY(ui_test::writeFile(junk, ">ok\nACGT\nAC*GT\n"));
        QVERIFY(!w.project()->openSequenceFile(junk));
        QCOMPARE(w.document()->bases(), QByteArray("ACGTACGT"));
        const QString shown = w.statusBar()->currentMessage();
        QVERIFY2(shown.contains(junk) && shown.contains(QStringLiteral(":3:")), qPrintable(shown));
    }
};

QTEST_MAIN(TestSequenceFile)
#include "test_sequence_file.moc"
