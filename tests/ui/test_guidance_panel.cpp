// Tag guidance in the application: the generation panel's Guidance row builds the request
// (conditional needs tags, contrastive needs other negative tags, both refused by name
// otherwise; w only with guidance, negative tags only for contrastive), and a guided run in the
// window fills the designs table's Specificity column with the engine's values (empty for an
// unguided run); View > Specificity Track plots the engine's specificity_track of the edited
// sequence (the panel's tags against its negative tags) in the Design Tracks dock.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QLineSeries>
#include <QStatusBar>

#include "carbon/model.h"
#include "carbon/scoring/scoring.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/specificity_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/sequence_editor.h"
#include "views/track_chart_view.h"

using namespace carbon::ui;

class TestGuidancePanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void panelBuildsGuidedRequests() {
        GenerationPanel g;
        QVERIFY(!g.guidanceWeightSpin()->isEnabled() && !g.negativeTagsEdit()->isEnabled());
        g.guidanceCombo()->setCurrentIndex(g.guidanceCombo()->findData(int(carbon::TagGuidance::Mode::Conditional)));
        QVERIFY(g.guidanceWeightSpin()->isEnabled() && !g.negativeTagsEdit()->isEnabled());
        carbon::DesignRequest r;
        QString error;
        QVERIFY(!g.buildRequest(r, error));
        QVERIFY(error.contains(QStringLiteral("needs tags")));
        auto* tags = g.findChild<QListWidget*>();
        tags->item(0)->setCheckState(Qt::Checked);
        g.guidanceWeightSpin()->setValue(3.5);
        r = {};
        QVERIFY2(g.buildRequest(r, error), qPrintable(error));
        QCOMPARE(int(r.guidance.mode), int(carbon::TagGuidance::Mode::Conditional));
        QCOMPARE(r.guidance.w, 3.5);
        g.guidanceCombo()->setCurrentIndex(g.guidanceCombo()->findData(int(carbon::TagGuidance::Mode::Contrastive)));
        QVERIFY(g.negativeTagsEdit()->isEnabled());
        r = {};
        QVERIFY(!g.buildRequest(r, error));
        QVERIFY(error.contains(QStringLiteral("negative tags")));
        g.negativeTagsEdit()->setText(QStringLiteral("<fungi>"));
        r = {};
        QVERIFY2(g.buildRequest(r, error), qPrintable(error));
        QCOMPARE(r.guidance.negative_tags, std::string("<fungi>"));
    }

    void guidedRunFillsTheSpecificityColumn() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        MainWindow w;
        w.document()->setBases(ui_test::randomBases(300, 6));
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        GenerationPanel* g = w.generation()->panel();
        g->lengthSpin()->setValue(30);
        g->countSpin()->setValue(4);
        w.editor()->setSelection(100, 130);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 60000);
        QCOMPARE(w.designs()->model()->rowCount(), 4);
        const DesignTableModel* m = w.designs()->model();
        QCOMPARE(m->data(m->index(0, DesignTableModel::SpecificityColumn)).toString(), QString());  // unguided
        g->findChild<QListWidget*>()->item(0)->setCheckState(Qt::Checked);
        g->guidanceCombo()->setCurrentIndex(g->guidanceCombo()->findData(int(carbon::TagGuidance::Mode::Conditional)));
        g->guidanceWeightSpin()->setValue(2);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->model()->rowCount(), 8, 20000);
        for (int r = 4; r < 8; ++r) {
            const double want = w.designs()->model()->row(r).design.specificity;
            QVERIFY(std::isfinite(want));
            QCOMPARE(m->data(m->index(r, DesignTableModel::SpecificityColumn)).toString(), QString::number(want, 'f', 4));
        }
    }

    void specificityTrackInTheDesignTracksDock() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        MainWindow w;
        const QByteArray seq = ui_test::randomBases(150, 9);
        w.document()->setBases(seq);
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        GenerationPanel* g = w.generation()->panel();
        w.specificity()->runSpecificityTrack();  // no negative tags yet: refused by name
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("negative")));
        QCOMPARE(w.designs()->chart()->seriesCount(), 0);
        g->findChild<QListWidget*>()->item(0)->setCheckState(Qt::Checked);
        g->negativeTagsEdit()->setText(QStringLiteral("<fungi>"));
        w.specificity()->runSpecificityTrack();
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->chart()->seriesCount(), 1, 60000);
        // The plotted values are the engine's specificity_track of the sequence.
        carbon::ModelOptions mo;
        mo.backend = carbon::BackendKind::Cpu;
        auto model = carbon::Model::load(modelDir.toStdString(), mo);
        carbon::ScoreOptions o;
        o.context_tokens = size_t(model->config().max_position_embeddings);
        const std::vector<float> want = carbon::specificity_track(model->backend(), model->tokenizer(), seq.toStdString(),
                                                                  g->tagsText().toStdString(), "<fungi>", o);
        auto* series = qobject_cast<QLineSeries*>(w.designs()->chart()->chart()->series().first());
        QVERIFY(series);
        const QList<QPointF> pts = series->points();
        QVERIFY(pts.size() > 100);
        int compared = 0;
        for (const QPointF& pt : pts) {
            const qsizetype i = qsizetype(pt.x()) - 1;
            if (i < 0 || size_t(i) >= want.size() || std::isnan(want[size_t(i)])) continue;
            QVERIFY(std::fabs(pt.y() - double(want[size_t(i)])) < 1e-4);
            ++compared;
        }
        QVERIFY(compared > 100);
    }
};

QTEST_MAIN(TestGuidancePanel)
#include "test_guidance_panel.moc"
