// Constructs, selections and rules files in the window (issue 33):
// - the New Construct dialog checks as typed (no name, a taken name, a letter other than A/C/G/T
//   with its part and position, no parts) and OK stays off until it holds;
// - a construct stored in the project is offered in the Generation panel; a run made in it reads
//   its parts as the context and flank (the stored run's settings: construct, construct_upstream,
//   construct_downstream, left_context), its rows carry the construct and the Synthesis column
//   checks the whole construct (the tooltip says so; breaches at the construct's positions);
// - Order Selected Designs offers each design's own construct by default (the fields read-only),
//   a stored one (its parts filled in) or typed flanks; the export puts each design in its run's;
// - Choose Diverse…: the dialog's checks (a taken name needs Replace; no candidates), and the
//   choice stored as a selection through the project's thread equals runs::choose_designs on the
//   same request; the table then shows the selection, its rows selected in its order; All designs
//   shows every row again;
// - a rules file of the user's: a malformed one refused with file:line, a good one offered and
//   used by the panel's request and the table's check.
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSpinBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "carbon/runs/design_choice.h"
#include "carbon/storage/order_files.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/choose_designs_dialog.h"
#include "views/construct_dialog.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/generation_panel.h"
#include "views/order_dialog.h"
#include "views/sequence_editor.h"
#include "window_steps.h"

using namespace carbon::ui;
namespace st = carbon::storage;

namespace {
// The upstream part starts with a run of 10 A: a rule of at most 8 is broken in the construct, at
// its positions 1-10, whatever the design.
const std::string kUp = "AAAAAAAAAACTGGCCGTCGT", kDown = "CCAGGAAACAGCTATGAC";
}

class TestConstructsInWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
    }

    void theConstructDialogChecksAsTyped() {
        st::ConstructRecord taken;
        taken.name = "mpra";
        ConstructDialog d({taken});
        QVERIFY(!d.okButton()->isEnabled());
        QVERIFY2(d.problemLabel()->text().contains(QStringLiteral("name")), qPrintable(d.problemLabel()->text()));
        d.nameEdit()->setText(QStringLiteral("mpra"));
        QVERIFY2(d.problemLabel()->text().contains(QStringLiteral("named 'mpra' already")), qPrintable(d.problemLabel()->text()));
        d.nameEdit()->setText(QStringLiteral("golden gate"));
        QVERIFY2(d.problemLabel()->text().contains(QStringLiteral("upstream or the downstream")), qPrintable(d.problemLabel()->text()));
        d.upstreamEdit()->setPlainText(QStringLiteral("ggtctc a\nNNA"));
        QVERIFY2(d.problemLabel()->text().contains(QStringLiteral("upstream flank: position 8 is 'N'")), qPrintable(d.problemLabel()->text()));
        QVERIFY(!d.okButton()->isEnabled());
        d.upstreamEdit()->setPlainText(QStringLiteral("ggtctc a\nCCA"));  // blanks and line breaks dropped
        QVERIFY(d.okButton()->isEnabled() && d.problemLabel()->text().isEmpty());
        QCOMPARE(d.construct().upstream, std::string("ggtctcaCCA"));
        QCOMPARE(d.construct().name, std::string("golden gate"));
    }

    void aRunInAConstructIsStoredWithItAndCheckedWhole() {
        const QString path = ui_test::projectWithSequence(tmp_.filePath(QStringLiteral("c.carbon")), "seq", 300, 4);
        MainWindow w;
        QVERIFY(ui_test::openProject(w, path));
        QVERIFY(ui_test::loadModel(w, model_));
        GenerationPanel* g = w.generation()->panel();
        QCOMPARE(g->constructCombo()->count(), 1);  // none stored: only "none"
        // Stored as the New… button stores it (the dialog's construct, on the project's thread).
        st::ConstructRecord c;
        c.name = "mpra";
        c.upstream = kUp;
        c.downstream = kDown;
        QSignalSpy added(w.project()->store(), &ProjectStore::constructAdded);
        w.project()->storeThread()->post([c](ProjectStore* s) { s->addConstruct(0, c); });
        QTRY_COMPARE_WITH_TIMEOUT(added.count(), 1, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(g->constructCombo()->count(), 2, 5000);
        QCOMPARE(w.project()->constructs().size(), 1);
        g->selectConstruct(QStringLiteral("mpra"));
        QVERIFY(g->construct() && g->construct()->upstream == kUp);

        g->newSeedCheck()->setChecked(false);
        g->seedSpin()->setValue(5);
        g->lengthSpin()->setValue(40);
        g->countSpin()->setValue(4);
        w.editor()->setSelection(100, 140);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 120000);
        const auto run = stored.last().at(1).value<st::Run>();
        QCOMPARE(run.setting("construct").value_or(""), std::string("mpra"));
        QCOMPARE(run.setting("construct_upstream").value_or(""), kUp);
        QCOMPARE(run.setting("construct_downstream").value_or(""), kDown);
        QCOMPARE(run.setting("left_context").value_or(""), kUp);  // what the model read
        QCOMPARE(run.setting("right_flank").value_or(""), kDown);

        DesignTableModel* m = w.designs()->model();
        QTRY_COMPARE_WITH_TIMEOUT(m->rowCount(), 4, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m->row(0).designId != 0 && m->row(1).designId != 0, 10000);  // the stored ids attached
        for (int r = 0; r < m->rowCount(); ++r) QVERIFY(m->row(r).construct && m->row(r).construct->name == "mpra");
        const QString rules = tmp_.filePath(QStringLiteral("runs.rules"));
        QVERIFY(ui_test::writeFile(rules, "carbon-synthesis-rules 1\nname Runs\nrule homopolymer max=8 bases=ACGT | test\n"));
        QCOMPARE(w.designs()->view()->addRulesFile(rules), QString());
        for (int r = 0; r < m->rowCount(); ++r) {
            const QString tip = m->data(m->index(r, DesignTableModel::SynthesisColumn), Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(QStringLiteral("construct 'mpra': 21 bp upstream")) && tip.contains(QStringLiteral("10 A at 1-10")),
                     qPrintable(tip));
            QVERIFY(m->data(m->index(r, DesignTableModel::SynthesisColumn), DesignTableModel::SortRole).toInt() >= 1);
        }
        const auto whole = carbon::check_synthesis(*m->synthesisRules(), kUp + m->row(0).design.bases + kDown);
        QCOMPARE(m->data(m->index(0, DesignTableModel::SynthesisColumn), DesignTableModel::SortRole).toInt(), int(whole.size()));
        // The rules file gone: choosing it again says so where the user looks.
        QSignalSpy failed(w.designs()->view(), &DesignsView::synthesisRulesFailed);
        QVERIFY(QFile::remove(rules));
        w.designs()->view()->synthesisCombo()->choose(QString());
        w.designs()->view()->synthesisCombo()->choose(QFileInfo(rules).absoluteFilePath());
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("runs.rules")), qPrintable(failed.last().at(0).toString()));
        QVERIFY(!m->synthesisRules());

        // Order: each design's own construct by default; the fields read-only, then a stored one.
        {
            OrderDialog d(2, 2, w.project()->constructs());
            QCOMPARE(d.constructCombo()->currentIndex(), 0);
            QVERIFY(d.upstreamEdit()->isReadOnly() && d.request().runConstructs);
            d.constructCombo()->setCurrentIndex(1);
            QCOMPARE(d.upstreamEdit()->text().toStdString(), kUp);
            QVERIFY(!d.request().runConstructs && d.upstreamEdit()->isReadOnly());
            d.constructCombo()->setCurrentIndex(d.constructCombo()->count() - 1);
            QVERIFY(!d.upstreamEdit()->isReadOnly());
        }
        ExportRequest request;
        request.format = ExportFormat::TwistCsv;
        request.runConstructs = true;
        request.path = tmp_.filePath(QStringLiteral("order.csv"));
        request.designIds = {m->row(0).designId, m->row(1).designId};
        QSignalSpy exported(w.project()->store(), &ProjectStore::exported);
        QSignalSpy storeFailed(w.project()->store(), &ProjectStore::failed);
        w.designs()->exportOrder(request);
        QTRY_VERIFY_WITH_TIMEOUT(exported.count() == 1 || !storeFailed.isEmpty(), 60000);
        QVERIFY2(storeFailed.isEmpty(), qPrintable(storeFailed.isEmpty() ? QString() : storeFailed.last().at(1).toString()));
        QVERIFY2(exported.last().at(1).toStringList().join(QLatin1Char(' ')).contains(QStringLiteral("made in construct 'mpra'")),
                 qPrintable(exported.last().at(1).toStringList().join(QLatin1Char(' '))));
        QFile f(request.path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QVERIFY(lines.size() >= 3);
        QCOMPARE(QString::fromLatin1(lines[1]).section(QLatin1Char(','), 1).toStdString(), kUp + m->row(0).design.bases + kDown);

        // Another project with a construct of the same name: the choice is let go, not carried over.
        const QString other = ui_test::projectWithSequence(tmp_.filePath(QStringLiteral("other.carbon")), "seq", 200, 6);
        {
            auto p = st::Project::open(other.toStdString());
            st::ConstructRecord same = c;
            same.upstream = "GGGG";
            p->add_construct(same);
        }
        QVERIFY(ui_test::openProject(w, other));
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->constructs().size() == 1 && w.project()->constructs()[0].upstream == "GGGG", 10000);
        QVERIFY(!g->construct());
        QCOMPARE(g->constructCombo()->count(), 2);
    }

    void chooseDiverseStoresTheSelectionAndShowsIt() {
        ChooseDesignsDialog none({}, {QStringLiteral("design_logp")}, {});
        QVERIFY(!none.okButton()->isEnabled());
        QVERIFY(none.problemLabel()->text().contains(QStringLiteral("no stored designs")));

        const QString path = ui_test::projectWithSequence(tmp_.filePath(QStringLiteral("s.carbon")), "seq", 300, 5);
        MainWindow w;
        QVERIFY(ui_test::openProject(w, path));
        QVERIFY(ui_test::loadModel(w, model_));
        GenerationPanel* g = w.generation()->panel();
        g->newSeedCheck()->setChecked(false);
        g->seedSpin()->setValue(9);
        g->lengthSpin()->setValue(24);
        g->countSpin()->setValue(40);
        g->temperatureSpin()->setValue(1.5);
        w.editor()->setSelection(50, 74);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 120000);
        DesignsView* v = w.designs()->view();
        DesignTableModel* m = w.designs()->model();
        QTRY_COMPARE_WITH_TIMEOUT(m->rowCount(), 40, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m->row(39).designId != 0, 10000);

        QList<qint64> ids;
        for (int r : v->shownSourceRows()) ids << m->row(r).designId;
        st::SelectionRecord taken;
        taken.name = "selection 1";
        ChooseDesignsDialog d(ids, {QStringLiteral("design_logp"), QStringLiteral("ranking_logp")}, {taken});
        QCOMPARE(d.nameEdit()->text(), QStringLiteral("selection 2"));
        d.nameEdit()->setText(QStringLiteral("selection 1"));
        QVERIFY(!d.okButton()->isEnabled() && d.problemLabel()->text().contains(QStringLiteral("tick Replace")));
        d.nameEdit()->setText(QStringLiteral("for twist"));
        d.countSpin()->setValue(8);
        d.minDistanceSpin()->setValue(2);
        QVERIFY(d.okButton()->isEnabled());
        const carbon::runs::DesignChoiceRequest request = d.request();

        QSignalSpy chosen(w.project()->store(), &ProjectStore::designsChosen);
        w.project()->storeThread()->post([request](ProjectStore* s) { s->chooseDesigns(0, request); });
        QTRY_COMPARE_WITH_TIMEOUT(chosen.count(), 1, 20000);
        const auto sel = chosen.last().at(1).value<st::SelectionRecord>();
        QCOMPARE(sel.name, std::string("for twist"));
        QCOMPARE(sel.design_ids.size(), size_t(8));
        QTRY_COMPARE_WITH_TIMEOUT(v->selectionCombo()->count(), 2, 5000);
        // The same choice as the one implementation gives on the file, now read apart.
        {
            auto p = st::Project::open(path.toStdString(), {.create = false, .read_only = true});
            QCOMPARE(p->find_selection("for twist")->design_ids, sel.design_ids);
            QCOMPARE(carbon::runs::choose_designs(*p, request, false).design_ids, sel.design_ids);
        }
        v->showSelection(QStringLiteral("for twist"));
        QCOMPARE(v->proxy()->rowCount(), 8);
        QList<qint64> shownSelected;
        for (int r : v->selectedSourceRows()) shownSelected << m->row(r).designId;
        QCOMPARE(shownSelected.size(), 8);
        QCOMPARE(QSet<qint64>(shownSelected.begin(), shownSelected.end()), QSet<qint64>(sel.design_ids.begin(), sel.design_ids.end()));
        // What Order Selected Designs orders: the selection in its own order, not the table's.
        QCOMPARE(v->selectedDesignIds(), QList<qint64>(sel.design_ids.begin(), sel.design_ids.end()));
        // Filters that would hide some of it are let go when it is shown.
        v->showSelection({});
        v->setFlagFilter(DesignsView::FlagFilter::Starred);
        v->showSelection(QStringLiteral("for twist"));
        QCOMPARE(v->proxy()->rowCount(), 8);
        v->showSelection({});
        QCOMPARE(v->proxy()->rowCount(), 40);
    }

    void aRulesFileOfTheUsersIsReadOrRefusedWithItsLine() {
        const QString bad = tmp_.filePath(QStringLiteral("bad.rules"));
        const QString good = tmp_.filePath(QStringLiteral("lab.rules"));
        QVERIFY(ui_test::writeFile(bad, "carbon-synthesis-rules 1\nname Lab\nrule length min=10 max=x | lab sheet\n"));
        QVERIFY(ui_test::writeFile(good, "carbon-synthesis-rules 1\nname Lab pool\ndescription ours\n"
                                         "rule homopolymer max=5 bases=ACGT | the lab's sheet\n"));
        GenerationPanel g;
        const int before = g.synthesisCombo()->count();
        const QString error = g.addRulesFile(bad);
        QVERIFY2(error.contains(QStringLiteral("bad.rules:3")), qPrintable(error));
        QCOMPARE(g.synthesisCombo()->count(), before);
        QVERIFY2(g.message().contains(QStringLiteral("bad.rules:3")), qPrintable(g.message()));
        QCOMPARE(g.addRulesFile(good), QString());
        QCOMPARE(g.synthesisCombo()->count(), before + 1);
        QVERIFY(g.synthesisCombo()->currentText().contains(QStringLiteral("Lab pool")));
        carbon::DesignRequest r;
        QString why;
        QVERIFY2(g.buildRequest(r, why), qPrintable(why));
        QCOMPARE(r.constraints.max_run_at, 5);  // the file's rule, as carbon-cli generate --rules FILE gives it
        QCOMPARE(r.constraints.max_run_gc, 5);

        DesignTableModel m;
        DesignsView v(&m);
        carbon::Design d;
        d.bases = "ACGTAAAAAAAACGT";
        m.addDesign(d, 1, 0, 15);
        QCOMPARE(v.addRulesFile(good), QString());
        QVERIFY(m.synthesisRules() && m.synthesisRules()->name == "Lab pool");
        QCOMPARE(m.data(m.index(0, DesignTableModel::SynthesisColumn), DesignTableModel::SortRole).toInt(), 1);
        QVERIFY(v.addRulesFile(bad).contains(QStringLiteral("bad.rules:3")));
        QVERIFY(m.synthesisRules() && m.synthesisRules()->name == "Lab pool");  // the choice stays
    }
};

QTEST_MAIN(TestConstructsInWindow)
#include "test_constructs_in_window.moc"
