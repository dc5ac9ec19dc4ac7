// The GUI thread never blocks on the engine or the project file: a watchdog timer on the GUI
// thread measures the longest gap between its ticks while a generation runs, its designs are
// scored and stored, and while a long run is cancelled; any gap over 100 ms fails. Cancel must
// end the run within half a second and store nothing.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/sequence_editor.h"
#include "workers/project_store.h"

using namespace carbon::ui;

namespace {

// Ticks every 5 ms on the GUI thread and keeps the longest interval between two ticks.
class Watchdog : public QObject {
public:
    Watchdog() {
        timer_.setTimerType(Qt::PreciseTimer);
        connect(&timer_, &QTimer::timeout, this, [this] {
            maxGapMs_ = std::max(maxGapMs_, since_.restart());
        });
    }
    void start() {
        maxGapMs_ = 0;
        since_.start();
        timer_.start(5);
    }
    qint64 stop() {
        timer_.stop();
        return std::max(maxGapMs_, since_.elapsed());
    }

private:
    QTimer timer_;
    QElapsedTimer since_;
    qint64 maxGapMs_ = 0;
};

}  // namespace

class TestResponsiveness : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void guiThreadNeverBlocksDuringGenerationStorageAndCancel() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        const QString path = tmp.filePath(QStringLiteral("p.carbon"));
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QByteArray seq = ui_test::randomBases(20000, 11);
        w.document()->setBases(seq);
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->newProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && w.project()->currentSequenceId() > 0, 20000);
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);

        // A complete run: generation, progress, designs streaming in, scoring, storing.
        Watchdog dog;
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.editor()->setSelection(5000, 5600);
        w.generation()->panel()->countSpin()->setValue(8);
        dog.start();
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 180000);
        QTRY_VERIFY_WITH_TIMEOUT(w.designs()->model()->rowCount() == 8 && w.designs()->model()->row(7).designId > 0, 20000);
        const qint64 runGap = dog.stop();
        qInfo("longest GUI-thread gap during a run of 8 x 600 bp, scoring and storing: %lld ms", runGap);
        QVERIFY2(runGap <= 100, qPrintable(QStringLiteral("GUI thread blocked for %1 ms").arg(runGap)));

        // A long run, cancelled mid-way: it stops within 0.5 s and nothing of it is stored.
        w.generation()->panel()->lengthSpin()->setValue(20000);
        w.editor()->setSelection(100, 100);
        dog.start();
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(w.generation()->isGenerating(), 5000);
        QTest::qWait(400);
        QElapsedTimer cancel;
        cancel.start();
        w.generation()->cancelGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 5000);
        const qint64 cancelMs = cancel.elapsed();
        QTest::qWait(300);  // anything the cancelled run might still send would arrive here
        const qint64 cancelGap = dog.stop();
        qInfo("cancel took %lld ms; longest GUI-thread gap %lld ms", cancelMs, cancelGap);
        QVERIFY2(cancelMs <= 500, qPrintable(QStringLiteral("cancel took %1 ms").arg(cancelMs)));
        QVERIFY2(cancelGap <= 100, qPrintable(QStringLiteral("GUI thread blocked for %1 ms").arg(cancelGap)));
        QCOMPARE(w.designs()->model()->rowCount(), 8);
        auto p = carbon::storage::Project::open(path.toStdString(), {.create = false});
        QCOMPARE(p->count("runs"), int64_t(1));
        QCOMPARE(p->count("designs"), int64_t(8));
    }
};

QTEST_MAIN(TestResponsiveness)
#include "test_responsiveness.moc"
