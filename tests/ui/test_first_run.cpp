// The first run as a new user sees it: the window takes most of the screen, the welcome page
// has it to itself (the docks, empty until a sequence is open, come in with the sequence), and
// the second run restores the geometry and dock layout the first left. Shortcuts (F5 Run,
// Ctrl+M Open Model Folder) reach their actions wherever focus is in the window: the editor, the
// project's sequence list, the designs table.
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>

#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/designs_view.h"
#include "views/project_browser.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;

namespace {

// The docks open in the layout: shown, or a tab behind another dock (its View menu entry checked).
QStringList openDocks(const QMainWindow& w) {
    QStringList names;
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (d->toggleViewAction()->isChecked()) names << d->objectName();
    names.sort();
    return names;
}

// Whether the dock titled `title` is the current tab of the tab bar it shares with other docks.
bool tabInFront(const QMainWindow& w, const QString& title) {
    for (QTabBar* bar : w.findChildren<QTabBar*>())
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == title) return bar->currentIndex() == i;
    return false;
}

QAction* actionNamed(const QMainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

}  // namespace

class TestFirstRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings in a test location, never the user's
        QSettings().clear();
    }

    void firstRunThenRestored() {
        QStringList editorDocks;
        QRect savedGeometry;
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            const QRect avail = w.screen()->availableGeometry();
            const QRect frame = w.frameGeometry();
            const double share = double(frame.width()) * frame.height() / (double(avail.width()) * avail.height());
            QVERIFY2(share >= 0.80, qPrintable(QStringLiteral("first-run window %1x%2 on %3x%4: %5 of the screen")
                                                   .arg(frame.width()).arg(frame.height()).arg(avail.width()).arg(avail.height()).arg(share)));
            QVERIFY(avail.contains(frame.topLeft()));
            // The welcome page alone: no empty docks squeezing it.
            QVERIFY(w.isWelcomeShown());
            QCOMPARE(openDocks(w), QStringList());
            // A sequence brings the docks in.
            w.document()->setBases(ui_test::randomBases(500, 1));
            QVERIFY(!w.isWelcomeShown());
            editorDocks = openDocks(w);
            for (const char* name : {"designsDock", "generationDock", "inspectorDock", "modelDock", "runLogDock"})
                QVERIFY2(editorDocks.contains(QLatin1String(name)), name);
            // In front by default: the generation settings and the designs table, not the empty inspector.
            QTest::qWait(20);  // the dock tabs are laid out
            QVERIFY(tabInFront(w, QStringLiteral("Generation")));
            QVERIFY(tabInFront(w, QStringLiteral("Designs")));
            QVERIFY(!tabInFront(w, QStringLiteral("Base Inspector")));
            // The default layout fits a 1366x768 laptop screen (less a panel and the title bar).
            const QSize least = w.minimumSizeHint();
            QVERIFY2(least.width() <= 1366 && least.height() <= 700,
                     qPrintable(QStringLiteral("minimum size %1x%2").arg(least.width()).arg(least.height())));
            // The user hides one dock and makes the window smaller; the welcome page again hides
            // the docks; the layout saved on close is the editor's, not the welcome page's.
            w.findChild<QDockWidget*>(QStringLiteral("mutagenesisDock"))->hide();
            editorDocks = openDocks(w);
            w.setGeometry(QRect(avail.topLeft() + QPoint(40, 50), avail.size() * 3 / 4));
            QTest::qWait(50);
            savedGeometry = w.geometry();
            w.showWelcome();
            QCOMPARE(openDocks(w), QStringList());
            w.close();
        }
        MainWindow w2;
        w2.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w2));
        QCOMPARE(w2.geometry().size(), savedGeometry.size());
        QVERIFY(w2.isWelcomeShown());
        QCOMPARE(openDocks(w2), QStringList());
        w2.document()->setBases(ui_test::randomBases(500, 2));
        QCOMPARE(openDocks(w2), editorDocks);  // the mutagenesis dock stays hidden
        QTest::qWait(20);
        QCOMPARE(w2.geometry().size(), savedGeometry.size());  // the docks come back inside the window
        QVERIFY(!editorDocks.contains(QStringLiteral("mutagenesisDock")));
    }

    void shortcutsReachActionsFromEveryFocus() {
        QTemporaryDir tmp;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        // A project, so that the sequence list holds the edited sequence.
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->newProject(tmp.filePath(QStringLiteral("p.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1, 20000);
        w.document()->setBases(ui_test::randomBases(300, 3));
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->browser()->tree()->topLevelItemCount() > 0, 20000);
        QAction* run = actionNamed(w, QStringLiteral("&Run"));
        QAction* openModel = actionNamed(w, QStringLiteral("Open &Model Folder…"));
        QVERIFY(run && openModel);
        QSignalSpy runs(run, &QAction::triggered), opens(openModel, &QAction::triggered);
        QWidget* sequenceList = w.project()->browser()->tree();
        QWidget* designsTable = w.designs()->view()->table();
        int expected = 0;
        for (QWidget* target : {static_cast<QWidget*>(w.editor()), sequenceList, designsTable}) {
            QVERIFY2(target->isVisible(), qPrintable(target->objectName()));
            w.activateWindow();  // back from the previous round's folder dialog
            QVERIFY(QTest::qWaitForWindowActive(&w));
            target->setFocus();
            QTRY_VERIFY2(target->hasFocus(), qPrintable(QStringLiteral("%1 enabled %2 policy %3 focus on %4 active %5")
                                                             .arg(QLatin1String(target->metaObject()->className()))
                                                             .arg(target->isEnabled()).arg(int(target->focusPolicy()))
                                                             .arg(QApplication::focusWidget() ? QLatin1String(QApplication::focusWidget()->metaObject()->className()) : QLatin1String("none"))
                                                             .arg(w.isActiveWindow())));
            QTest::keyClick(target, Qt::Key_F5);
            ++expected;
            QCOMPARE(runs.count(), expected);
            // Ctrl+M opens a folder dialog; close it as soon as it shows.
            QTimer::singleShot(0, [] {
                if (QWidget* dlg = QApplication::activeModalWidget()) dlg->close();
            });
            QTest::keyClick(target, Qt::Key_M, Qt::ControlModifier);
            QCOMPARE(opens.count(), expected);
        }
    }

    // Opening a sequence file or a design replaces bases through one undo step; undoing it puts
    // back the regions (the design region, the pinned motif) with the bases.
    void openFileAndDesignUndoKeepRegions() {
        QTemporaryDir tmp;
        MainWindow w;
        w.show();
        SequenceDocument* doc = w.document();
        doc->setBases(ui_test::randomBases(200, 4));
        Region design, pinned;
        design.kind = Region::Kind::Design, design.start = 50, design.end = 90;
        pinned.kind = Region::Kind::PinnedMotif, pinned.start = 60, pinned.end = 67;
        doc->setRegions({design, pinned});
        const QByteArray bases0 = doc->bases();
        const QList<Region> regions0 = doc->regions();

        DesignRow row;
        row.design.bases = std::string(40, 'C');
        row.regionStart = 50;
        row.regionLength = 40;
        w.designs()->model()->addRow(row);
        w.generation()->openDesign(0);
        QCOMPARE(doc->mid(50, 40), QByteArray(40, 'C'));
        QCOMPARE(doc->regions(), regions0);  // the design fills its region; nothing moves
        w.document()->undoStack()->undo();
        QCOMPARE(doc->bases(), bases0);
        QCOMPARE(doc->regions(), regions0);

        const QString fasta = tmp.filePath(QStringLiteral("other.fa"));
        QVERIFY(ui_test::writeFile(fasta, ">other\nACGTACGTAC\n"));
        QVERIFY(w.project()->openSequenceFile(fasta));
        QCOMPARE(doc->bases(), QByteArray("ACGTACGTAC"));
        QVERIFY(doc->regions().isEmpty());
        w.document()->undoStack()->undo();
        QCOMPARE(doc->bases(), bases0);
        QCOMPARE(doc->regions(), regions0);
        w.document()->undoStack()->redo();
        QCOMPARE(doc->bases(), QByteArray("ACGTACGTAC"));
    }
};

QTEST_MAIN(TestFirstRun)
#include "test_first_run.moc"
