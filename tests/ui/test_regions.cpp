// Regions in SequenceDocument: add/remove undo/redo, and shifting/clipping under base edits
// (with undo restoring them); the light/dark theme persisting in QSettings; the run log recording an error line.
#include <QApplication>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include "commands/add_region_command.h"
#include "commands/insert_bases_command.h"
#include "commands/remove_bases_command.h"
#include "commands/remove_region_command.h"
#include "run_log.h"
#include "sequence_document.h"
#include "sequence_editor.h"
#include "theme.h"

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
        QUndoStack stack;
        SequenceEditor editor(&doc, &stack);
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
};

QTEST_MAIN(TestRegions)
#include "test_regions.moc"
