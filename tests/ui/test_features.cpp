// Features as a biologist reads them (issue 29), on a feature-rich GenBank entry (a reporter
// construct: enhancer, promoter with its TATA box and two binding sites, a design window, Kozak,
// EGFP CDS and gene, poly(A), primers, a reverse ori, a two-part reverse AmpR, a terminator):
// the editor draws each feature other than `source` as a bar with its label in its own lane
// (overlapping features never share a lane), coloured by type, with the feature's words in the
// tooltip, and a click on a bar selects its bases; the Features dock lists them, sortable, names
// the sequence, goes to a feature on a click, and edits an imported feature's qualifiers as one
// undo step that the project stores; the sequence map shows the whole sequence with the editor's
// window and scrolls the editor where it is clicked; another sequence empties the list.
#include <QApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "carbon/storage/project.h"
#include "controllers/feature_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/feature_list.h"
#include "views/feature_style.h"
#include "views/feature_table_model.h"
#include "views/qualifier_dialog.h"
#include "views/sequence_editor.h"
#include "views/sequence_map.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestFeatures : public QObject {
    Q_OBJECT
private:
    const QString data_ = QStringLiteral(CARBON_TEST_SOURCE_DIR "/storage/data/flatfile/reporter_construct.gb");
    QTemporaryDir tmp_;

    // A window at a laptop's size with the reporter construct open (and a plain sequence beside it).
    void openConstruct(MainWindow& w, const QString& name) {
        const QString path = ui_test::projectWithSequence(tmp_.filePath(name), "plain", 500, 3);
        w.resize(1366, 740);
        w.show();
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.openPath(data_);
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->size() == 3120, 20000);
        QTRY_VERIFY(w.features()->model()->rowCount() == 16);
    }

    static int regionOf(const MainWindow& w, const QString& label) {
        const QList<Region>& rs = w.document()->regions();
        for (int i = 0; i < rs.size(); ++i)
            if (rs[i].label == label) return i;
        return -1;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
    }

    void featuresAreLabelledArrowsInLanes() {
        MainWindow w;
        openConstruct(w, QStringLiteral("lanes.carbon"));
        if (QTest::currentTestFailed()) return;
        SequenceEditor* e = w.editor();
        const QList<Region>& rs = w.document()->regions();
        const FeatureLanes& lanes = e->featureLanes();
        QVERIFY(lanes.count >= 2 && lanes.count <= 6);
        for (int i = 0; i < rs.size(); ++i) {
            if (rs[i].kind != Region::Kind::Annotation) continue;
            if (rs[i].key == QLatin1String("source"))
                QCOMPARE(lanes.laneOf[i], -1);  // spans the entry: not painted
            else
                QVERIFY2(lanes.laneOf[i] >= 0, qPrintable(rs[i].label));
        }
        // Features that overlap are in different lanes (the promoter holds the TATA box and a GAL4 site).
        for (int i = 0; i < rs.size(); ++i)
            for (int j = i + 1; j < rs.size(); ++j) {
                if (lanes.laneOf[i] < 0 || lanes.laneOf[j] < 0) continue;
                if (rs[i].start < rs[j].end && rs[j].start < rs[i].end && lanes.count < 6)
                    QVERIFY2(lanes.laneOf[i] != lanes.laneOf[j], qPrintable(rs[i].label + QStringLiteral(" / ") + rs[j].label));
            }
        // Coloured by type: a promoter and a misc_feature can be told apart.
        QVERIFY(featureColor(QStringLiteral("promoter")) != featureColor(QStringLiteral("misc_feature")));
        QVERIFY(featureColor(QStringLiteral("CDS")) != featureColor(QStringLiteral("terminator")));
        // The tooltip of the reverse two-part CDS says its strand, span and qualifiers; markup in a
        // value stays text.
        const int amp = regionOf(w, QStringLiteral("CDS: AmpR"));
        QVERIFY(amp >= 0);
        const QString tip = featureTooltip(rs[amp]);
        QVERIFY2(tip.contains(QStringLiteral("complement(")) && tip.contains(QStringLiteral("/product=beta-lactamase")) &&
                     tip.contains(QStringLiteral("/pseudo")),
                 qPrintable(tip));
        // A bar under the pointer: scan the first rows of the view for the enhancer's bar, then click it.
        const int enhancer = regionOf(w, QStringLiteral("enhancer: SV40 enhancer"));
        QVERIFY(enhancer >= 0);
        QPoint hit(-1, -1);
        QSet<int> seen;
        for (int y = 0; y < e->viewport()->height(); y += 2)
            for (int x = 0; x < e->viewport()->width(); x += 4) {
                const int f = e->featureAt(QPoint(x, y));
                if (f >= 0) seen.insert(f);
                if (f == enhancer && hit.x() < 0) hit = QPoint(x, y);
            }
        QVERIFY(hit.x() >= 0);
        QVERIFY(!seen.contains(regionOf(w, QStringLiteral("source: synthetic DNA construct"))));
        QTest::mouseClick(e->viewport(), Qt::LeftButton, {}, hit);
        QCOMPARE(e->selectionStart(), rs[enhancer].start);
        QCOMPARE(e->selectionEnd(), rs[enhancer].end);
    }

    void theFeatureListGoesToAndEditsFeatures() {
        MainWindow w;
        openConstruct(w, QStringLiteral("list.carbon"));
        if (QTest::currentTestFailed()) return;
        FeatureList* list = w.features()->list();
        QVERIFY2(list->header()->text().contains(QStringLiteral("pCS-Reporter")), qPrintable(list->header()->text()));
        // Sortable, numbers as numbers: by length, longest first, the source (3,120 bp) leads.
        list->view()->sortByColumn(FeatureTableModel::Length, Qt::DescendingOrder);
        QCOMPARE(list->proxy()->index(0, FeatureTableModel::Type).data().toString(), QStringLiteral("source"));
        list->view()->sortByColumn(FeatureTableModel::Start, Qt::AscendingOrder);
        QCOMPARE(list->proxy()->index(0, FeatureTableModel::Start).data(Qt::UserRole).toLongLong(), 1LL);
        // A click on a row goes to the feature.
        int cdsRow = -1;
        for (int r = 0; r < list->proxy()->rowCount(); ++r)
            if (list->proxy()->index(r, FeatureTableModel::Name).data().toString() == QLatin1String("EGFP") &&
                list->proxy()->index(r, FeatureTableModel::Type).data().toString() == QLatin1String("CDS"))
                cdsRow = r;
        QVERIFY(cdsRow >= 0);
        const QModelIndex cell = list->proxy()->index(cdsRow, FeatureTableModel::Name);
        list->view()->scrollTo(cell);
        QTest::mouseClick(list->view()->viewport(), Qt::LeftButton, {}, list->view()->visualRect(cell).center());
        QCOMPARE(w.editor()->selectionStart(), qsizetype(885));
        QCOMPARE(w.editor()->selectionEnd(), qsizetype(1605));
        QVERIFY(w.editor()->firstVisibleBase() <= 885 && w.editor()->endVisibleBase() > 885);

        // Edit Qualifiers: rename the CDS and add a note, as one undo step, stored with the sequence.
        QVERIFY(list->editButton()->isEnabled());
        QSignalSpy saved(w.project()->store(), &ProjectStore::sequenceSaved);
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QualifierDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            QTableWidget* t = dialog->table();
            for (int r = 0; r < t->rowCount(); ++r)
                if (t->item(r, 0)->text() == QLatin1String("label")) t->item(r, 1)->setText(QStringLiteral("EGFP-d2"));
            // A name GenBank cannot write is refused in the dialog, which stays open.
            t->insertRow(t->rowCount());
            t->setItem(t->rowCount() - 1, 0, new QTableWidgetItem(QStringLiteral("bad name")));
            t->setItem(t->rowCount() - 1, 1, new QTableWidgetItem(QStringLiteral("x")));
            dialog->accept();
            if (!dialog->isVisible() || dialog->validate().isEmpty()) return;
            t->item(t->rowCount() - 1, 0)->setText(QStringLiteral("note"));
            t->item(t->rowCount() - 1, 1)->setText(QStringLiteral("destabilised <d2> variant"));
            dialog->accept();
        });
        QTest::mouseClick(list->editButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(regionOf(w, QStringLiteral("CDS: EGFP-d2")) >= 0, 5000);
        QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Edit Qualifiers of CDS: EGFP-d2"));
        const Region& edited = w.document()->regions().at(regionOf(w, QStringLiteral("CDS: EGFP-d2")));
        QVERIFY(featureTooltip(edited).contains(QStringLiteral("/note=destabilised <d2> variant")));
        auto storedQualifiers = [&]() {
            auto p = st::Project::open(w.project()->path().toStdString(), {.create = false, .read_only = true});
            for (const auto& s : p->list_sequences())
                for (const auto& f : p->features_of_sequence(s.id))
                    if (f.key == "CDS" && f.location == "886..1605") return f.qualifiers;
            return std::vector<std::pair<std::string, std::optional<std::string>>>{};
        };
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() > 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!storedQualifiers().empty() && storedQualifiers().back().first == "note", 20000);
        QCOMPARE(storedQualifiers().back().second.value_or(""), std::string("destabilised <d2> variant"));
        // Undo puts the qualifiers back, in the window and in the project.
        w.document()->undoStack()->undo();
        QVERIFY(regionOf(w, QStringLiteral("CDS: EGFP")) >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(!storedQualifiers().empty() && storedQualifiers().back().first == "product", 20000);
        // A user's annotation has no qualifiers to edit.
        w.editor()->setSelection(10, 20);
        w.editor()->addRegionFromSelection(Region::Kind::Annotation);
        QTRY_COMPARE(w.features()->model()->rowCount(), 17);
        for (int r = 0; r < list->proxy()->rowCount(); ++r)
            if (list->proxy()->index(r, FeatureTableModel::Type).data().toString() == QLatin1String("annotation"))
                list->view()->selectRow(r);
        QVERIFY(!list->editButton()->isEnabled());
    }

    void theMapShowsTheWholeSequenceAndScrollsTheEditor() {
        MainWindow w;
        openConstruct(w, QStringLiteral("map.carbon"));
        if (QTest::currentTestFailed()) return;
        SequenceMap* map = w.sequenceMap();
        SequenceEditor* e = w.editor();
        QTRY_VERIFY(map->isVisible() && map->width() > 300);
        QVERIFY(map->height() >= 30 && map->height() < 140);  // a strip: the editor keeps the room
        // The frame is the editor's window.
        QVERIFY(e->endVisibleBase() < 3120);  // 3,120 bp do not fit at this size
        QRectF frame = map->windowFrame();
        QCOMPARE(map->positionAt(frame.left()), e->firstVisibleBase());
        // A click at 80 % brings that part into the editor, and the frame follows.
        const double x = map->xOf(2500);
        QTest::mouseClick(map, Qt::LeftButton, {}, QPoint(int(x), map->height() / 2));
        QVERIFY2(e->firstVisibleBase() <= 2500 && e->endVisibleBase() > 2500,
                 qPrintable(QStringLiteral("%1..%2").arg(e->firstVisibleBase()).arg(e->endVisibleBase())));
        frame = map->windowFrame();
        QVERIFY(frame.left() <= x && frame.right() >= x);
        // The feature under the pointer: the reverse ori (1950..2538) is on the map, source is not.
        const int ori = regionOf(w, QStringLiteral("rep_origin: ori"));
        bool found = false;
        for (int y = 0; y < map->height() && !found; ++y) found = map->featureAt(QPoint(int(map->xOf(2200)), y)) == ori;
        QVERIFY(found);
        // Another sequence: the map and the list describe it.
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openStoredSequence(1);
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->size() == 500, 20000);
        QCOMPARE(w.features()->model()->rowCount(), 0);
        QVERIFY2(w.features()->list()->header()->text().contains(QStringLiteral("plain")), qPrintable(w.features()->list()->header()->text()));
        QCOMPARE(map->featureAt(QPoint(int(map->xOf(200)), 8)), -1);
    }
};

QTEST_MAIN(TestFeatures)
#include "test_features.moc"
