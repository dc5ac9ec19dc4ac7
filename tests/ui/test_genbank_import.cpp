// GenBank / EMBL entries in the application: File > Import GenBank / EMBL (and a dropped .gb)
// stores the entries with their feature tables in the open project; the opened sequence shows
// each feature's parts as annotations labelled with the key and name; an edit moves them and the
// autosave writes the features back with their locations moved (qualifiers untouched, a deleted
// part dropped, a site kept), which export as GenBank and read back; a malformed file is refused
// with its line and stores nothing; without a project the import asks for one.
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/project.h"
#include "controllers/project_controller.h"
#include "document/commands/insert_bases_command.h"
#include "document/commands/remove_bases_command.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestGenbankImport : public QObject {
    Q_OBJECT
private:
    const QString data_ = QStringLiteral(CARBON_TEST_SOURCE_DIR "/storage/data/flatfile/ptest.gb");

    // The location of feature `key` as stored now.
    static std::string storedLocation(const QString& path, const std::string& key) {
        auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
        for (const auto& f : p->features_of_sequence(1))
            if (f.key == key) return f.location;
        return "(none)";
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void importedFeaturesAreAnnotationsThatMoveWithEdits() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("g.carbon"));
        { auto p = st::Project::open(path.toStdString()); }
        MainWindow w;
        QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->path(), path, 20000);
        w.openPath(data_);  // recognised by its name and content, as a drop is
        QTRY_VERIFY_WITH_TIMEOUT(seqOpened.count() > 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().contains(QStringLiteral("6 feature(s)")) ||
                                     w.document()->size() == 120, 20000);
        QCOMPARE(w.document()->size(), 120);
        // Parts: source 1, promoter 1, CDS 2, misc_feature 2, protein_bind 1 (a site), primer_bind 1.
        QList<Region> parts;
        for (const Region& r : w.document()->regions())
            if (r.feature >= 0) parts.append(r);
        QCOMPARE(parts.size(), 8);
        bool promoter = false;
        for (const Region& r : parts)
            if (r.label == QStringLiteral("promoter: pTest promoter")) promoter = r.start == 4 && r.end == 40 && r.beforeStart;
        QVERIFY(promoter);

        // Insert 5 bases at the start, delete the CDS's second part (bases 80-100 after the insert
        // at 84-105): the autosave writes the moved locations.
        QSignalSpy saved(w.project()->store(), &ProjectStore::sequenceSaved);
        w.document()->undoStack()->push(new InsertBasesCommand(w.document(), 0, QByteArray("GGGGG")));
        w.document()->undoStack()->push(new RemoveBasesCommand(w.document(), 84, 21));
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() > 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(storedLocation(path, "CDS"), std::string("55..75"), 20000);
        QCOMPARE(storedLocation(path, "promoter"), std::string("<10..45"));
        QCOMPARE(storedLocation(path, "misc_feature"), std::string("complement(join(15..25,35..40))"));
        QCOMPARE(storedLocation(path, "protein_bind"), std::string("94^95"));
        QCOMPARE(storedLocation(path, "source"), std::string("6..104"));  // an insert at a region's start shifts it
        {
            auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
            const auto features = p->features_of_sequence(1);
            QCOMPARE(int(features.size()), 6);
            QCOMPARE(features[2].qualifiers.size(), size_t(4));  // /gene /codon_start /pseudo /translation
            QVERIFY(!features[2].qualifiers[2].second.has_value());
        }
        // Undo both: the parts come back where they were, and so do the stored locations.
        w.document()->undoStack()->undo();
        w.document()->undoStack()->undo();
        QTRY_COMPARE_WITH_TIMEOUT(storedLocation(path, "CDS"), std::string("join(50..70,80..>100)"), 20000);
        QCOMPARE(storedLocation(path, "promoter"), std::string("<5..40"));
    }

    void malformedFilesAndNoProject() {
        QTemporaryDir tmp;
        const QString bad = tmp.filePath(QStringLiteral("bad.gb"));
        QFile in(data_);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        text.replace("<5..40", "<5..400");
        QVERIFY(ui_test::writeFile(bad, text));
        MainWindow w;
        QSignalSpy errors(w.project(), &ProjectController::projectError);
        w.project()->importFlatFile(bad);  // no project yet
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.last().at(1).toString().contains(QStringLiteral("create a project first")));
        const QString path = tmp.filePath(QStringLiteral("b.carbon"));
        { auto p = st::Project::open(path.toStdString()); }
        w.project()->openProject(path);
        QTRY_COMPARE_WITH_TIMEOUT(w.project()->path(), path, 20000);
        w.project()->importFlatFile(bad);
        QTRY_VERIFY_WITH_TIMEOUT(errors.count() > 1, 20000);
        const QString msg = errors.last().at(1).toString();
        QVERIFY2(msg.contains(QStringLiteral("bad.gb:13: feature promoter")) && msg.contains(QStringLiteral("past the end")), qPrintable(msg));
        auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
        QCOMPARE(p->count("sequences"), int64_t(0));
    }
};

QTEST_MAIN(TestGenbankImport)
#include "test_genbank_import.moc"
