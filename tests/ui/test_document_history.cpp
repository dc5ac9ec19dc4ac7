// The undo history is the document's (issue 28): in the window, every command that changes bases or
// regions (typing, deleting, replacing a selection, cut and paste, marking and removing regions,
// moving a region) is undone and redone on the document's own stack, each undo giving back the
// bases and regions (the imported features' parts among them) exactly as they were before that
// step, each redo as they were after it, and the stored feature table follows; opening another
// stored sequence starts an empty history, and nothing done to it (edits, undo presses) touches
// what the project holds for the sequence shown before.
#include <QApplication>
#include <QClipboard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "views/sequence_editor.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

namespace {

struct State {
    QByteArray bases;
    QList<Region> regions;
    bool operator==(const State&) const = default;
};

State stateOf(const SequenceDocument& doc) { return {doc.bases(), doc.regions()}; }

// What the project file holds for a sequence: its bases, its own regions, and its features' keys
// and locations (qualifiers too), as text to compare.
QString stored(const QString& path, int64_t id) {
    auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
    const auto s = p->sequence(id);
    if (!s) return QStringLiteral("(no sequence %1)").arg(id);
    QString out = QString::fromStdString(s->bases) + QLatin1Char('\n');
    for (const st::Region& r : p->regions_of_sequence(id))
        out += QStringLiteral("region %1 %2-%3 %4\n").arg(int(r.kind)).arg(r.start).arg(r.end).arg(QString::fromStdString(r.label));
    for (const st::FeatureRecord& f : p->features_of_sequence(id)) {
        out += QStringLiteral("feature %1 %2").arg(QString::fromStdString(f.key), QString::fromStdString(f.location));
        for (const auto& [k, v] : f.qualifiers) out += QStringLiteral(" /%1=%2").arg(QString::fromStdString(k), QString::fromStdString(v.value_or("")));
        out += QLatin1Char('\n');
    }
    return out;
}

}  // namespace

class TestDocumentHistory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void everyCommandUndoesAndRedoesOnTheDocumentsHistory() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("h.carbon"));
        const QString other = tmp.filePath(QStringLiteral("other.fa"));
        {
            QFile f(other);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(">other\nACGTTGCAACGTTGCAACGTTGCAACGTTGCA\n");
        }
        int64_t first = 0, second = 0;
        {
            auto p = st::Project::open(path.toStdString());
            first = st::import_flat_file(*p, CARBON_TEST_SOURCE_DIR "/storage/data/flatfile/ptest.gb").sequence_ids.at(0);
            second = st::import_fasta(*p, other.toStdString()).sequence_ids.at(0);
        }
        const QString imported = stored(path, first);
        MainWindow w;
        SequenceDocument* doc = w.document();
        SequenceEditor* editor = w.editor();
        QUndoStack* history = doc->undoStack();
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && doc->storedId() == first, 20000);
        QCOMPARE(doc->size(), 120);
        QCOMPARE(history->count(), 0);  // a stored sequence opens with an empty history
        int parts = 0;
        for (const Region& r : doc->regions()) parts += r.feature >= 0;
        QCOMPARE(parts, 8);

        // Every kind of base and region change, as the user makes it; the state after each step.
        QList<State> states{stateOf(*doc)};
        auto step = [&](auto change) {
            const int before = history->count();
            change();
            QCOMPARE(history->count(), before + 1);  // one step each, on the document's history
            states.append(stateOf(*doc));
            QVERIFY(states.last() != states[states.size() - 2]);
        };
        step([&] {  // typing at the cursor (InsertBasesCommand): the features after it move
            editor->setSelection(10, 10);
            editor->insertBases("ACGT");
        });
        step([&] {  // deleting a selection across a feature's part (RemoveBasesCommand)
            editor->setSelection(52, 60);
            editor->deleteSelection();
        });
        step([&] {  // typing over a selection (ReplaceBasesCommand), longer than it
            editor->setSelection(30, 33);
            editor->insertBases("TTTTT");
        });
        step([&] {  // marking a design region (AddRegionCommand)
            editor->setSelection(40, 60);
            editor->addRegionFromSelection(Region::Kind::Design);
        });
        step([&] {  // pinning a motif inside it
            editor->setSelection(45, 50);
            editor->addRegionFromSelection(Region::Kind::PinnedMotif);
        });
        step([&] { editor->setRegionSpan(doc->regions().size() - 1, 47, 53); });  // moving a region (one macro)
        step([&] {  // removing the region at the cursor (RemoveRegionCommand): the design region
            editor->setSelection(42, 42);
            QVERIFY(editor->removeRegionAtCursor());
        });
        step([&] {  // cut (RemoveBasesCommand through the clipboard), at the start of the features
            editor->setSelection(0, 6);
            editor->cut();
        });
        step([&] {  // paste (InsertBasesCommand from the clipboard)
            editor->setSelection(20, 20);
            editor->paste();
        });
        step([&] {  // pasting over a selection holding a feature site (ReplaceBasesCommand)
            editor->setSelection(85, 100);
            editor->paste();
        });

        // Undone one by one, each step gives back the state before it; redone, the one after it.
        const int n = int(states.size()) - 1;
        for (int i = n; i > 0; --i) {
            history->undo();
            QVERIFY2(stateOf(*doc) == states[i - 1], qPrintable(QStringLiteral("undo of step %1").arg(i)));
        }
        QVERIFY(!history->canUndo());
        for (int i = 1; i <= n; ++i) {
            history->redo();
            QVERIFY2(stateOf(*doc) == states[i], qPrintable(QStringLiteral("redo of step %1").arg(i)));
        }
        // The stored feature table follows: everything undone is the imported entry again, bases,
        // features and all; redone, the edited one.
        for (int i = 0; i < n; ++i) history->undo();
        QTRY_COMPARE_WITH_TIMEOUT(stored(path, first), imported, 20000);
        for (int i = 0; i < n; ++i) history->redo();
        QTRY_VERIFY_WITH_TIMEOUT(stored(path, first).startsWith(QString::fromLatin1(doc->bases()) + QLatin1Char('\n')), 20000);
        QTest::qWait(800);  // past the autosave's delay: nothing more is on its way
        const QString edited = stored(path, first);
        QVERIFY(edited != imported);
        QVERIFY(edited.contains(QStringLiteral("region 1 47-53")));  // the moved pinned motif

        // Another sequence: an empty history; its edits and undo presses leave the first one's
        // stored state as it was.
        w.project()->openStoredSequence(second);
        QTRY_VERIFY_WITH_TIMEOUT(doc->storedId() == second, 20000);
        QCOMPARE(doc->bases(), QByteArray("ACGTTGCAACGTTGCAACGTTGCAACGTTGCA"));
        QCOMPARE(history->count(), 0);
        QVERIFY(!history->canUndo());
        history->undo();  // nothing to undo: the first sequence's steps are not here
        QCOMPARE(doc->bases(), QByteArray("ACGTTGCAACGTTGCAACGTTGCAACGTTGCA"));
        editor->setSelection(4, 4);
        editor->insertBases("GGGG");
        QCOMPARE(history->count(), 1);
        history->undo();
        history->undo();
        QCOMPARE(doc->bases(), QByteArray("ACGTTGCAACGTTGCAACGTTGCAACGTTGCA"));
        QTest::qWait(800);
        QCOMPARE(stored(path, first), edited);
        QCOMPARE(stored(path, second).section(QLatin1Char('\n'), 0, 0), QStringLiteral("ACGTTGCAACGTTGCAACGTTGCAACGTTGCA"));

        // And back: the first sequence as it was stored, again with an empty history.
        w.project()->openStoredSequence(first);
        QTRY_VERIFY_WITH_TIMEOUT(doc->storedId() == first, 20000);
        QCOMPARE(history->count(), 0);
        QCOMPARE(doc->bases(), states.last().bases);
        QCOMPARE(stored(path, first), edited);
    }
};

QTEST_MAIN(TestDocumentHistory)
#include "test_document_history.moc"
