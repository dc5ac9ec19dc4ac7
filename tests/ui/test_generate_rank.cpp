// Generate and rank from the window (issue 32: "an objective section beside generation"). The
// Generation panel's objective section offers the project's predictors; ticked, a run's designs
// are predicted and ranked by the objective and the best K kept. Proved against the engine: a run
// with the same seed unranked proposes the same designs; the engine's ProbePredictor over those
// designs, the objective (MinGap) plus W x design_logp, sorted, gives exactly the kept designs
// in order, with the values the table shows; the run is stored with its ranking settings, each
// kept design with its objective and every output. Refusals say why before anything runs: the
// objective ticked with no predictor, an objective naming no condition, a predictor fitted on
// another model (refused before a design is made).
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QDoubleSpinBox>
#include <QCheckBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "carbon/model.h"
#include "carbon/predict/probe.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "window_steps.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/objective_section.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

class TestGenerateRank : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_, other_, project_;

    static void setUpRun(MainWindow& w, int count) {
        GenerationPanel* g = w.generation()->panel();
        g->newSeedCheck()->setChecked(false);
        g->seedSpin()->setValue(77);
        g->lengthSpin()->setValue(30);
        g->countSpin()->setValue(count);
        w.editor()->setSelection(100, 130);
    }
    static bool runAndWait(MainWindow& w) {
        w.generation()->runGeneration();
        return QTest::qWaitFor([&] { return !w.generation()->isGenerating(); }, 120000);
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
        other_ = tmp_.filePath(QStringLiteral("tiny other"));
        carbon::TestModelOptions otherOptions;
        otherOptions.seed = 5;
        carbon::make_test_model(other_.toStdString(), otherOptions);
        // A predictor of two conditions, stored as carbon-cli predictor fit --project stores one.
        project_ = tmp_.filePath(QStringLiteral("lab.carbon"));
        ui_test::storeFittedPredictor(project_, model_, tmp_.filePath(QStringLiteral("mpra.tsv")), "mpra");
    }

    void offersOnlyObjectivesTheSyntaxCanHold() {
        // A condition named with '-' (SK-N-SH) cannot be a MinGap target ('-' separates the
        // off-targets): offered as a value, not as a MinGap, and nothing throws.
        auto probe = std::make_shared<carbon::Probe>();
        for (const char* n : {"K562", "SK-N-SH"}) {
            carbon::ProbeCondition c;
            c.name = n;
            probe->conditions.push_back(c);
        }
        StoredPredictor p;
        p.name = QStringLiteral("mpra");
        p.probe = probe;
        ObjectiveSection o;
        o.setPredictors({p});
        QStringList offered;
        for (int i = 0; i < o.objectiveCombo()->count(); ++i) offered << o.objectiveCombo()->itemText(i);
        QCOMPARE(offered, (QStringList{QStringLiteral("K562"), QStringLiteral("SK-N-SH"), QStringLiteral("mingap:K562")}));
        o.setChecked(true);
        o.objectiveCombo()->setEditText(QStringLiteral("sum:SK-N-SH=1,K562=-1"));
        ObjectiveOrder order;
        QString error;
        QVERIFY2(o.order(order, error), qPrintable(error));
        QCOMPARE(order.objective, QStringLiteral("sum:SK-N-SH=1,K562=-1"));
    }

    void refusesWhatCannotRank() {
        MainWindow w;
        ObjectiveSection* o = w.generation()->panel()->objective();
        w.document()->setBases(ui_test::randomBases(300, 6));
        QVERIFY(ui_test::loadModel(w, model_));
        setUpRun(w, 2);
        // Ticked with no project open: no predictor to rank by, said in the panel; nothing runs.
        QCOMPARE(o->predictorCount(), 0);
        o->setChecked(true);
        w.generation()->runGeneration();
        QVERIFY(!w.generation()->isGenerating());
        QVERIFY2(w.generation()->panel()->message().contains(QStringLiteral("no predictor")), qPrintable(w.generation()->panel()->message()));
        QCOMPARE(w.designs()->model()->rowCount(), 0);

        QVERIFY(ui_test::openProject(w, project_));
        QTRY_COMPARE_WITH_TIMEOUT(o->predictorCount(), 1, 10000);
        QCOMPARE(o->predictorCombo()->currentText(), QStringLiteral("mpra"));
        // Offered: each condition and, with two, each one's MinGap; the accuracy shown.
        QCOMPARE(o->objectiveCombo()->count(), 4);
        QVERIFY(o->objectiveCombo()->findText(QStringLiteral("mingap:HepG2")) >= 0);
        QVERIFY2(o->accuracyText().contains(QStringLiteral("K562: held-out Pearson r")), qPrintable(o->accuracyText()));
        // An objective that names no condition: refused with the conditions there are.
        o->objectiveCombo()->setEditText(QStringLiteral("SKNSH"));
        w.generation()->runGeneration();
        QVERIFY(!w.generation()->isGenerating());
        const QString m = w.generation()->panel()->message();
        QVERIFY2(m.contains(QStringLiteral("SKNSH")) && m.contains(QStringLiteral("K562")) && m.contains(QStringLiteral("mpra")), qPrintable(m));

        // A predictor fitted on another model: refused by the engine before a design is made.
        QVERIFY(ui_test::loadModel(w, other_));
        o->objectiveCombo()->setEditText(QStringLiteral("K562"));
        QVERIFY(runAndWait(w));
        const QString m2 = w.generation()->panel()->message();
        QVERIFY2(m2.contains(QStringLiteral("fitted on the model")), qPrintable(m2));
        QCOMPARE(w.designs()->model()->rowCount(), 0);
        w.project()->closeProject();
    }

    void keepsTheBestOfTheSameProposalsAndStoresThem() {
        MainWindow w;
        QVERIFY(ui_test::openProject(w, project_));
        w.document()->setBases(ui_test::randomBases(300, 6));
        QVERIFY(ui_test::loadModel(w, model_));
        DesignTableModel* table = w.designs()->model();
        const int before = table->rowCount();
        ObjectiveSection* o = w.generation()->panel()->objective();
        QTRY_COMPARE_WITH_TIMEOUT(o->predictorCount(), 1, 10000);

        // The proposals: the same request unranked.
        setUpRun(w, 8);
        QVERIFY(runAndWait(w));
        QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), before + 8, 20000);
        std::vector<std::string> proposed;
        std::vector<double> designLogp;
        for (int r = before; r < before + 8; ++r) {
            proposed.push_back(table->row(r).design.bases);
            designLogp.push_back(table->row(r).design.design_logp);
        }

        // Ranked: MinGap of K562 plus 0.5 x design_logp, the best 3 kept.
        o->setChecked(true);
        o->objectiveCombo()->setCurrentIndex(o->objectiveCombo()->findText(QStringLiteral("mingap:K562")));
        o->keepSpin()->setValue(3);
        o->plausibilitySpin()->setValue(0.5);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        QVERIFY(runAndWait(w));
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 20000);
        QCOMPARE(table->rowCount(), before + 8 + 3);
        QTRY_VERIFY_WITH_TIMEOUT(table->row(before + 8 + 2).designId != 0, 10000);  // attached to what was stored
        QVERIFY2(w.generation()->panel()->message().contains(QStringLiteral("3 of 8 design(s) kept")),
                 qPrintable(w.generation()->panel()->message()));

        // What the engine says of the proposals, ranked the same way.
        auto model = carbon::Model::load(model_.toStdString());
        ObjectiveOrder order;
        QString error;
        QVERIFY(o->order(order, error));
        carbon::ProbePredictor direct(*model, *order.probe);
        const carbon::Predictions want = direct.predict(proposed, {});
        std::vector<double> objective(8);
        for (size_t i = 0; i < 8; ++i) objective[i] = want.values[i][0] - want.values[i][1] + 0.5 * designLogp[i];
        std::vector<size_t> best(8);
        std::iota(best.begin(), best.end(), size_t(0));
        std::stable_sort(best.begin(), best.end(), [&](size_t a, size_t b) { return objective[a] > objective[b]; });
        const int k562 = table->predictionColumn(QStringLiteral("K562"));
        QVERIFY(k562 >= int(DesignTableModel::ColumnCount));
        for (int k = 0; k < 3; ++k) {
            const DesignRow& row = table->row(before + 8 + k);
            QCOMPARE(row.design.bases, proposed[best[size_t(k)]]);
            auto near = [](double got, double expected) { return std::abs(got - expected) <= 1e-6 * std::max(1.0, std::abs(expected)); };
            QVERIFY2(near(row.objective, objective[best[size_t(k)]]),
                     qPrintable(QStringLiteral("%1 vs %2").arg(row.objective).arg(objective[best[size_t(k)]])));
            const double shown = table->index(before + 8 + k, k562).data(DesignTableModel::SortRole).toDouble();
            QVERIFY(near(shown, want.values[best[size_t(k)]][0]));
            QCOMPARE(row.predictions.size(), size_t(2));
            QCOMPARE(QString::fromStdString(row.predictions[0].predictor), QStringLiteral("'mpra' in lab.carbon"));
            QVERIFY(row.designId != 0);
        }

        // Stored: the run says what ranked it; each kept design has its objective and outputs.
        w.project()->closeProject();
        auto p = carbon::storage::Project::open(project_.toStdString(), {.create = false, .read_only = true});
        const std::vector<carbon::storage::Run> runs = p->list_runs();
        QVERIFY(!runs.empty());
        const carbon::storage::Run& last = runs.back();
        auto setting = [&](const std::string& key) {
            for (const auto& [k, v] : last.settings)
                if (k == key) return v;
            return std::string();
        };
        QCOMPARE(setting("ranked_by"), std::string("'mpra' in lab.carbon"));  // as Predict Designs names it
        QCOMPARE(setting("objective"), std::string("mingap:K562"));
        QCOMPARE(setting("proposed"), std::string("8"));
        QCOMPARE(setting("kept"), std::string("3"));
        const std::vector<carbon::storage::DesignRecord> designs = p->list_designs(last.id);
        QCOMPARE(designs.size(), size_t(3));
        for (size_t k = 0; k < 3; ++k) {
            QCOMPARE(designs[k].bases, proposed[best[k]]);
            QVERIFY(std::abs(designs[k].objective - objective[best[k]]) <= 1e-6 * std::max(1.0, std::abs(objective[best[k]])));
            QCOMPARE(p->predictions_of_design(designs[k].id).size(), size_t(2));
        }
    }
};

QTEST_MAIN(TestGenerateRank)
#include "test_generate_rank.moc"
