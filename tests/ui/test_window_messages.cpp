// The window says what failed where the user looks, and keeps what it had (issue 29): a folder
// that is not a model is refused at the top of the window and the model before stays loaded; Run
// without a model says so with the way on; a count or length typed out of range is refused with
// the range, not silently corrected; the wheel over a panel scrolls the panel rather than changing
// the box under the pointer; the toolbar's Undo keeps its width; an insertion is not "Replace 0
// bases"; a copy of the project file alone (no -wal beside it) holds the runs stored; chart axes
// tick at round values; Go to Position selects the base; the menus' shortcuts are each one
// action's, and the bundled manual names only shortcuts the menus have.
#include <QApplication>
#include <QFile>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtCharts/QValueAxis>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QUndoStack>

#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/editing_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/checked_spin_box.h"
#include "views/generation_panel.h"
#include "views/help_dialogs.h"
#include "views/message_bar.h"
#include "views/round_ticks.h"
#include "views/sequence_editor.h"
#include "views/wheel_guard.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestWindowMessages : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;

    QString project(const QString& name) { return ui_test::projectWithSequence(tmp_.filePath(name), "alpha", 300, 7); }

    static void open(MainWindow& w, const QString& path) {
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
    }

    static void loadModel(MainWindow& w, const QString& model) {
        w.models()->load(model);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
    }

    static void wheel(QWidget* target, int dy) {
        const QPointF at(target->width() / 2.0, target->height() / 2.0);
        QWheelEvent e(at, target->mapToGlobal(at), QPoint(), QPoint(0, dy), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(target, &e);
    }

private slots:
    void initTestCase() {
        model_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!model_.isEmpty());
    }

    void aFolderThatIsNotAModelLeavesTheModelLoaded() {
        MainWindow w;
        w.show();
        open(w, project(QStringLiteral("model.carbon")));
        loadModel(w, model_);
        if (QTest::currentTestFailed()) return;
        MessageBar* bar = w.messageBar();
        QVERIFY(!bar->isVisible());
        const QString notModel = tmp_.filePath(QStringLiteral("photos"));
        QVERIFY(QDir().mkpath(notModel));
        QVERIFY(ui_test::writeFile(notModel + QStringLiteral("/config.json"), "{\"model_type\": \"bert\"}"));
        QSignalSpy failed(w.models(), &ModelController::failed);
        w.models()->load(notModel);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
        QCOMPARE(failed.first().at(2).toBool(), true);  // kept
        QVERIFY(w.models()->isReady());
        QTRY_VERIFY(bar->isVisible());
        QVERIFY2(bar->text().contains(notModel) && bar->text().contains(QStringLiteral("stays loaded")), qPrintable(bar->text()));
        QVERIFY(bar->actionButton()->isVisible());
        QCOMPARE(bar->actionButton()->text(), QStringLiteral("Open Model Folder…"));
        // The model before still scores: the likelihood of the sequence is still there and a run goes.
        QVERIFY(w.analysis()->likelihood()->isCurrent());
        GenerationPanel* g = w.generation()->panel();
        g->countSpin()->setValue(1);
        g->lengthSpin()->setValue(12);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.editor()->setSelection(100, 112);
        w.generation()->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 60000);
        bar->dismiss();
        QVERIFY(!bar->isVisible());
    }

    void runWithoutAModelSaysSoWithTheWayOn() {
        MainWindow w;
        w.show();
        open(w, project(QStringLiteral("nomodel.carbon")));
        w.generation()->runGeneration();
        MessageBar* bar = w.messageBar();
        QTRY_VERIFY(bar->isVisible());
        QVERIFY2(bar->text().contains(QStringLiteral("no model is loaded")), qPrintable(bar->text()));
        QCOMPARE(bar->actionButton()->text(), QStringLiteral("Open Model Folder…"));
    }

    void aNumberOutOfRangeIsRefusedWithTheRange() {
        MainWindow w;
        w.show();
        open(w, project(QStringLiteral("range.carbon")));
        loadModel(w, model_);
        if (QTest::currentTestFailed()) return;
        GenerationPanel* g = w.generation()->panel();
        QSpinBox* count = g->countSpin();
        for (const auto& [typed, value] : {std::pair{"0", 0}, std::pair{"9999999", 9999999}}) {
            count->setFocus();
            count->selectAll();
            QTest::keyClicks(count, QString::fromLatin1(typed));
            QTest::keyClick(count, Qt::Key_Tab);
            QCOMPARE(count->value(), value);  // what was typed, not the limit or the value before
            QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
            w.generation()->runGeneration();
            QTRY_VERIFY(w.messageBar()->isVisible());
            QVERIFY2(w.messageBar()->text().contains(QStringLiteral("1 to 10,000")), qPrintable(w.messageBar()->text()));
            QVERIFY(w.generation()->nextRunNumber() == 1);  // nothing ran
            QCOMPARE(count->value(), value);
            w.messageBar()->dismiss();
        }
        // The arrows stay inside the range.
        count->setValue(10000);
        count->stepBy(1);
        QCOMPARE(count->value(), 10000);
        auto* checked = qobject_cast<CheckedSpinBox*>(count);
        QVERIFY(checked);
        QCOMPARE(checked->stepEnabled(), QAbstractSpinBox::StepEnabled(QAbstractSpinBox::StepDownEnabled));
        // Length the same, with its own range.
        g->lengthSpin()->setValue(0);
        count->setValue(1);
        w.generation()->runGeneration();
        QTRY_VERIFY(w.messageBar()->isVisible());
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("1 to 1,000,000")), qPrintable(w.messageBar()->text()));
    }

    void theWheelScrollsThePanelNotTheBoxUnderThePointer() {
        QScrollArea area;
        auto* inner = new QWidget;
        auto* layout = new QVBoxLayout(inner);
        auto* spin = new QSpinBox;
        spin->setRange(0, 100000);
        spin->setValue(8192);
        layout->addWidget(spin);
        layout->addSpacing(3000);
        area.setWidget(inner);
        area.resize(300, 200);
        guardWheel(inner);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        area.setFocus();
        QVERIFY(!spin->hasFocus());
        wheel(spin, -120);
        QCOMPARE(spin->value(), 8192);
        QVERIFY(area.verticalScrollBar()->value() > 0);  // the panel scrolled instead
        // With the keyboard focus (clicked or tabbed into), the box takes the wheel.
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        wheel(spin, 120);
        QCOMPARE(spin->value(), 8193);
    }

    void theToolbarUndoKeepsItsWidthAndAnInsertionIsNotAReplacement() {
        MainWindow w;
        w.show();
        open(w, project(QStringLiteral("undo.carbon")));
        QToolButton* undo = nullptr;
        for (QToolButton* b : w.findChildren<QToolButton*>())
            if (b->defaultAction() && b->defaultAction()->text() == QStringLiteral("Undo")) undo = b;
        QVERIFY(undo);
        QVERIFY(!undo->isEnabled());
        const int width = undo->width();
        SequenceDocument* doc = w.document();
        doc->undoStack()->push(new ReplaceBasesCommand(doc, doc->size(), 0, "ACGTACGTAC"));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Insert 10 base(s)"));
        QVERIFY(undo->isEnabled());
        QCOMPARE(undo->defaultAction()->text(), QStringLiteral("Undo"));
        QCOMPARE(undo->toolTip(), QStringLiteral("Undo Insert 10 base(s)"));
        QApplication::processEvents();
        QCOMPARE(undo->width(), width);
        doc->undoStack()->push(new ReplaceBasesCommand(doc, 0, 4, ""));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Delete 4 base(s)"));
        doc->undoStack()->push(new ReplaceBasesCommand(doc, 0, 4, "GGGG"));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Replace 4 base(s)"));
        doc->undoStack()->push(new ReplaceBasesCommand(doc, 0, 4, "GG"));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Replace 4 base(s) with 2"));
    }

    void aCopyOfTheProjectFileAloneHoldsTheStoredRuns() {
        const QString path = project(QStringLiteral("copied.carbon"));
        MainWindow w;
        open(w, path);
        loadModel(w, model_);
        if (QTest::currentTestFailed()) return;
        GenerationPanel* g = w.generation()->panel();
        g->countSpin()->setValue(2);
        g->lengthSpin()->setValue(18);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.editor()->setSelection(60, 78);
        w.generation()->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 60000);
        // What a user does with a file: copies it (the -wal beside it left behind) while the
        // window still has it open.
        const QString copy = tmp_.filePath(QStringLiteral("copy-of-copied.carbon"));
        QVERIFY(QFile::copy(path, copy));
        QVERIFY(!QFile::exists(copy + QStringLiteral("-wal")));
        auto p = st::Project::open(copy.toStdString(), {.create = false, .read_only = true});
        const auto runs = p->list_runs();
        QCOMPARE(int(runs.size()), 1);
        QCOMPARE(int(p->list_designs(runs[0].id).size()), 2);
    }

    void axesTickAtRoundValues() {
        QCOMPARE(roundTickStep(-6.7, 0.1), 2.0);
        QCOMPARE(roundTickStep(0, 1), 0.2);
        QCOMPARE(roundTickStep(0, 100), 20.0);
        QCOMPARE(roundTickStep(-0.03, 0.02), 0.01);
        QCOMPARE(roundTickStep(0, 12), 2.0);
        QCOMPARE(roundTickStep(3, 3), 1.0);  // an empty range gets a step, not a division by zero
        QValueAxis axis;
        setRoundTicks(&axis, -6.7, 0.1);
        QCOMPARE(axis.tickInterval(), 2.0);
        QCOMPARE(axis.tickAnchor(), 0.0);
        QCOMPARE(axis.labelFormat(), QStringLiteral("%.0f"));
        setRoundTicks(&axis, 0, 0.5);
        QCOMPARE(axis.labelFormat(), QStringLiteral("%.1f"));
    }

    void goToPositionSelectsThatBase() {
        MainWindow w;
        open(w, project(QStringLiteral("goto.carbon")));
        w.editing()->goToPosition(41);
        QCOMPARE(w.editor()->selectionStart(), qsizetype(40));
        QCOMPARE(w.editor()->selectionEnd(), qsizetype(41));
        w.editing()->goToPosition(300);
        QCOMPARE(w.editor()->selectionStart(), qsizetype(299));
        w.editing()->goToPosition(301);  // past the end: said, nothing moved
        QCOMPARE(w.editor()->selectionStart(), qsizetype(299));
    }

    void everyShortcutIsOneActionsAndTheManualNamesOnlyThose() {
        MainWindow w;
        const auto list = menuShortcuts(w.menuBar());
        QVERIFY(list.size() > 15);
        QHash<QString, QString> owner;
        bool run = false;
        for (const auto& [action, keys] : list) {
            if (action == QStringLiteral("Generate > Run")) run = keys.contains(QStringLiteral("F5"));
            for (const QString& k : keys.split(QStringLiteral(", "))) {
                QVERIFY2(!owner.contains(k), qPrintable(k + QStringLiteral(": ") + owner.value(k) + QStringLiteral(" and ") + action));
                owner.insert(k, action);
            }
        }
        QVERIFY(run);
        QFile manual(QStringLiteral(":/carbon/manual.md"));
        QVERIFY(manual.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(manual.readAll());
        const qsizetype keyboard = text.indexOf(QStringLiteral("## Keyboard"));
        QVERIFY(keyboard > 0);
        static const QRegularExpression key(QStringLiteral("\\b((?:Ctrl\\+|Shift\\+|Alt\\+)+[A-Z0-9]+|F[0-9]+)\\b"));
        int named = 0;
        for (auto m = key.globalMatch(text.mid(keyboard)); m.hasNext(); ++named) {
            const QString k = m.next().captured(1);
            QVERIFY2(owner.contains(k), qPrintable(QStringLiteral("the manual names %1, which no menu action has").arg(k)));
        }
        QVERIFY(named >= 10);
    }
};

QTEST_MAIN(TestWindowMessages)
#include "test_window_messages.moc"
