// Tag guidance in the application: the generation panel's Guidance row builds the request
// (conditional needs tags, contrastive needs other negative tags, both refused by name
// otherwise; w only with guidance, negative tags only for contrastive), and a guided run in the
// window fills the designs table's Specificity column with the engine's values (empty for an
// unguided run).
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "carbon/test_model.h"
#include "design_table_model.h"
#include "generation_panel.h"
#include "main_window.h"
#include "sequence_document.h"
#include "sequence_editor.h"
#include "ui_test_support.h"

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
        w.loadModel(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.isModelReady(), 60000);
        GenerationPanel* g = w.generationPanel();
        g->lengthSpin()->setValue(30);
        g->countSpin()->setValue(4);
        w.editor()->setSelection(100, 130);
        w.runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isGenerating(), 60000);
        QCOMPARE(w.designs()->rowCount(), 4);
        const DesignTableModel* m = w.designs();
        QCOMPARE(m->data(m->index(0, DesignTableModel::SpecificityColumn)).toString(), QString());  // unguided
        g->findChild<QListWidget*>()->item(0)->setCheckState(Qt::Checked);
        g->guidanceCombo()->setCurrentIndex(g->guidanceCombo()->findData(int(carbon::TagGuidance::Mode::Conditional)));
        g->guidanceWeightSpin()->setValue(2);
        w.runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isGenerating(), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->rowCount(), 8, 20000);
        for (int r = 4; r < 8; ++r) {
            const double want = w.designs()->row(r).design.specificity;
            QVERIFY(std::isfinite(want));
            QCOMPARE(m->data(m->index(r, DesignTableModel::SpecificityColumn)).toString(), QString::number(want, 'f', 4));
        }
    }
};

QTEST_MAIN(TestGuidancePanel)
#include "test_guidance_panel.moc"
