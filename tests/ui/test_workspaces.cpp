// Workspaces (issue 29): Design, Compare Variants and Analyse each show the docks their work needs
// and give every dock a place; what the user changes is kept per workspace and for the next
// session; View > Reset Layout brings one back as it came; a dock a workspace does not show comes
// forward in its place when it has something to show; at 1366x768 every workspace fits the
// screen and the generation panel needs no sideways scrolling.
#include <QApplication>
#include <QDockWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "controllers/generation_controller.h"
#include "controllers/window_services.h"
#include "controllers/workspaces.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/generation_panel.h"

using namespace carbon::ui;
using Kind = Workspaces::Kind;

namespace {

QDockWidget* dock(MainWindow& w, const char* name) { return w.findChild<QDockWidget*>(QLatin1String(name)); }

QStringList visibleDocks(MainWindow& w) {
    QStringList names;
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (!d->isHidden()) names << d->objectName();
    names.sort();
    return names;
}

// The window at a laptop's size with a sequence in the editor (its docks out).
void openEditor(MainWindow& w) {
    w.resize(1366, 740);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.document()->setBases(ui_test::randomBases(2000, 5));
    w.showEditor();
    QVERIFY(!w.isWelcomeShown());
}

}  // namespace

class TestWorkspaces : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }

    void everyWorkspacePlacesEveryDockOnce() {
        MainWindow w;
        QStringList all;
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) all << d->objectName();
        all.sort();
        QCOMPARE(all.size(), 14);
        for (const Workspaces::Layout& l : Workspaces::layouts()) {
            QStringList placed;
            for (const Workspaces::Group& g : l.groups) {
                QVERIFY2(!g.hidden.contains(g.docks.first()), g.docks.first());  // a group shows its first dock
                for (const char* h : g.hidden) QVERIFY2(g.docks.contains(h), h);
                for (const char* d : g.docks) placed << QLatin1String(d);
            }
            placed.sort();
            QCOMPARE(placed, all);
        }
    }

    void eachWorkspaceShowsTheDocksItsWorkNeeds() {
        MainWindow w;
        openEditor(w);
        QCOMPARE(w.workspaces()->current(), Kind::Design);
        QVERIFY(!dock(w, "generationDock")->isHidden());
        QVERIFY(!dock(w, "designsDock")->isHidden());
        QVERIFY(dock(w, "vepDock")->isHidden());
        w.workspaces()->switchTo(Kind::CompareVariants);
        QVERIFY(!dock(w, "vepDock")->isHidden());
        QVERIFY(!dock(w, "inspectorDock")->isHidden());
        QVERIFY(dock(w, "generationDock")->isHidden());
        QVERIFY(dock(w, "designsDock")->isHidden());
        QCOMPARE(w.dockWidgetArea(dock(w, "inspectorDock")), Qt::RightDockWidgetArea);
        QCOMPARE(w.dockWidgetArea(dock(w, "vepDock")), Qt::BottomDockWidgetArea);
        w.workspaces()->switchTo(Kind::Analyse);
        QVERIFY(!dock(w, "mutagenesisDock")->isHidden());
        QVERIFY(!dock(w, "logoDock")->isHidden());
        QVERIFY(dock(w, "vepDock")->isHidden());
        w.workspaces()->switchTo(Kind::Design);
        QVERIFY(!dock(w, "generationDock")->isHidden());
        QVERIFY(dock(w, "vepDock")->isHidden());
        // The right column runs down to the status bar: the inspector's chart gets the height.
        QCOMPARE(w.corner(Qt::BottomRightCorner), Qt::RightDockWidgetArea);
    }

    void whatTheUserChangesIsKeptPerWorkspaceAndResetBringsItBack() {
        QStringList designAsLeft;
        {
            MainWindow w;
            openEditor(w);
            dock(w, "runLogDock")->close();
            designAsLeft = visibleDocks(w);
            QVERIFY(!designAsLeft.contains(QStringLiteral("runLogDock")));
            w.workspaces()->switchTo(Kind::CompareVariants);
            const QStringList compare = visibleDocks(w);
            w.workspaces()->switchTo(Kind::Design);
            QCOMPARE(visibleDocks(w), designAsLeft);  // kept while away
            w.workspaces()->switchTo(Kind::CompareVariants);
            QCOMPARE(visibleDocks(w), compare);  // the other workspace untouched
            w.close();  // the session ends in Compare Variants
        }
        MainWindow next;
        QCOMPARE(next.workspaces()->current(), Kind::CompareVariants);
        openEditor(next);
        QVERIFY(!next.findChild<QDockWidget*>(QStringLiteral("vepDock"))->isHidden());
        next.workspaces()->switchTo(Kind::Design);
        QCOMPARE(visibleDocks(next), designAsLeft);  // the next session has it too
        next.workspaces()->resetLayout();
        QVERIFY(!dock(next, "runLogDock")->isHidden());
        QCOMPARE(next.dockWidgetArea(dock(next, "runLogDock")), Qt::BottomDockWidgetArea);
    }

    void aDockNotShownComesForwardInItsPlace() {
        MainWindow w;
        openEditor(w);
        QVERIFY(dock(w, "vepDock")->isHidden());
        w.findChild<WindowServices*>()->raiseDock(QStringLiteral("vepDock"));  // e.g. a VCF scored
        QVERIFY(!dock(w, "vepDock")->isHidden());
        QCOMPARE(w.dockWidgetArea(dock(w, "vepDock")), Qt::BottomDockWidgetArea);
        QVERIFY(w.tabifiedDockWidgets(dock(w, "designsDock")).contains(dock(w, "vepDock")));
    }

    void theWelcomePageHidesTheDocksAndTheEditorBringsThemBack() {
        MainWindow w;
        openEditor(w);
        w.workspaces()->switchTo(Kind::Analyse);
        const QStringList analyse = visibleDocks(w);
        w.showWelcome();
        QVERIFY(visibleDocks(w).isEmpty());
        w.workspaces()->switchTo(Kind::Design);  // chosen while the welcome page shows: applied with the editor
        QVERIFY(visibleDocks(w).isEmpty());
        w.showEditor();
        QVERIFY(!dock(w, "generationDock")->isHidden());
        w.workspaces()->switchTo(Kind::Analyse);
        QCOMPARE(visibleDocks(w), analyse);
    }

    void everyWorkspaceFitsALaptopScreen() {
        MainWindow w;
        openEditor(w);
        for (const Workspaces::Layout& l : Workspaces::layouts()) {
            w.workspaces()->switchTo(l.kind);
            QApplication::processEvents();
            const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
            QVERIFY2(least.width() <= 1366 && least.height() <= 740,
                     qPrintable(QStringLiteral("%1 needs at least %2x%3").arg(Workspaces::title(l.kind)).arg(least.width()).arg(least.height())));
            QCOMPARE(w.size(), QSize(1366, 740));  // the workspace did not widen the window
        }
        w.workspaces()->switchTo(Kind::Design);
        QApplication::processEvents();
        auto* scroll = qobject_cast<QScrollArea*>(dock(w, "generationDock")->widget());
        QVERIFY(scroll);
        QTRY_VERIFY(scroll->viewport()->width() > 0);
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the generation panel needs %1 px, its dock gives %2")
                                .arg(w.generation()->panel()->minimumSizeHint().width()).arg(scroll->viewport()->width())));
    }
};

QTEST_MAIN(TestWorkspaces)
#include "test_workspaces.moc"
