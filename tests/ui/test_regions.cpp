// Regions in SequenceDocument: add/remove undo/redo, and shifting/clipping under base edits
// (with undo restoring them); the light/dark theme persisting in QSettings; the run log recording an error line.
#include <QApplication>
#include <QClipboard>
#include <functional>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include "document/commands/add_region_command.h"
#include "document/commands/insert_bases_command.h"
#include "document/commands/remove_bases_command.h"
#include "document/commands/remove_region_command.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "views/run_log.h"
#include "views/sequence_editor.h"
#include "views/theme.h"

using namespace carbon::ui;

namespace {
Region makeRegion(qsizetype start, qsizetype end, Region::Kind kind = Region::Kind::Design) {
    Region r;
    r.kind = kind;
    r.start = start;
    r.end = end;
    r.label = QStringLiteral("r");
    return r;
}
}  // namespace

class TestRegions : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // keep QSettings out of the user's files
        QCoreApplication::setOrganizationName(QStringLiteral("CarbonTestRegions"));
    }
    void themePersists() {
        applyTheme(Theme::Dark);
        QCOMPARE(savedTheme(), Theme::Dark);
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() < 128);
        applyTheme(Theme::Light);
        QCOMPARE(savedTheme(), Theme::Light);
        QVERIFY(QApplication::palette().color(QPalette::Base).lightness() >= 128);
        QSettings().remove(QStringLiteral("view/theme"));
    }
    void runLogRecordsError() {
        RunLog log;
        QVERIFY(log.isReadOnly());
        log.runStarted(3, QStringLiteral("2 design(s) of 100 bp"));
        log.runProgress(3, 50, 100, 12.5);
        log.runFailed(3, QStringLiteral("model not loaded"));
        const QStringList lines = log.toPlainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines.at(1).contains(QStringLiteral("50 %")));
        QVERIFY(lines.last().contains(QStringLiteral("Run 3 ERROR: model not loaded")));
        QVERIFY(lines.last().contains(QRegularExpression(QStringLiteral("^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} "))));
    }
    void addRemoveUndoRedo() {
        SequenceDocument doc;
        doc.setBases("ACGTACGTAC");
        QUndoStack stack;
        stack.push(new AddRegionCommand(&doc, makeRegion(2, 6)));
        QCOMPARE(doc.regions().size(), 1);
        QCOMPARE(doc.regionAt(3), 0);
        QCOMPARE(doc.regionAt(6), -1);
        stack.push(new RemoveRegionCommand(&doc, 0));
        QCOMPARE(doc.regions().size(), 0);
        stack.undo();
        QCOMPARE(doc.regions().size(), 1);
        QCOMPARE(doc.regions().at(0), makeRegion(2, 6));
        stack.undo();
        QCOMPARE(doc.regions().size(), 0);
        stack.redo();
        QCOMPARE(doc.regions().at(0), makeRegion(2, 6));
    }
    void editorActionsPushCommands() {
        SequenceDocument doc;
        doc.setBases("ACGTACGT");
        QUndoStack& stack = *doc.undoStack();
        SequenceEditor editor(&doc);
        editor.setSelection(2, 5);
        editor.addRegionFromSelection(Region::Kind::PinnedMotif);
        QCOMPARE(doc.regions().size(), 1);
        QCOMPARE(doc.regions().at(0).templ, QByteArray("GTA"));
        QVERIFY(editor.removeRegionAtCursor());
        QCOMPARE(doc.regions().size(), 0);
        stack.undo();
        QCOMPARE(doc.regions().size(), 1);
    }
    void insertShiftsAndGrows() {
        SequenceDocument doc;
        doc.setBases("ACGTACGTAC");
        QUndoStack stack;
        stack.push(new AddRegionCommand(&doc, makeRegion(4, 8)));
        stack.push(new InsertBasesCommand(&doc, 1, "GG"));  // before: shifts
        QCOMPARE(doc.regions().at(0).start, qsizetype(6));
        QCOMPARE(doc.regions().at(0).end, qsizetype(10));
        stack.push(new InsertBasesCommand(&doc, 8, "T"));  // inside: grows
        QCOMPARE(doc.regions().at(0).start, qsizetype(6));
        QCOMPARE(doc.regions().at(0).end, qsizetype(11));
        stack.push(new InsertBasesCommand(&doc, 11, "T"));  // just after: unchanged
        QCOMPARE(doc.regions().at(0).end, qsizetype(11));
        stack.undo();
        stack.undo();
        stack.undo();
        QCOMPARE(doc.regions().at(0), makeRegion(4, 8));
    }
    void removeClipsAndUndoRestores() {
        SequenceDocument doc;
        doc.setBases("ACGTACGTACGT");
        QUndoStack stack;
        stack.push(new AddRegionCommand(&doc, makeRegion(4, 8)));
        stack.push(new AddRegionCommand(&doc, makeRegion(9, 10, Region::Kind::PinnedMotif)));
        stack.push(new RemoveBasesCommand(&doc, 6, 4));  // clips the first, deletes the second
        QCOMPARE(doc.regions().size(), 1);
        QCOMPARE(doc.regions().at(0), makeRegion(4, 6));
        stack.undo();
        QCOMPARE(doc.regions().size(), 2);
        QCOMPARE(doc.regions().at(0), makeRegion(4, 8));
        QCOMPARE(doc.regions().at(1), makeRegion(9, 10, Region::Kind::PinnedMotif));
        stack.push(new RemoveBasesCommand(&doc, 0, 2));  // before: shifts left
        QCOMPARE(doc.regions().at(0), makeRegion(2, 6));
    }
    // Putting a design into its design region (same length) moves no region: the design region
    // and the pinned motif inside it stay; a longer or shorter replacement inside a region keeps
    // the region and moves its end.
    void replaceInsideRegionKeepsIt() {
        SequenceDocument doc;
        doc.setBases(QByteArray(100, 'A'));
        QUndoStack stack;
        stack.push(new AddRegionCommand(&doc, makeRegion(10, 40)));
        stack.push(new AddRegionCommand(&doc, makeRegion(20, 27, Region::Kind::PinnedMotif)));
        const QList<Region> before = doc.regions();
        stack.push(new ReplaceBasesCommand(&doc, 10, 30, QByteArray(30, 'C')));
        QCOMPARE(doc.regions(), before);
        stack.push(new ReplaceBasesCommand(&doc, 10, 30, QByteArray(36, 'G')));  // a longer design
        QCOMPARE(doc.regions().at(0), makeRegion(10, 46));
        QCOMPARE(doc.regions().size(), 1);  // the pinned motif's bases were replaced
        stack.undo();
        stack.undo();
        QCOMPARE(doc.regions(), before);
        QCOMPARE(doc.bases(), QByteArray(100, 'A'));
    }
    // Every command that changes bases, pushed, undone, redone and undone again: the bases and
    // the regions are exactly what they were at each step.
    void everyBaseChangeRoundTripsRegions() {
        struct Case {
            const char* name;
            std::function<QUndoCommand*(SequenceDocument*)> make;
        };
        const QList<Case> cases = {
            {"insert before", [](SequenceDocument* d) { return new InsertBasesCommand(d, 2, "GGG"); }},
            {"insert at a region start", [](SequenceDocument* d) { return new InsertBasesCommand(d, 10, "GG"); }},
            {"insert inside", [](SequenceDocument* d) { return new InsertBasesCommand(d, 22, "T"); }},
            {"remove across two regions", [](SequenceDocument* d) { return new RemoveBasesCommand(d, 35, 20); }},
            {"remove a whole region", [](SequenceDocument* d) { return new RemoveBasesCommand(d, 48, 15); }},
            {"remove everything", [](SequenceDocument* d) { return new RemoveBasesCommand(d, 0, d->size()); }},
            {"replace the whole sequence (open a file)",
             [](SequenceDocument* d) { return new ReplaceBasesCommand(d, 0, d->size(), QByteArray(37, 'T')); }},
            {"replace the design region (open a design)",
             [](SequenceDocument* d) { return new ReplaceBasesCommand(d, 10, 30, QByteArray(30, 'C')); }},
            {"replace across region edges, shorter",
             [](SequenceDocument* d) { return new ReplaceBasesCommand(d, 5, 20, QByteArray(3, 'G')); }},
            {"replace across region edges, longer",
             [](SequenceDocument* d) { return new ReplaceBasesCommand(d, 38, 15, QByteArray(40, 'G')); }},
        };
        for (const Case& c : cases) {
            SequenceDocument doc;
            doc.setBases(QByteArray(100, 'A'));
            doc.setRegions({makeRegion(10, 40), makeRegion(20, 27, Region::Kind::PinnedMotif),
                            makeRegion(50, 60, Region::Kind::Annotation)});
            const QByteArray bases0 = doc.bases();
            const QList<Region> regions0 = doc.regions();
            QUndoStack stack;
            stack.push(c.make(&doc));
            const QByteArray bases1 = doc.bases();
            const QList<Region> regions1 = doc.regions();
            QVERIFY2(bases1 != bases0, c.name);
            stack.undo();
            QVERIFY2(doc.bases() == bases0, c.name);
            QVERIFY2(doc.regions() == regions0, c.name);
            stack.redo();
            QVERIFY2(doc.bases() == bases1, c.name);
            QVERIFY2(doc.regions() == regions1, c.name);
            stack.undo();
            QVERIFY2(doc.regions() == regions0, c.name);
        }
    }
    // The same through the editor's own edits: typing (merged into one step), typing over a
    // selection, paste over a selection, cut, Delete.
    void editorEditsRoundTripRegions() {
        SequenceDocument doc;
        doc.setBases(QByteArray(100, 'A'));
        doc.setRegions({makeRegion(10, 40), makeRegion(20, 27, Region::Kind::PinnedMotif)});
        const QList<Region> regions0 = doc.regions();
        QUndoStack& stack = *doc.undoStack();
        SequenceEditor editor(&doc);
        const QList<std::function<void()>> edits = {
            [&] { editor.setSelection(25, 25); QTest::keyClicks(&editor, "GATC"); },
            [&] { editor.setSelection(15, 35); QTest::keyClick(&editor, Qt::Key_C); },
            [&] { editor.setSelection(18, 30); QApplication::clipboard()->setText(QStringLiteral("TTTTTTTTTTTTTTTTTTTT")); editor.paste(); },
            [&] { editor.setSelection(5, 22); editor.cut(); },
            [&] { editor.setSelection(36, 45); QTest::keyClick(&editor, Qt::Key_Delete); },
        };
        for (int i = 0; i < edits.size(); ++i) {
            const QByteArray bases0 = doc.bases();
            const int step = stack.index();
            edits[i]();
            QVERIFY2(stack.index() == step + 1, qPrintable(QStringLiteral("edit %1 is one undo step").arg(i)));
            const QList<Region> after = doc.regions();
            const QByteArray bases1 = doc.bases();
            stack.undo();
            QVERIFY2(doc.bases() == bases0 && doc.regions() == regions0, qPrintable(QStringLiteral("edit %1 undone").arg(i)));
            stack.redo();
            QVERIFY2(doc.bases() == bases1 && doc.regions() == after, qPrintable(QStringLiteral("edit %1 redone").arg(i)));
            stack.undo();
        }
    }
};

QTEST_MAIN(TestRegions)
#include "test_regions.moc"
