// Undo/redo of each sequence edit command, and the editor pushing them for typing, deleting,
// pasting over a selection, reverse-complement copy and IUPAC find.
#include <QApplication>
#include <QClipboard>
#include <QTest>
#include <QUndoStack>

#include "document/commands/insert_bases_command.h"
#include "document/commands/remove_bases_command.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

class TestEditCommands : public QObject {
    Q_OBJECT
private slots:
    void insertUndoRedo() {
        SequenceDocument doc;
        doc.setBases("AAAA");
        QUndoStack stack;
        stack.push(new InsertBasesCommand(&doc, 2, "CG"));
        QCOMPARE(doc.bases(), QByteArray("AACGAA"));
        stack.undo();
        QCOMPARE(doc.bases(), QByteArray("AAAA"));
        stack.redo();
        QCOMPARE(doc.bases(), QByteArray("AACGAA"));
    }
    void typedBasesMergeIntoOneStep() {
        SequenceDocument doc;
        QUndoStack stack;
        stack.push(new InsertBasesCommand(&doc, 0, "A"));
        stack.push(new InsertBasesCommand(&doc, 1, "C"));
        stack.push(new InsertBasesCommand(&doc, 2, "G"));
        QCOMPARE(stack.count(), 1);
        stack.undo();
        QCOMPARE(doc.size(), 0);
    }
    void removeUndoRedo() {
        SequenceDocument doc;
        doc.setBases("ACGTACGT");
        QUndoStack stack;
        stack.push(new RemoveBasesCommand(&doc, 1, 3));
        QCOMPARE(doc.bases(), QByteArray("AACGT"));
        stack.undo();
        QCOMPARE(doc.bases(), QByteArray("ACGTACGT"));
        stack.redo();
        QCOMPARE(doc.bases(), QByteArray("AACGT"));
    }
    void replaceUndoRedo() {
        SequenceDocument doc;
        doc.setBases("ACGTACGT");
        QUndoStack stack;
        stack.push(new ReplaceBasesCommand(&doc, 2, 4, "TTTTTT"));
        QCOMPARE(doc.bases(), QByteArray("ACTTTTTTGT"));
        stack.undo();
        QCOMPARE(doc.bases(), QByteArray("ACGTACGT"));
        stack.redo();
        QCOMPARE(doc.bases(), QByteArray("ACTTTTTTGT"));
    }
    void editorPushesCommands() {
        SequenceDocument doc;
        doc.setBases("ACGTACGTAC");
        QUndoStack& stack = *doc.undoStack();
        SequenceEditor editor(&doc);
        editor.resize(600, 300);
        editor.setSelection(2, 4);
        QTest::keyClick(&editor, Qt::Key_N);  // replaces the selection
        QCOMPARE(doc.bases(), QByteArray("ACNACGTAC"));
        QTest::keyClick(&editor, Qt::Key_Backspace);
        QCOMPARE(doc.bases(), QByteArray("ACACGTAC"));
        QTest::keyClicks(&editor, "gg");  // lower case is upper-cased
        QCOMPARE(doc.bases(), QByteArray("ACGGACGTAC"));
        QTest::keyClick(&editor, Qt::Key_1);  // not a base: ignored
        QCOMPARE(doc.size(), 10);
        stack.undo();  // "GG" (merged)
        stack.undo();  // backspace
        stack.undo();  // replace
        QCOMPARE(doc.bases(), QByteArray("ACGTACGTAC"));
        QCOMPARE(stack.count(), 3);
    }
    void clipboardAndFind() {
        SequenceDocument doc;
        doc.setBases("AAGAATTCAA");
        QUndoStack& stack = *doc.undoStack();
        SequenceEditor editor(&doc);
        editor.resize(600, 300);
        QVERIFY(editor.findNext("GAWTTC"));
        QCOMPARE(editor.selectionStart(), 2);
        QCOMPARE(editor.selectionEnd(), 8);
        editor.setSelection(0, 3);
        editor.copyReverseComplement();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("CTT"));
        QApplication::clipboard()->setText(QStringLiteral(">x\nac gt\n"));
        editor.setSelection(0, 2);
        editor.paste();
        QCOMPARE(doc.bases(), QByteArray("ACGTGAATTCAA"));
        stack.undo();
        QCOMPARE(doc.bases(), QByteArray("AAGAATTCAA"));
        QVERIFY(!editor.findNext("QQ"));
    }
};

QTEST_MAIN(TestEditCommands)
#include "test_edit_commands.moc"
