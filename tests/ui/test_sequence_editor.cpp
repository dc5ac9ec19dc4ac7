// The editor on a 1 Mbp sequence: layout, hit testing, edits at the far end, GC of a large
// selection, and a viewport paint whose time does not grow with the sequence length.
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QTest>
#include <QUndoStack>

#include "document/sequence_document.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

namespace {

QByteArray randomBases(qsizetype n, quint32 seed) {
    QRandomGenerator rng(seed);
    QByteArray b(n, 'A');
    for (qsizetype i = 0; i < n; ++i) b[i] = "ACGT"[rng.bounded(4)];
    return b;
}

// Median time of painting the whole viewport, in microseconds.
qint64 paintMicros(SequenceEditor& editor) {
    QImage image(editor.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    QList<qint64> times;
    for (int i = 0; i < 15; ++i) {
        QElapsedTimer t;
        t.start();
        editor.viewport()->render(&image);
        times << t.nsecsElapsed() / 1000;
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

class TestSequenceEditor : public QObject {
    Q_OBJECT
private slots:
    void megabaseModel() {
        SequenceDocument doc;
        doc.setBases(randomBases(1'000'000, 1));
        QUndoStack& stack = *doc.undoStack();
        SequenceEditor editor(&doc);
        editor.resize(900, 600);
        QVERIFY(editor.basesPerLine() >= 10);
        QCOMPARE(editor.basesPerLine() % 10, 0);
        editor.setSelection(999'990, 1'000'000);
        QVERIFY(editor.verticalScrollBar()->value() > 0);
        editor.insertBases("GGGG");  // replaces the last 10 bases
        QCOMPARE(doc.size(), 999'994);
        QCOMPARE(doc.bases().right(4), QByteArray("GGGG"));
        stack.undo();
        QCOMPARE(doc.size(), 1'000'000);
        const double gc = doc.gcFraction(0, doc.size());
        QVERIFY(gc > 0.49 && gc < 0.51);
        editor.selectAll();
        QCOMPARE(editor.selectionEnd() - editor.selectionStart(), 1'000'000);
    }
    void paintTimeIndependentOfLength() {
        SequenceDocument small, large;
        small.setBases(randomBases(2'000, 2));
        large.setBases(randomBases(1'000'000, 3));
        SequenceEditor a(&small), b(&large);
        a.resize(900, 600);
        b.resize(900, 600);
        a.setShowTokenBoundaries(true);
        b.setShowTokenBoundaries(true);
        b.setSelection(500'000, 500'400);  // mid-sequence, with a selection painted
        a.setSelection(100, 500);
        paintMicros(a);  // warm up glyph caches
        const qint64 ta = paintMicros(a), tb = paintMicros(b);
        qInfo("viewport paint: 2 kbp %lld us, 1 Mbp %lld us", ta, tb);
        // Same number of visible letters: equal within noise, never proportional to length (500x).
        QVERIFY2(tb < 3 * ta + 2000, qPrintable(QStringLiteral("%1 us vs %2 us").arg(tb).arg(ta)));
    }
    void oovAndPaddedTokensFlagged() {
        SequenceDocument doc;
        doc.setBases("ACGTACGTNNACGTAGG");  // tokens 1-6, 7-12 (holds N), 13-17 (5 bases: padded)
        SequenceEditor editor(&doc);
        QCOMPARE(editor.tokenFlagAt(0), SequenceEditor::TokenFlag::None);
        QCOMPARE(editor.tokenFlagAt(5), SequenceEditor::TokenFlag::None);
        QCOMPARE(editor.tokenFlagAt(6), SequenceEditor::TokenFlag::Oov);  // the whole token, not only the N
        QCOMPARE(editor.tokenFlagAt(11), SequenceEditor::TokenFlag::Oov);
        QCOMPARE(editor.tokenFlagAt(12), SequenceEditor::TokenFlag::Padded);
        QCOMPARE(editor.tokenFlagAt(16), SequenceEditor::TokenFlag::Padded);
        QCOMPARE(editor.tokenFlagAt(17), SequenceEditor::TokenFlag::None);  // past the end
        doc.setBases("ACGTACGTNNACGTAGGC");  // 18 bases: no padding any more
        QCOMPARE(editor.tokenFlagAt(12), SequenceEditor::TokenFlag::None);
    }
    void mouseSelection() {
        SequenceDocument doc;
        doc.setBases(randomBases(5'000, 4));
        SequenceEditor editor(&doc);
        editor.resize(900, 600);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QTest::mousePress(editor.viewport(), Qt::LeftButton, {}, QPoint(200, 30));
        QTest::mouseMove(editor.viewport(), QPoint(400, 100));
        QTest::mouseRelease(editor.viewport(), Qt::LeftButton, {}, QPoint(400, 100));
        QVERIFY(editor.hasSelection());
        QVERIFY(editor.selectionEnd() - editor.selectionStart() > editor.basesPerLine());
        QTest::keyClick(&editor, Qt::Key_Right, Qt::ShiftModifier);
        QTest::keyClick(&editor, Qt::Key_End, Qt::ControlModifier);
        QCOMPARE(editor.cursorPosition(), 5'000);
    }
};

QTEST_MAIN(TestSequenceEditor)
#include "test_sequence_editor.moc"
