// The predicted activity change in the window's variant comparison (issue 32: "variant comparison
// shows the predicted activity change beside the likelihood change"). The base inspector offers
// the project's predictors; with one chosen, Score Variant shows, beside the likelihood tracks,
// alternative minus reference per condition with the predictor's held-out accuracy: the numbers
// of the engine's predict_variant_activity for the same sequence, variant and window. A predictor
// fitted on another model leaves the likelihood result standing and says why there is no
// activity; with none chosen nothing about activity is said.
#include <QComboBox>
#include <QSpinBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "window_steps.h"
#include "views/base_inspector.h"
#include "views/track_chart_view.h"

using namespace carbon::ui;

class TestVariantActivityView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_, other_, project_;

    // Scores the variant at `pos` (to C, or A where the base is C) and waits for the result.
    static QString scoreVariant(MainWindow& w, qint64 pos) {
        const QByteArray bases = w.document()->bases();
        const char alt = bases[pos] == 'C' ? 'A' : 'C';
        w.analysis()->inspectBase(pos);
        w.analysis()->inspector()->selectAlternative(alt);
        w.analysis()->inspector()->chart()->clear();
        emit w.analysis()->inspector()->scoreVariantRequested(pos, alt, 120);
        if (!QTest::qWaitFor([&] { return w.analysis()->inspector()->chart()->seriesCount() == 3; }, 60000)) return {};
        return w.analysis()->inspector()->resultText();
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
        project_ = tmp_.filePath(QStringLiteral("lab.carbon"));
        ui_test::storeFittedPredictor(project_, model_, tmp_.filePath(QStringLiteral("mpra.tsv")), "mpra");
        other_ = tmp_.filePath(QStringLiteral("other.carbon"));
        carbon::TestModelOptions o;
        o.seed = 5;
        const QString otherModel = tmp_.filePath(QStringLiteral("tiny other"));
        carbon::make_test_model(otherModel.toStdString(), o);
        ui_test::storeFittedPredictor(other_, otherModel, tmp_.filePath(QStringLiteral("mpra other.tsv")), "other model's");
    }

    void showsThePredictedChangeBesideTheLikelihood() {
        MainWindow w;
        w.resize(1366, 768);
        BaseInspector* inspector = w.analysis()->inspector();
        QCOMPARE(inspector->predictorCombo()->count(), 1);  // "none" without a project
        QVERIFY(!inspector->predictorCombo()->isEnabled());
        QVERIFY(ui_test::openProject(w, project_));
        QTRY_COMPARE_WITH_TIMEOUT(inspector->predictorCombo()->count(), 2, 10000);
        w.document()->setBases(ui_test::randomBases(400, 21));
        w.models()->load(model_);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);

        // None chosen: the likelihood comparison alone.
        QString text = scoreVariant(w, 200);
        QVERIFY2(text.contains(QStringLiteral("site log-odds")), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("activity")));

        // Chosen, the predictor sees 150 bases around the variant: the engine's numbers.
        inspector->predictorCombo()->setCurrentIndex(1);
        for (QSpinBox* s : inspector->findChildren<QSpinBox*>())
            if (s->accessibleName() == QStringLiteral("Activity window")) s->setValue(150);
        QCOMPARE(inspector->activityWindow(), qint64(150));
        text = scoreVariant(w, 200);
        QVERIFY2(text.contains(QStringLiteral("Predicted activity change, alt − ref (mpra, bases 126–275)")), qPrintable(text));
        auto model = carbon::Model::load(model_.toStdString());
        carbon::ProbePredictor direct(*model, *inspector->chosenPredictor()->probe);
        const QByteArray bases = w.document()->bases();
        const carbon::BaseVariant v{200, 0, bases[200] == 'C' ? 'A' : 'C'};
        const carbon::VariantActivities want =
            carbon::predict_variant_activity(direct, bases.toStdString(), std::span(&v, 1), "test", 150);
        for (size_t k = 0; k < want.outputs.size(); ++k) {
            const QString part = QStringLiteral("%1 %2 (ref %3, alt %4; %5)")
                                     .arg(QString::fromStdString(want.outputs[k]))
                                     .arg(want.variants[0].change[k], 0, 'f', 4)
                                     .arg(want.variants[0].reference[k], 0, 'f', 4)
                                     .arg(want.variants[0].alternative[k], 0, 'f', 4)
                                     .arg(QString::fromStdString(want.held_out[k]));
            QVERIFY2(text.contains(part), qPrintable(text + QStringLiteral("\nwanted: ") + part));
        }
        QVERIFY(text.contains(QStringLiteral("held-out Pearson r")));
        w.project()->closeProject();
        QTRY_COMPARE_WITH_TIMEOUT(inspector->predictorCombo()->count(), 1, 10000);

        // A predictor fitted on another model: the likelihood stands, the reason is given.
        w.project()->openProject(other_);
        QTRY_COMPARE_WITH_TIMEOUT(inspector->predictorCombo()->count(), 2, 20000);
        inspector->predictorCombo()->setCurrentIndex(1);
        text = scoreVariant(w, 120);
        QVERIFY2(text.contains(QStringLiteral("site log-odds")) && text.contains(QStringLiteral("Predicted activity (other model's): none")) &&
                     text.contains(QStringLiteral("fitted on the model")),
                 qPrintable(text));
        w.project()->closeProject();
    }
};

QTEST_MAIN(TestVariantActivityView)
#include "test_variant_activity_view.moc"
