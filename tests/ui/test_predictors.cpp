// Predictors in the window (issue 32): Fit from Measurements on an open project resolves the
// table's names to the project's sequences, fits on the engine thread with progress, stores the
// predictor in the project under the table's name (a second fit of the same table numbered), and
// shows its cross-validation report: the conditions, every measured sequence's held-out point,
// the heading naming predictor and condition. The stored predictor is the one
// runs::fit_predictor makes of the same table on the same model (coefficients equal), and it is
// listed again when the project is reopened. Predict Designs: the selected predictor over the
// designs table, its values those of the engine's ProbePredictor, stored with the stored designs. Refusals say why where the user acted: no model, a
// table naming a sequence the project does not have (nothing stored). Cancel stores nothing.
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/runs/predictor_fit.h"
#include "carbon/runs/predictor_records.h"
#include "carbon/storage/measurements.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/model_controller.h"
#include "controllers/predictor_controller.h"
#include "controllers/project_controller.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/cv_scatter_view.h"
#include "views/design_table_model.h"
#include "views/predictor_panel.h"

using namespace carbon::ui;

class TestPredictors : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_, project_, table_;

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
        // 36 sequences in the project; the table names them and measures two conditions.
        project_ = tmp_.filePath(QStringLiteral("lab.carbon"));
        QByteArray table = "name\tK562\tHepG2\tK562_se\n";
        {
            auto p = carbon::storage::Project::open(project_.toStdString());
            for (int i = 0; i < 36; ++i) {
                carbon::storage::SequenceRecord s;
                s.name = "enh" + std::to_string(i);
                s.bases = ui_test::randomBases(90, quint32(100 + i)).toStdString();
                p->add_sequence(s);
                const double gc = double(std::count(s.bases.begin(), s.bases.end(), 'G') + std::count(s.bases.begin(), s.bases.end(), 'C'));
                table += QByteArray("enh") + QByteArray::number(i) + "\t" + QByteArray::number(gc / 10.0) + "\t" +
                         QByteArray::number(std::sin(double(i))) + "\t0.1\n";
            }
        }
        {  // three stored designs, for Predict Designs
            auto p = carbon::storage::Project::open(project_.toStdString());
            carbon::storage::Run r;
            r.kind = "generate";
            r.model_path = model_.toStdString();
            r.backend = "cpu";
            const int64_t run = p->begin_run(r);
            for (int i = 0; i < 3; ++i) {
                carbon::storage::DesignRecord d;
                d.run_id = run;
                d.name = "design_" + std::to_string(i + 1);
                d.bases = ui_test::randomBases(60, quint32(900 + i)).toStdString();
                d.rank = i + 1;
                p->add_design(d);
            }
            p->finish_run(run, "finished", 0);
        }
        table_ = tmp_.filePath(QStringLiteral("mpra round1.tsv"));
        QVERIFY(ui_test::writeFile(table_, table));
    }

    void fitsStoresAndShowsTheReport() {
        MainWindow w;
        PredictorController* pc = w.predictors();
        PredictorPanel* panel = pc->panel();
        // No model yet: refused in the panel, nothing started.
        pc->fitFromTable(table_);
        QVERIFY(!pc->isFitting());
        QVERIFY(panel->message().contains(QStringLiteral("No model is loaded")));

        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->openProject(project_);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.models()->load(model_);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QCOMPARE(panel->count(), 0);

        QSignalSpy finished(pc, &PredictorController::fitFinished);
        pc->fitFromTable(table_);
        QVERIFY(pc->isFitting());
        QVERIFY(panel->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().at(0).toString(), QStringLiteral("mpra round1"));
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(panel->message()));
        QVERIFY(!panel->isRunning());
        QCOMPARE(panel->count(), 1);
        QCOMPARE(panel->selectedName(), QStringLiteral("mpra round1"));
        QCOMPARE(panel->conditions()->count(), 2);
        QCOMPARE(panel->plot()->pointCount(), 36);  // every measured sequence, held out
        QVERIFY(panel->plot()->heading().startsWith(QStringLiteral("mpra round1 - K562: held-out Pearson r")));
        panel->conditions()->setCurrentIndex(1);
        QVERIFY(panel->plot()->heading().contains(QStringLiteral("HepG2")));
        QVERIFY(panel->message().contains(QStringLiteral("stored in the project")));

        // Predict Designs: the selected predictor over the designs table, a column per condition,
        // the values the engine's ProbePredictor gives those bases, stored with the stored designs.
        QSignalSpy predicted(pc, &PredictorController::designsPredicted);
        DesignTableModel* designs = w.designs()->model();
        QCOMPARE(designs->rowCount(), 3);
        pc->predictDesigns();
        QTRY_COMPARE_WITH_TIMEOUT(predicted.count(), 1, 60000);
        QCOMPARE(predicted.first().at(0).toInt(), 3);
        QVERIFY2(predicted.first().at(1).toBool(), qPrintable(panel->message()));
        const int k562 = designs->predictionColumn(QStringLiteral("K562"));
        QVERIFY(k562 >= int(DesignTableModel::ColumnCount));
        {
            auto model = carbon::Model::load(model_.toStdString());
            carbon::ProbePredictor direct(*model, *panel->selected()->probe);
            std::vector<std::string> bases;
            for (int r = 0; r < 3; ++r) bases.push_back(designs->row(r).design.bases);
            const carbon::Predictions want = direct.predict(bases, {});
            for (int r = 0; r < 3; ++r) {
                const double got = designs->index(r, k562).data(DesignTableModel::SortRole).toDouble();
                QVERIFY2(std::abs(got - want.values[size_t(r)][0]) <= 1e-9 * std::max(1.0, std::abs(want.values[size_t(r)][0])),
                         qPrintable(QStringLiteral("%1 vs %2").arg(got).arg(want.values[size_t(r)][0])));
            }
            auto stored = carbon::storage::Project::open(project_.toStdString(), {.create = false, .read_only = true});
            QCOMPARE(stored->count("design_predictions"), int64_t(6));
        }

        // A second fit of the same table: numbered, not refused.
        pc->fitFromTable(table_);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
        QCOMPARE(finished.last().at(0).toString(), QStringLiteral("mpra round1 2"));
        QCOMPARE(panel->count(), 2);

        // A table naming a sequence the project does not have: refused with the line, nothing stored.
        const QString bad = tmp_.filePath(QStringLiteral("bad.tsv"));
        QVERIFY(ui_test::writeFile(bad, "name\tK562\nenh1\t1.0\nenh_missing\t2.0\n"));
        pc->fitFromTable(bad);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 60000);
        QCOMPARE(finished.last().at(1).toBool(), false);
        QVERIFY2(panel->message().contains(QStringLiteral("bad.tsv:3")) && panel->message().contains(QStringLiteral("enh_missing")),
                 qPrintable(panel->message()));
        QCOMPARE(panel->count(), 2);

        // Cancel: nothing stored.
        pc->fitFromTable(table_);
        pc->cancelFit();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 4, 60000);
        QCOMPARE(finished.last().at(1).toBool(), false);
        QVERIFY2(panel->message().contains(QStringLiteral("cancelled")), qPrintable(panel->message()));
        QCOMPARE(panel->count(), 2);

        // Reopened: listed from the project.
        w.project()->closeProject();
        QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, 10000);
        w.project()->openProject(project_);
        QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 2, 20000);
        w.project()->closeProject();
    }

    void theStoredPredictorIsTheCommandLinesFit() {
        // The project's first predictor equals runs::fit_predictor on the same table, names
        // resolved the same way, on the same model: the one implementation both programs run.
        auto p = carbon::storage::Project::open(project_.toStdString(), {.create = false, .read_only = true});
        const auto stored = p->find_predictor("mpra round1");
        QVERIFY(stored.has_value());
        const carbon::Probe got = carbon::runs::probe_of(*stored, project_.toStdString());
        carbon::storage::MeasurementTable t = carbon::storage::read_measurement_table(table_.toStdString());
        carbon::storage::resolve_measurement_sequences(
            t, [&](const std::string& name) -> std::optional<std::string> { return p->find_sequence(name)->bases; }, "project");
        auto model = carbon::Model::load(model_.toStdString());
        carbon::runs::PredictorFitRequest r;
        r.recipe.pool = carbon::EmbeddingPool::Both;
        const carbon::runs::PredictorFit want = carbon::runs::fit_predictor(*model, t, r);
        QVERIFY(want.probe.has_value());
        QCOMPARE(got.conditions.size(), want.probe->conditions.size());
        for (size_t c = 0; c < got.conditions.size(); ++c) {
            QCOMPARE(got.conditions[c].ridge.alpha, want.probe->conditions[c].ridge.alpha);
            QCOMPARE(got.conditions[c].predicted.size(), want.probe->conditions[c].predicted.size());
            for (size_t i = 0; i < got.conditions[c].predicted.size(); ++i)
                QVERIFY(std::abs(got.conditions[c].predicted[i] - want.probe->conditions[c].predicted[i]) <=
                        1e-9 * std::max(1.0, std::abs(want.probe->conditions[c].predicted[i])));
        }
        QCOMPARE(got.table_hash, want.probe->table_hash);
    }
};

QTEST_MAIN(TestPredictors)
#include "test_predictors.moc"
