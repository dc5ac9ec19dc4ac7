// What one session leaves for the next (issue 29): the model loaded last comes back (in the
// background, its draft paired after it) and a Run pressed while it loads starts once it has; the
// generation settings of the last run come back, and values a settings file cannot hold (out of
// range, no longer offered) are left at their defaults; file dialogs open in the folder of the
// last file chosen, never in the application's hidden data folder.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/generation_panel.h"
#include "views/remembered_values.h"
#include "views/sequence_editor.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestSession : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;

    QString project(const QString& name) { return ui_test::projectWithSequence(tmp_.filePath(name), "alpha", 300, 11); }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // settings under ~/.qttest, not the user's
        QVERIFY(tmp_.isValid());
        model_ = tmp_.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(model_.toStdString(), {});
    }

    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }

    void theModelOfTheLastSessionComesBackAndARunWaitsForIt() {
        {
            MainWindow first;
            QVERIFY(!first.models()->restoreLast());  // nothing to restore yet
            first.models()->load(model_);
            QTRY_VERIFY_WITH_TIMEOUT(first.models()->isReady(), 60000);
        }
        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(project(QStringLiteral("restored.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.restoreSession();
        QVERIFY(w.models()->isLoading());
        // F5 at once: the run waits for the model, then runs with it and is stored.
        GenerationPanel* g = w.generation()->panel();
        g->countSpin()->setValue(1);
        g->lengthSpin()->setValue(12);
        w.editor()->setSelection(100, 112);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->runGeneration();
        QVERIFY(w.generation()->isWaitingForModel() || w.generation()->isGenerating());
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 60000);
        QCOMPARE(w.models()->dir(), model_);
        QVERIFY(!w.generation()->isWaitingForModel());
    }

    void aRunWaitingForAModelThatFailsIsDropped() {
        const QString gone = tmp_.filePath(QStringLiteral("not-a-model"));
        QVERIFY(QDir().mkpath(gone));
        MainWindow w;
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(project(QStringLiteral("dropped.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        QSignalSpy failed(w.models(), &ModelController::failed);
        w.models()->load(gone);
        w.generation()->runGeneration();
        QVERIFY(w.generation()->isWaitingForModel());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
        QVERIFY(!w.generation()->isWaitingForModel());
        QVERIFY(!w.generation()->isGenerating());
        // Cancel drops a waiting run too.
        w.models()->load(model_);
        w.generation()->runGeneration();
        QVERIFY(w.generation()->isWaitingForModel());
        w.generation()->cancelGeneration();
        QVERIFY(!w.generation()->isWaitingForModel());
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QTest::qWait(200);
        QVERIFY(!w.generation()->isGenerating());
    }

    void aModelFolderThatIsGoneIsSaidAndNotLoaded() {
        QSettings().setValue(QStringLiteral("models/last"), tmp_.filePath(QStringLiteral("moved-away")));
        MainWindow w;
        w.restoreSession();
        QVERIFY(!w.models()->isLoading());
        QVERIFY(!w.models()->isReady());
    }

    void theGenerationSettingsOfTheLastRunComeBack() {
        {
            MainWindow first;
            QSignalSpy opened(first.project(), &ProjectController::sequenceOpened);
            first.project()->openProject(project(QStringLiteral("settings.carbon")));
            QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
            first.models()->load(model_);
            QTRY_VERIFY_WITH_TIMEOUT(first.models()->isReady(), 60000);
            GenerationPanel* g = first.generation()->panel();
            g->countSpin()->setValue(3);
            g->lengthSpin()->setValue(30);
            g->temperatureSpin()->setValue(0.7);
            g->newSeedCheck()->setChecked(false);
            g->seedSpin()->setValue(4242);
            g->findChild<QListWidget*>()->item(1)->setCheckState(Qt::Checked);
            g->findChild<QDoubleSpinBox*>(QStringLiteral("gcMin"))->setValue(35.0);
            g->findChild<QLineEdit*>(QStringLiteral("forbiddenMotifs"))->setText(QStringLiteral("GAATTC"));
            g->templateEdit()->setText(QStringLiteral("NNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"));
            QSignalSpy stored(first.project()->store(), &ProjectStore::runStored);
            first.editor()->setSelection(10, 40);
            first.generation()->runGeneration();
            QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 60000);
        }
        MainWindow w;
        GenerationPanel* g = w.generation()->panel();
        QCOMPARE(g->countSpin()->value(), 10);  // a window without restoreSession starts from the defaults
        w.restoreSession();
        QCOMPARE(g->countSpin()->value(), 3);
        QCOMPARE(g->lengthSpin()->value(), 30);
        QCOMPARE(g->temperatureSpin()->value(), 0.7);
        QVERIFY(!g->newSeedCheck()->isChecked());
        QCOMPARE(g->seedSpin()->value(), 4242);
        QCOMPARE(g->findChild<QListWidget*>()->item(1)->checkState(), Qt::Checked);
        QCOMPARE(g->findChild<QListWidget*>()->item(0)->checkState(), Qt::Unchecked);
        QCOMPARE(g->findChild<QDoubleSpinBox*>(QStringLiteral("gcMin"))->value(), 35.0);
        QCOMPARE(g->findChild<QLineEdit*>(QStringLiteral("forbiddenMotifs"))->text(), QStringLiteral("GAATTC"));
        QVERIFY(g->templateEdit()->text().isEmpty());  // the template belongs to the sequence, not the session
    }

    void valuesASettingsFileCannotHoldAreLeftAtTheirDefaults() {
        QSettings s;
        s.setValue(QStringLiteral("generation/count"), 99999999);
        s.setValue(QStringLiteral("generation/length"), QStringLiteral("long"));
        s.setValue(QStringLiteral("generation/temperature"), QStringLiteral("nan"));
        s.setValue(QStringLiteral("generation/topP"), 7.0);
        s.setValue(QStringLiteral("generation/mode"), 99);
        s.setValue(QStringLiteral("generation/newSeedEachRun"), QStringLiteral("maybe"));
        s.setValue(QStringLiteral("generation/tags"), QStringList{QStringLiteral("<no such tag>")});
        s.setValue(QStringLiteral("generation/gcMin"), 80.0);
        s.setValue(QStringLiteral("generation/gcMax"), 20.0);
        s.sync();
        MainWindow w;
        w.restoreSession();
        GenerationPanel* g = w.generation()->panel();
        QCOMPARE(g->countSpin()->value(), 10);
        QCOMPARE(g->lengthSpin()->value(), 200);
        QCOMPARE(g->temperatureSpin()->value(), 1.0);
        QCOMPARE(g->findChild<QDoubleSpinBox*>(QStringLiteral("topP"))->value(), 0.95);
        QCOMPARE(g->findChild<QComboBox*>(QStringLiteral("mode"))->currentIndex(), 0);
        QVERIFY(g->newSeedCheck()->isChecked());
        for (int i = 0; i < g->findChild<QListWidget*>()->count(); ++i)
            QCOMPARE(g->findChild<QListWidget*>()->item(i)->checkState(), Qt::Unchecked);
        QCOMPARE(g->findChild<QDoubleSpinBox*>(QStringLiteral("gcMin"))->value(), 0.0);  // a window no run accepts
        QCOMPARE(g->findChild<QDoubleSpinBox*>(QStringLiteral("gcMax"))->value(), 100.0);
    }

    void fileDialogsOpenWhereTheLastFileWasChosen() {
        MainWindow w;
        WindowServices* services = w.findChild<WindowServices*>();
        QVERIFY(services);
        // The sample project lives in the application's data folder: dialogs do not open there.
        const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QVERIFY(QDir().mkpath(data));
        services->setStartFolder(data);
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        QCOMPARE(services->startFolder(), QFileInfo(documents).isDir() ? documents : QDir::homePath());
        // A project elsewhere: its folder.
        services->setStartFolder(tmp_.path());
        QCOMPARE(services->startFolder(), QFileInfo(tmp_.path()).canonicalFilePath());
        // A file chosen: its folder from then on, in this window and the next.
        const QString other = tmp_.filePath(QStringLiteral("exports"));
        QVERIFY(QDir().mkpath(other));
        services->setNextFileAnswer(other + QStringLiteral("/designs.fa"));
        QCOMPARE(services->chooseFile(true, QStringLiteral("Export"), QString()), other + QStringLiteral("/designs.fa"));
        QCOMPARE(services->startFolder(), other);
        MainWindow next;
        QCOMPARE(next.findChild<WindowServices*>()->startFolder(), other);
        // A cancelled dialog changes nothing; a folder since removed is not offered.
        services->setNextFileAnswer(QStringLiteral(""));
        QVERIFY(services->chooseFile(false, QStringLiteral("Open"), QString()).isEmpty());
        QCOMPARE(services->startFolder(), other);
        QVERIFY(QDir(other).removeRecursively());
        QCOMPARE(services->startFolder(), QFileInfo(tmp_.path()).canonicalFilePath());
    }
};

QTEST_MAIN(TestSession)
#include "test_session.moc"
