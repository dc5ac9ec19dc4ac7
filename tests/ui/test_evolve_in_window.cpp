// Directed evolution from the window (issue 32: the objective section's optimiser, "an evolution
// view (objective per round, edits marked in the editor)"). With Evolve chosen, Run evolves the
// selected bases: proved equal, round for round (bases and objective within 1e-6), to the engine's
// evolve() on the same start, context, constraints and predictor; the objective never falls; every
// round is a row of the designs table and of the Evolution dock (its plot has a point per round);
// the run is stored as an evolve run over the region with each round's outputs; opening a round
// puts its bases into the region and marks exactly the bases that differ from the start. A Run with
// nothing selected is refused with what to do; Cancel stores nothing.
#include <QComboBox>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QUndoStack>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "carbon/generation/design_check.h"
#include "carbon/model.h"
#include "carbon/predict/evolution.h"
#include "carbon/predict/objective.h"
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
#include "views/evolution_view.h"
#include "views/generation_panel.h"
#include "views/objective_section.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

class TestEvolveInWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_, project_;

    static void chooseEvolve(MainWindow& w, int budget) {
        ObjectiveSection* o = w.generation()->panel()->objective();
        o->setChecked(true);
        o->optimiserCombo()->setCurrentIndex(o->optimiserCombo()->findData(int(ObjectiveOrder::Optimiser::Evolve)));
        o->objectiveCombo()->setCurrentIndex(o->objectiveCombo()->findText(QStringLiteral("K562")));
        o->budgetSpin()->setValue(budget);
        o->roundsSpin()->setValue(0);
        o->proposalsSpin()->setValue(0);
        o->plausibilitySpin()->setValue(0);
        w.generation()->panel()->templateEdit()->clear();
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
        project_ = tmp_.filePath(QStringLiteral("lab.carbon"));
        ui_test::storeFittedPredictor(project_, model_, tmp_.filePath(QStringLiteral("mpra.tsv")), "mpra");
    }

    void evolvesTheSelectionAsTheEngineDoes() {
        MainWindow w;
        QVERIFY(ui_test::openProject(w, project_));
        w.document()->setBases(ui_test::randomBases(240, 8));
        QVERIFY(ui_test::loadModel(w, model_));
        ObjectiveSection* o = w.generation()->panel()->objective();
        QTRY_COMPARE_WITH_TIMEOUT(o->predictorCount(), 1, 10000);
        chooseEvolve(w, 3);

        // Nothing selected, no design region: refused with what to do.
        w.editor()->setSelection(50, 50);
        w.generation()->runGeneration();
        QVERIFY(!w.generation()->isGenerating());
        QVERIFY2(w.generation()->panel()->message().contains(QStringLiteral("select the bases to evolve")),
                 qPrintable(w.generation()->panel()->message()));

        const qsizetype from = 100, length = 30;
        w.editor()->setSelection(from, from + length);
        const QByteArray before = w.document()->bases();
        DesignTableModel* table = w.designs()->model();
        const int rowsBefore = table->rowCount();
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->runGeneration();
        QVERIFY(QTest::qWaitFor([&] { return !w.generation()->isGenerating(); }, 120000));
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 20000);
        QVERIFY2(w.generation()->panel()->message().contains(QStringLiteral("evolved by K562 of predictor 'mpra' in lab.carbon")),
                 qPrintable(w.generation()->panel()->message()));

        // The engine's evolve() on the same start, context, constraints and predictor.
        carbon::DesignRequest request;
        QString error;
        QVERIFY2(w.generation()->panel()->buildRequest(request, error), qPrintable(error));
        request.left_context = before.left(from).toStdString();
        request.right_flank = before.mid(from + length).toStdString();
        request.template_iupac.clear();
        request.length = size_t(length);
        auto model = carbon::Model::load(model_.toStdString());
        request.context_tokens = size_t(model->config().max_position_embeddings);
        ObjectiveOrder order;
        QVERIFY(o->order(order, error));
        carbon::ProbePredictor predictor(*model, *order.probe);
        const carbon::Objective objective = carbon::Objective::parse("K562", predictor.outputs(), "test");
        const carbon::DesignChecker checker(model->tokenizer(), request);
        carbon::EvolutionRequest er;
        er.start = before.mid(from, length).toStdString();
        er.budget = 3;
        const carbon::EvolutionResult want = carbon::evolve(predictor, objective, checker, er);
        QVERIFY(want.rounds.size() >= 2);  // the start and at least one edit that helps

        const int rounds = int(want.rounds.size());
        QCOMPARE(table->rowCount(), rowsBefore + rounds);
        EvolutionView* view = w.generation()->evolutionView();
        // The view takes the stored run on the project thread's next signal: under load, later.
        QTRY_COMPARE_WITH_TIMEOUT(view->roundCount(), rounds, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(view->plottedPoints(), rounds, 20000);
        QVERIFY2(view->heading().contains(QStringLiteral("bases 101–130")), qPrintable(view->heading()));
        for (int k = 0; k < rounds; ++k) {
            const DesignRow& row = table->row(rowsBefore + k);
            QCOMPARE(row.design.rank, k);
            QCOMPARE(row.design.bases, want.rounds[size_t(k)].bases);
            QVERIFY(std::abs(row.objective - want.rounds[size_t(k)].objective) <= 1e-6 * std::max(1.0, std::abs(want.rounds[size_t(k)].objective)));
            QVERIFY(std::abs(view->rounds()[k].objective - row.objective) <= 1e-12);
            if (k > 0) {
                QVERIFY(row.objective >= table->row(rowsBefore + k - 1).objective);  // never falls
                const carbon::EvolutionEdit& e = want.rounds[size_t(k)].edit;
                QCOMPARE(view->rounds()[k].edit, QStringLiteral("%1%2>%3").arg(e.position + 1).arg(QLatin1Char(e.from)).arg(QLatin1Char(e.to)));
            }
        }
        QTRY_VERIFY_WITH_TIMEOUT(table->row(rowsBefore + rounds - 1).designId != 0, 10000);

        // Opening the last round: its bases in the region, the bases it changed marked.
        emit view->openRound(view->run(), rounds - 1);
        const std::string& last = want.rounds.back().bases;
        QCOMPARE(w.document()->bases().mid(from, length).toStdString(), last);
        QCOMPARE(w.document()->bases().left(from), before.left(from));
        int changed = 0;
        for (qsizetype p = 0; p < length; ++p) changed += before[from + p] != last[size_t(p)];
        QCOMPARE(w.editor()->editMarks().size(), changed);
        for (const SequenceEditor::EditMark& m : w.editor()->editMarks()) {
            QVERIFY(m.position >= from && m.position < from + length);
            QVERIFY(before[m.position] != last[size_t(m.position - from)]);
            QVERIFY2(m.label.contains(QStringLiteral("round")), qPrintable(m.label));
        }
        // An edit clears the marks: they describe the opened round, not what follows.
        w.document()->undoStack()->undo();
        QVERIFY(w.editor()->editMarks().isEmpty());

        // Cancel straight after Run: nothing stored, nothing added.
        chooseEvolve(w, 10);
        const int rowsNow = table->rowCount();
        w.generation()->runGeneration();
        w.generation()->cancelGeneration();
        QVERIFY(QTest::qWaitFor([&] { return !w.generation()->isGenerating(); }, 120000));
        QTest::qWait(200);
        QCOMPARE(table->rowCount(), rowsNow);
        QCOMPARE(stored.count(), 1);

        // Another sequence opened: the dock no longer shows this one's rounds, and says so.
        QVERIFY(view->roundCount() > 0);
        w.document()->open(ui_test::randomBases(90, 4), {}, 0, QStringLiteral("other enhancer"));
        QCOMPARE(view->roundCount(), 0);
        QCOMPARE(view->run(), quint64(0));
        QVERIFY2(view->heading().contains(QStringLiteral("other enhancer")), qPrintable(view->heading()));

        // Stored: an evolve run over the region, each round with the predictor's outputs.
        w.project()->closeProject();
        auto p = carbon::storage::Project::open(project_.toStdString(), {.create = false, .read_only = true});
        const carbon::storage::Run run = p->list_runs().back();
        QCOMPARE(run.kind, std::string("evolve"));
        QCOMPARE(run.setting("region_start").value_or(""), std::string("100"));
        QCOMPARE(run.setting("region_length").value_or(""), std::string("30"));
        QCOMPARE(run.setting("predictor").value_or(""), std::string("'mpra' in lab.carbon"));
        QCOMPARE(run.setting("objective").value_or(""), std::string("K562"));
        const std::vector<carbon::storage::DesignRecord> designs = p->list_designs(run.id);
        QCOMPARE(int(designs.size()), rounds);
        for (const carbon::storage::DesignRecord& d : designs) {
            QCOMPARE(d.bases, want.rounds[size_t(d.rank)].bases);
            QCOMPARE(p->predictions_of_design(d.id).size(), size_t(2));
        }
    }
};

QTEST_MAIN(TestEvolveInWindow)
#include "test_evolve_in_window.moc"
