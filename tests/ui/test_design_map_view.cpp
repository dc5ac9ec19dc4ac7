// The design map in the window (issue 32: "a map of designs: a 2-D projection (PCA) of their
// embeddings, coloured by run, by a predicted value or by cluster, its selection synced with the
// designs table"). Map Designs: the points are the engine's project_designs of the embedder's
// embeddings of the same designs (1e-9); the selected rows only when two or more are selected;
// colours by run (one per run), by a predicted output (lowest and highest at the ramp's ends, an
// unpredicted design grey) and by cluster (cluster_designs of the same embeddings for the k
// chosen); a click selects the design in the table and the table's selection is ringed; a table
// whose rows are replaced clears the map; no model: said in the dock.
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "carbon/model.h"
#include "carbon/predict/design_map.h"
#include "carbon/predict/embedder.h"
#include "carbon/test_support/test_model.h"
#include "controllers/design_map_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/model_controller.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "window_steps.h"
#include "views/design_map_view.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"

using namespace carbon::ui;

class TestDesignMapView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;

    static void fill(DesignTableModel* table) {
        for (int i = 0; i < 12; ++i) {
            DesignRow row;
            row.design.bases = ui_test::randomBases(48, quint32(40 + i)).toStdString();
            row.design.rank = i + 1;
            row.run = i < 7 ? 1 : 2;
            if (i % 4 != 3) row.predictions.push_back({"mpra", "K562", double(i) * 0.5 - 1.0, ""});  // every fourth not predicted
            table->addRow(row);
        }
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
    }

    void mapsColoursAndFollowsTheTable() {
        MainWindow w;
        DesignMapController* c = w.designMap();
        DesignMapView* view = c->view();
        DesignTableModel* table = w.designs()->model();
        fill(table);
        c->mapDesigns();  // no model
        QVERIFY(!c->isMapping());
        QVERIFY2(view->message().contains(QStringLiteral("No model is loaded")), qPrintable(view->message()));

        QVERIFY(ui_test::loadModel(w, model_));
        QSignalSpy mapped(c, &DesignMapController::mapped);
        view->clusterSpin()->setValue(3);
        c->mapDesigns();
        QTRY_COMPARE_WITH_TIMEOUT(mapped.count(), 1, 60000);
        QCOMPARE(mapped.first().at(0).toInt(), 12);
        QCOMPARE(view->pointCount(), 12);
        QVERIFY2(view->heading().contains(QStringLiteral("12 design(s)")) && view->heading().contains(QStringLiteral("PC1")),
                 qPrintable(view->heading()));

        // The engine's numbers for the same designs.
        auto model = carbon::Model::load(model_.toStdString());
        carbon::SequenceEmbedder embedder(*model, carbon::EmbeddingRecipe{});
        std::vector<std::string> seqs, names;
        for (int r = 0; r < 12; ++r) seqs.push_back(table->row(r).design.bases), names.push_back("d");
        const carbon::Embeddings e = embedder.embed(seqs, names);
        const carbon::DesignMap want = carbon::project_designs(e);
        for (int i = 0; i < 12; ++i) {
            const DesignMapView::Point& p = view->points()[i];
            QCOMPARE(p.row, i);
            QVERIFY(std::abs(p.x - want.points[size_t(i)][0]) <= 1e-9 * std::max(1.0, std::abs(want.points[size_t(i)][0])));
            QVERIFY(std::abs(p.y - want.points[size_t(i)][1]) <= 1e-9 * std::max(1.0, std::abs(want.points[size_t(i)][1])));
        }
        const carbon::Clustering three = carbon::cluster_designs(e, 3);
        for (int i = 0; i < 12; ++i) QCOMPARE(view->points()[i].cluster, three.cluster[size_t(i)]);

        // Colours: by run (two), by the predicted output (its ends; grey where not predicted).
        view->colouring()->setCurrentIndex(0);
        QCOMPARE(view->colourOf(0), view->colourOf(6));
        QVERIFY(view->colourOf(0) != view->colourOf(7));
        const int k562 = view->colouring()->findText(QStringLiteral("K562 (pred.)"));
        QVERIFY(k562 >= 0);
        view->colouring()->setCurrentIndex(k562);
        QCOMPARE(view->colourOf(3), QColor(0xa0, 0xa0, 0xa0));
        QCOMPARE(view->colourOf(0), QColor(0x44, 0x01, 0x54));   // the lowest value
        QCOMPARE(view->colourOf(10), QColor(0xfd, 0xe7, 0x25));  // the highest
        // By cluster, then a new k: cluster_designs of the same embeddings.
        view->colouring()->setCurrentIndex(view->colouring()->findText(QStringLiteral("Cluster")));
        view->clusterSpin()->setValue(4);
        const carbon::Clustering four = carbon::cluster_designs(e, 4);
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int i = 0; i < 12; ++i)
                    if (view->points()[i].cluster != four.cluster[size_t(i)]) return false;
                return true;
            }(),
            10000);

        // Selection both ways.
        emit view->rowsClicked({5});
        QCOMPARE(w.designs()->view()->selectedSourceRows(), QList<int>{5});
        QCOMPARE(view->selectedRows(), QList<int>{5});
        w.designs()->view()->selectSourceRows({2, 9, 11});
        QList<int> sel = view->selectedRows();
        std::sort(sel.begin(), sel.end());
        QCOMPARE(sel, (QList<int>{2, 9, 11}));

        // Only the selected rows when two or more are selected.
        c->mapDesigns();
        QTRY_COMPARE_WITH_TIMEOUT(mapped.count(), 2, 60000);
        QCOMPARE(view->pointCount(), 3);
        QCOMPARE(view->points()[1].row, 9);

        // Rows replaced: the map no longer describes them.
        table->setRows({});
        QCOMPARE(view->pointCount(), 0);
        QVERIFY2(view->heading().contains(QStringLiteral("changed")), qPrintable(view->heading()));
    }
};

QTEST_MAIN(TestDesignMapView)
#include "test_design_map_view.moc"
