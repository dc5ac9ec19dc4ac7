// EngineWorker on its own QThread with a tiny random model (carbon::make_test_model in a temp
// dir): loading, a clear error for a folder that is not a model, designs and progress streamed
// back, and a long run cancelled through the atomic flag.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "carbon/test_support/test_model.h"
#include "workers/engine_worker.h"

using namespace carbon::ui;

class TestEngineWorker : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString modelDir_;
    QThread thread_;
    EngineWorker* worker_ = nullptr;

    void load(const QString& dir) {
        QMetaObject::invokeMethod(worker_, [w = worker_, dir] { w->loadModel(dir); }, Qt::QueuedConnection);
    }
    void generate(quint64 id, const carbon::DesignRequest& r) {
        QMetaObject::invokeMethod(worker_, [w = worker_, id, r] { w->generate(id, r); }, Qt::QueuedConnection);
    }
    static carbon::DesignRequest request(size_t length, size_t count) {
        carbon::DesignRequest r;
        r.left_context = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";
        r.right_flank = "GATTACA";
        r.length = length;
        r.count = count;
        r.sampling.temperature = 1.0f;
        r.sampling.seed = 7;
        return r;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        modelDir_ = tmp_.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir_.toStdString(), {});
        registerEngineMetaTypes();
        worker_ = new EngineWorker;
        worker_->moveToThread(&thread_);
        thread_.start();
    }
    void cleanupTestCase() {
        worker_->cancel(std::numeric_limits<quint64>::max());
        thread_.requestInterruption();
        thread_.quit();
        thread_.wait();
        delete worker_;
    }
    // Signals come from the worker thread and QSignalSpy records them directly, so one may land
    // before a wait() starts (which would then wait for a second); tests poll the count instead.
    void generateBeforeLoadFails() {
        QSignalSpy failed(worker_, &EngineWorker::failed);
        generate(1, request(12, 1));
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 10000);
        QCOMPARE(failed.first().at(0).toULongLong(), 1ULL);
    }
    void badFolderGivesEngineError() {
        QSignalSpy bad(worker_, &EngineWorker::modelFailed);
        load(tmp_.path());  // exists, but holds no config.json
        QTRY_VERIFY_WITH_TIMEOUT(bad.count() > 0, 10000);
        const QString error = bad.first().at(1).toString();
        QVERIFY2(error.contains(QStringLiteral("config.json")), qPrintable(error));
    }
    void loadsTinyModel() {
        QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
        load(modelDir_);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, 60000);
        const auto summary = loaded.first().at(0).value<ModelSummary>();
        QCOMPARE(summary.dir, modelDir_);
        QCOMPARE(summary.contextBases, 2048 * 6);
        QVERIFY(!summary.rows.isEmpty());
    }
    void generatesDesigns() {
        QSignalSpy designs(worker_, &EngineWorker::designReady);
        QSignalSpy progress(worker_, &EngineWorker::progress);
        QSignalSpy finished(worker_, &EngineWorker::finished);
        generate(2, request(30, 3));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
        QCOMPARE(finished.first().at(0).toULongLong(), 2ULL);
        QCOMPARE(finished.first().at(1).toBool(), false);
        QCOMPARE(designs.size(), 3);
        for (const auto& args : designs) {
            const auto d = args.at(1).value<carbon::Design>();
            QCOMPARE(d.bases.size(), size_t(30));
        }
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(1).toLongLong(), progress.last().at(2).toLongLong());  // last report: done
    }
    void cancelsLongRun() {
        QSignalSpy progress(worker_, &EngineWorker::progress);
        QSignalSpy finished(worker_, &EngineWorker::finished);
        QSignalSpy designs(worker_, &EngineWorker::designReady);
        generate(3, request(9000, 8));  // minutes on the tiny model if not cancelled
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 60000);
        QElapsedTimer t;
        t.start();
        worker_->cancel(3);  // direct call from this thread: only an atomic store
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 20000);
        QVERIFY2(t.elapsed() < 10000, "cancellation took too long");
        QCOMPARE(finished.first().at(0).toULongLong(), 3ULL);
        QCOMPARE(finished.first().at(1).toBool(), true);
        QVERIFY(progress.last().at(1).toLongLong() < progress.last().at(2).toLongLong());
    }
    void cancelledWhileQueued() {
        QSignalSpy finished(worker_, &EngineWorker::finished);
        worker_->cancel(4);
        generate(4, request(30, 1));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 10000);
        QCOMPARE(finished.first().at(1).toBool(), true);
    }
};

QTEST_MAIN(TestEngineWorker)
#include "test_engine_worker.moc"
