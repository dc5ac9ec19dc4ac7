// A fine-tuned checkpoint as a predictor in the window (issue 32: "predictors in the model manager
// (load a checkpoint, or fit from a table ...)"). Load Checkpoint reads a sequence-regression
// checkpoint laid out as Carbon's recipes save it (OUTPUT/best_model beside OUTPUT/run_config.json
// with label_transform and reverse-complement averaging): listed under the recipe's output name
// with its outputs in measured units and its recipe in words; Predict Designs, generate-and-rank
// and the variant comparison with it give the engine's SequenceRegressor numbers on the same
// checkpoint (1e-9, 1e-6); it stays listed when a project opens; a language model's folder is
// refused with the engine's reason and nothing is listed.
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "carbon/model.h"
#include "carbon/predict/objective.h"
#include "carbon/predict/regressor.h"
#include "carbon/predict/variant_activity.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/predictor_controller.h"
#include "document/sequence_document.h"
#include "ui_test_support.h"
#include "views/base_inspector.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/objective_section.h"
#include "views/predictor_panel.h"
#include "views/sequence_editor.h"
#include "views/track_chart_view.h"
#include "window_steps.h"

using namespace carbon::ui;

class TestCheckpointPredictor : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_, checkpoint_, project_;

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
        // The recipe's layout: malinois_run/best_model and malinois_run/run_config.json.
        checkpoint_ = tmp_.filePath(QStringLiteral("malinois_run/best_model"));
        carbon::TestModelOptions o;
        o.seed = 9;
        o.regression_labels = {"K562_scaled", "HepG2_scaled"};
        carbon::make_test_model(checkpoint_.toStdString(), o);
        QVERIFY(ui_test::writeFile(tmp_.filePath(QStringLiteral("malinois_run/run_config.json")),
                                   R"({"dna_mode": "auto_dna_tags", "rc_eval_average": true,
                                       "label_transform": {"K562": {"column": "K562_l2FC", "center": 0.5, "scale": 2.0},
                                                           "HepG2": {"column": "HepG2_l2FC", "center": -0.25, "scale": 1.5}}})"));
        project_ = ui_test::projectWithSequence(tmp_.filePath(QStringLiteral("lab.carbon")), "enh", 200, 3);
    }

    void loadsPredictsRanksAndScoresVariants() {
        MainWindow w;
        PredictorController* pc = w.predictors();
        PredictorPanel* panel = pc->panel();
        QSignalSpy loaded(pc, &PredictorController::checkpointLoaded);

        // A language model is not a regression checkpoint: refused with the engine's reason.
        pc->loadCheckpoint(model_);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY2(panel->message().contains(QStringLiteral("not loaded")), qPrintable(panel->message()));
        QCOMPARE(panel->count(), 0);

        pc->loadCheckpoint(checkpoint_);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QCOMPARE(panel->count(), 1);
        QCOMPARE(panel->selectedName(), QStringLiteral("malinois_run"));
        const StoredPredictor* p = panel->selected();
        QVERIFY(p && p->checkpoint == checkpoint_);
        QCOMPARE(p->labels, (QStringList{QStringLiteral("K562"), QStringLiteral("HepG2")}));  // in measured units
        QVERIFY2(p->note.contains(QStringLiteral("run_config.json")) && p->note.contains(QStringLiteral("reverse complement")),
                 qPrintable(p->note));

        // Listed still when a project opens, and offered to the objective and the inspector.
        QVERIFY(ui_test::openProject(w, project_));
        QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 1, 10000);
        ObjectiveSection* o = w.generation()->panel()->objective();
        QCOMPARE(o->predictorCount(), 1);
        QCOMPARE(w.analysis()->inspector()->predictorCombo()->count(), 2);

        // The engine's numbers on the same checkpoint.
        auto regression = carbon::Model::load(checkpoint_.toStdString());
        carbon::SequenceRegressor direct(*regression);

        // Generate and rank by the checkpoint: K562 minus HepG2, the best 2 of 5.
        QVERIFY(ui_test::loadModel(w, model_));
        GenerationPanel* g = w.generation()->panel();
        g->newSeedCheck()->setChecked(false);
        g->lengthSpin()->setValue(30);
        g->countSpin()->setValue(5);
        o->setChecked(true);
        o->objectiveCombo()->setCurrentIndex(o->objectiveCombo()->findText(QStringLiteral("mingap:K562")));
        o->keepSpin()->setValue(2);
        w.editor()->setSelection(50, 80);
        DesignTableModel* table = w.designs()->model();
        const int before = table->rowCount();
        w.generation()->runGeneration();
        QVERIFY(QTest::qWaitFor([&] { return !w.generation()->isGenerating(); }, 120000));
        QCOMPARE(table->rowCount(), before + 2);
        std::vector<std::string> kept = {table->row(before).design.bases, table->row(before + 1).design.bases};
        const carbon::Predictions want = direct.predict(kept, {});
        for (int k = 0; k < 2; ++k) {
            const double objective = want.values[size_t(k)][0] - want.values[size_t(k)][1];
            QVERIFY2(std::abs(table->row(before + k).objective - objective) <= 1e-6 * std::max(1.0, std::abs(objective)),
                     qPrintable(QStringLiteral("%1 vs %2").arg(table->row(before + k).objective).arg(objective)));
        }
        QVERIFY(table->row(before).objective >= table->row(before + 1).objective);

        // Predict Designs with it: every row's K562 the regressor's.
        QSignalSpy predicted(pc, &PredictorController::designsPredicted);
        pc->predictDesigns();
        QTRY_COMPARE_WITH_TIMEOUT(predicted.count(), 1, 60000);
        QCOMPARE(predicted.first().at(0).toInt(), table->rowCount());
        std::vector<std::string> all;
        for (int r = 0; r < table->rowCount(); ++r) all.push_back(table->row(r).design.bases);
        const carbon::Predictions every = direct.predict(all, {});
        int column = -1;
        for (qsizetype k = 0; k < table->predictionKeys().size(); ++k)
            if (table->predictionKeys()[k].predictor == checkpoint_.toStdString() && table->predictionKeys()[k].output == "K562")
                column = int(DesignTableModel::ColumnCount + k);
        QVERIFY(column >= 0);
        for (int r = 0; r < table->rowCount(); ++r) {
            const double got = table->index(r, column).data(DesignTableModel::SortRole).toDouble();
            QVERIFY(std::abs(got - every.values[size_t(r)][0]) <= 1e-9 * std::max(1.0, std::abs(every.values[size_t(r)][0])));
        }

        // The variant comparison with it: predict_variant_activity's change over 100 bases.
        o->setChecked(false);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
        BaseInspector* inspector = w.analysis()->inspector();
        inspector->predictorCombo()->setCurrentIndex(1);
        for (QSpinBox* s : inspector->findChildren<QSpinBox*>())
            if (s->accessibleName() == QStringLiteral("Activity window")) s->setValue(100);
        const QByteArray bases = w.document()->bases();
        const char alt = bases[120] == 'G' ? 'T' : 'G';
        w.analysis()->inspectBase(120);
        inspector->chart()->clear();
        emit inspector->scoreVariantRequested(120, alt, 120);
        QTRY_VERIFY_WITH_TIMEOUT(inspector->chart()->seriesCount() == 3, 60000);
        const carbon::BaseVariant v{120, 0, alt};
        const carbon::VariantActivities change = carbon::predict_variant_activity(direct, bases.toStdString(), std::span(&v, 1), "t", 100);
        const QString part = QStringLiteral("K562 %1 (ref %2, alt %3; held-out accuracy not known)")
                                 .arg(change.variants[0].change[0], 0, 'f', 4)
                                 .arg(change.variants[0].reference[0], 0, 'f', 4)
                                 .arg(change.variants[0].alternative[0], 0, 'f', 4);
        QVERIFY2(inspector->resultText().contains(part), qPrintable(inspector->resultText() + QStringLiteral("\nwanted ") + part));
        w.project()->closeProject();
    }
};

QTEST_MAIN(TestCheckpointPredictor)
#include "test_checkpoint_predictor.moc"
