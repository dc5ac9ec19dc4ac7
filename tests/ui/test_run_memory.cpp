// A run's memory, as the user meets it (issue 29): the Run Log says what each run's caches take
// of the memory available; a run that takes more than the confirm fraction is asked about first
// (declined: not started, nothing stored, the number kept for the next run; accepted: it runs);
// a run that cannot fit is refused before any work with both numbers, at the top of the window
// and in the panel; and a large run cancelled part-way gives its memory back.
#include <QPlainTextEdit>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "carbon/storage/project.h"
#include "carbon/support/host_memory.h"
#include "carbon/test_support/test_model.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "controllers/window_services.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/generation_panel.h"
#include "views/message_bar.h"
#include "views/sequence_editor.h"
#include "workers/engine_worker.h"
#include "workers/project_store.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestRunMemory : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString model_;

    QString project(const QString& name) { return ui_test::projectWithSequence(tmp_.filePath(name), "alpha", 300, 7); }

    void openWithModel(MainWindow& w, const QString& projectName) {
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(project(projectName));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        w.models()->load(model_);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
    }

    static QString runLog(MainWindow& w) { return w.findChild<QPlainTextEdit*>()->toPlainText(); }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        // Eight layers of the tiny shape (2 KiB of KV cache per token) and a long context, so that
        // a large request is large and one can be too large for this machine.
        model_ = tmp_.filePath(QStringLiteral("eight-layers"));
        carbon::TestModelOptions o;
        o.layers = 8;
        o.max_position = 400000;
        carbon::make_test_model(model_.toStdString(), o);
    }

    void aLargeRunIsAskedAboutFirst() {
        MainWindow w;
        w.show();
        openWithModel(w, QStringLiteral("ask.carbon"));
        if (QTest::currentTestFailed()) return;
        GenerationController* gen = w.generation();
        gen->setConfirmAbove(1e-9);  // every run counts as large here
        gen->panel()->countSpin()->setValue(2);
        gen->panel()->lengthSpin()->setValue(24);
        w.editor()->setSelection(100, 124);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        const qint64 number = gen->nextRunNumber();

        w.services()->setNextConfirmAnswer(false);
        gen->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!gen->isGenerating(), 30000);
        QVERIFY2(gen->panel()->message().contains(QStringLiteral("Run %1 not started").arg(number)), qPrintable(gen->panel()->message()));
        QVERIFY2(gen->panel()->message().contains(QStringLiteral("of memory")), qPrintable(gen->panel()->message()));
        QVERIFY(runLog(w).contains(QStringLiteral("Run %1 not started").arg(number)));
        QTest::qWait(300);
        QCOMPARE(stored.count(), 0);
        QCOMPARE(gen->nextRunNumber(), number);  // a run not started takes no number

        w.services()->setNextConfirmAnswer(true);
        gen->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, 60000);
        QVERIFY2(runLog(w).contains(QStringLiteral("Run %1: its caches take about").arg(number)), qPrintable(runLog(w)));
        QVERIFY(runLog(w).contains(QStringLiteral("of memory available")));
        QCOMPARE(gen->nextRunNumber(), number + 1);

        // An ordinary run is not asked about, and its plan is in the Run Log too.
        gen->setConfirmAbove(0.5);
        gen->runGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 2, 60000);
        QVERIFY(runLog(w).contains(QStringLiteral("Run %1: its caches take about").arg(number + 1)));
    }

    void aRunThatCannotFitIsRefusedWithBothNumbers() {
        MainWindow w;
        w.show();
        openWithModel(w, QStringLiteral("huge.carbon"));
        if (QTest::currentTestFailed()) return;
        GenerationController* gen = w.generation();
        // 10,000 designs of 1 Mbp: about 7 TB of caches on this model, more than any machine here has.
        gen->panel()->countSpin()->setValue(10000);
        gen->panel()->lengthSpin()->setValue(1000000);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.editor()->setFocus();
        gen->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!gen->isGenerating(), 30000);
        const QString panel = gen->panel()->message();
        QVERIFY2(panel.contains(QStringLiteral("10000 design(s) of 1000000 bp")) && panel.contains(QStringLiteral("is available")) &&
                     panel.contains(QStringLiteral("TiB")),
                 qPrintable(panel));
        QTRY_VERIFY(w.messageBar()->isVisible());
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("need about")), qPrintable(w.messageBar()->text()));
        QVERIFY(runLog(w).contains(QStringLiteral("ERROR")));
        QCOMPARE(stored.count(), 0);
    }

    void aCancelledLargeRunGivesItsMemoryBack() {
        QThread thread;
        auto* worker = new EngineWorker;
        worker->moveToThread(&thread);
        thread.start();
        const auto stop = qScopeGuard([&] {
            worker->cancel(std::numeric_limits<quint64>::max());
            thread.quit();
            thread.wait();
            delete worker;
        });
        QSignalSpy loaded(worker, &EngineWorker::modelLoaded);
        QMetaObject::invokeMethod(worker, [worker, m = model_] { worker->loadModel(m); }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, 60000);
        const size_t baseline = carbon::resident_host_memory();
        if (baseline == 0) QSKIP("resident memory cannot be read here (/proc/self/status)");

        carbon::DesignRequest r;
        r.left_context = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";
        r.length = 900;
        r.count = 1500;
        r.sampling.temperature = 0.8f;
        size_t peak = baseline;
        bool cancelled = false;
        connect(worker, &EngineWorker::progress, this, [&](quint64, qint64 done, qint64 total, double) {
            peak = std::max(peak, carbon::resident_host_memory());
            if (!cancelled && done * 2 >= total) {
                cancelled = true;
                worker->cancel(1);  // as the window's Cancel does
            }
        }, Qt::DirectConnection);
        QSignalSpy finished(worker, &EngineWorker::finished);
        QMetaObject::invokeMethod(worker, [worker, r] { worker->generate(1, r, 2.0); }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 120000);
        QVERIFY(finished.first().at(1).toBool());  // cancelled
        const double grown = double(peak) - double(baseline);
        QVERIFY2(grown > 150.0 * 1024 * 1024, "the run was not large enough to show anything");
        // The worker gives the memory back just after it reported the run.
        QTRY_VERIFY_WITH_TIMEOUT(double(carbon::resident_host_memory()) < double(baseline) + 0.25 * grown, 10000);
        qInfo("resident: before %s, peak %s, after the cancelled run %s", carbon::human_bytes(double(baseline)).c_str(),
              carbon::human_bytes(double(peak)).c_str(), carbon::human_bytes(double(carbon::resident_host_memory())).c_str());
    }
};

QTEST_MAIN(TestRunMemory)
#include "test_run_memory.moc"
