// Background analysis with a tiny random model: rescoring after edits delivers only the latest
// request and equals a fresh score_sequence; the inspector shows the engine's marginals; the
// heat map's fast matrix equals saturation_mutagenesis (fast); and a window screenshot with the
// likelihood band, inspector and heat map ($CARBON_SCREENSHOT2 or /tmp/carbon-studio-2.png).
#include <QImage>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <cmath>

#include "carbon/model.h"
#include "carbon/scoring/variants.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/base_inspector.h"
#include "views/mutagenesis_heat_map.h"
#include "views/sequence_editor.h"
#include "views/theme.h"
#include "views/track_chart_view.h"
#include "workers/engine_worker.h"

using namespace carbon::ui;

class TestAnalysis : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString modelDir_;
    std::unique_ptr<carbon::Model> model_;  // the reference the GUI's numbers are checked against
    QThread thread_;
    EngineWorker* worker_ = nullptr;
    SequenceDocument doc_;
    LikelihoodController* controller_ = nullptr;

    carbon::ScoreOptions options() const {
        carbon::ScoreOptions o;
        o.token_score = false;
        o.context_tokens = size_t(model_->config().max_position_embeddings);
        return o;
    }
    static QByteArray randomBases(int n, quint32 seed) {
        QRandomGenerator rng(seed);
        QByteArray s(n, 'A');
        for (auto& c : s) c = "ACGT"[rng.bounded(4)];
        return s;
    }

private slots:
    void initTestCase() {
        modelDir_ = ui_test::startWithTinyModel(tmp_);
        QVERIFY(!modelDir_.isEmpty());
        model_ = carbon::Model::load(modelDir_.toStdString());
        registerEngineMetaTypes();
        worker_ = new EngineWorker;
        worker_->moveToThread(&thread_);
        thread_.start();
        QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
        QMetaObject::invokeMethod(worker_, [w = worker_, d = modelDir_] { w->loadModel(d); }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, 60000);
        controller_ = new LikelihoodController(&doc_, worker_, this);
    }
    void cleanupTestCase() {
        thread_.requestInterruption();
        thread_.quit();
        thread_.wait();
        delete worker_;
    }

    void rescoringDeliversLatestOnly() {
        doc_.setBases(randomBases(900, 1));
        QSignalSpy ready(controller_, &LikelihoodController::trackReady);
        controller_->setModelReady(true);  // request 1
        // Three edits, each sent at once: the earlier requests are superseded in flight.
        doc_.replace(850, 1, "G");
        controller_->requestNow();
        doc_.insert(880, "TTAGC");
        controller_->requestNow();
        doc_.remove(10, 3);
        controller_->requestNow();
        const quint64 latest = controller_->latestRequest();
        QTRY_VERIFY_WITH_TIMEOUT(controller_->latestDelivered() == latest, 60000);
        QTest::qWait(200);  // anything stale still in the queue would arrive now
        for (const auto& args : ready) QCOMPARE(args.at(0).toULongLong(), latest);
        QVERIFY(controller_->isCurrent());

        const std::string seq = doc_.bases().toStdString();
        const carbon::SequenceScore fresh = carbon::score_sequence(model_->backend(), model_->tokenizer(), seq, options());
        const carbon::SequenceScore& got = *controller_->score();
        QCOMPARE(got.track.size(), fresh.track.size());
        for (size_t i = 0; i < fresh.track.size(); ++i)
            QVERIFY2(std::abs(got.track[i].logp - fresh.track[i].logp) <= 1e-4, qPrintable(QString::number(i)));
        QVERIFY(std::abs(got.base_mean_logp - fresh.base_mean_logp) <= 1e-4);

        // An edit near the end recomputes from its 6-mer only: the tail, not the whole sequence.
        QSignalSpy msg(controller_, &LikelihoodController::message);
        doc_.replace(doc_.size() - 4, 1, doc_.mid(doc_.size() - 4, 1) == "A" ? "C" : "A");
        controller_->requestNow();
        QTRY_VERIFY_WITH_TIMEOUT(controller_->latestDelivered() == controller_->latestRequest(), 60000);
        const carbon::SequenceScore again =
            carbon::score_sequence(model_->backend(), model_->tokenizer(), doc_.bases().toStdString(), options());
        for (size_t i = 0; i < again.track.size(); ++i)
            QVERIFY(std::abs(controller_->score()->track[i].logp - again.track[i].logp) <= 1e-4);
    }

    void inspectorShowsEngineMarginals() {
        QVERIFY(controller_->isCurrent());
        BaseInspector inspector;
        const qint64 pos = 123;
        inspector.showBase(pos, doc_.bases(), controller_->score());
        const carbon::SequenceScore fresh =
            carbon::score_sequence(model_->backend(), model_->tokenizer(), doc_.bases().toStdString(), options());
        const carbon::BaseScore& b = fresh.track[size_t(pos)];
        const auto p = inspector.probabilities();
        QVERIFY(std::abs(p[0] - b.p[0]) <= 1e-4);  // A
        QVERIFY(std::abs(p[1] - b.p[2]) <= 1e-4);  // C (engine order A, T, C, G)
        QVERIFY(std::abs(p[2] - b.p[3]) <= 1e-4);  // G
        QVERIFY(std::abs(p[3] - b.p[1]) <= 1e-4);  // T
        QVERIFY(std::abs(inspector.entropyBits() - b.entropy_bits) <= 1e-4);
        // Site log-odds as score_variant computes them (window covers the whole sequence here).
        const char ref = doc_.bases()[pos];
        carbon::VariantOptions vo;
        vo.scoring = options();
        for (char alt : {'A', 'C', 'G', 'T'}) {
            if (alt == ref) {
                QVERIFY(std::isnan(inspector.siteLogOdds(alt)));
                continue;
            }
            const carbon::VariantScore v = carbon::score_variant(model_->backend(), model_->tokenizer(),
                                                                 doc_.bases().toStdString(), size_t(pos), 0, alt, vo);
            QVERIFY2(std::abs(inspector.siteLogOdds(alt) - v.site_log_odds) <= 1e-3, qPrintable(QString(QLatin1Char(alt))));
        }
    }

    void heatMapFastEqualsSaturationMutagenesis() {
        QVERIFY(controller_->isCurrent());
        const qint64 a = 200, b = 260;
        const MutagenesisMatrix m = MutagenesisMatrix::fromMarginals(*controller_->score(), doc_.bases(), a, b);
        carbon::IsmOptions io;
        io.scoring = options();
        const carbon::IsmResult r = carbon::saturation_mutagenesis(model_->backend(), model_->tokenizer(),
                                                                   doc_.bases().toStdString(), size_t(a), size_t(b), io);
        QCOMPARE(qsizetype(r.entries.size()), qsizetype(3 * (b - a)));
        for (const carbon::IsmEntry& e : r.entries)
            QVERIFY(std::abs(m.at(acgtIndex(e.alt), qint64(e.position) - a) - e.score) <= 1e-3);
        // Reference cells carry no value.
        QVERIFY(std::isnan(m.at(acgtIndex(doc_.bases()[a]), 0)));
        // The exact matrix is laid out from the same entries.
        const MutagenesisMatrix x = MutagenesisMatrix::fromIsm(r, doc_.bases(), a, b);
        QCOMPARE(x.at(acgtIndex(r.entries[4].alt), qint64(r.entries[4].position) - a), r.entries[4].score);
    }

    // The heat map's axes: labelled positions at 1/2/5 x 10^k steps at least 60 px apart, 1-based
    // like the editor; the reference base under each column, as a letter when there is room and
    // as a base-coloured tick when there is not.
    void heatMapHasPositionAxisAndReference() {
        QCOMPARE(MutagenesisHeatMap::tickPositions(0, 100, 600), (QVector<qint64>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
        QCOMPARE(MutagenesisHeatMap::tickPositions(999, 3, 600), (QVector<qint64>{1000, 1001, 1002}));
        const QVector<qint64> wide = MutagenesisHeatMap::tickPositions(12345, 100000, 800);
        QCOMPARE(wide.front(), qint64(20000));
        QCOMPARE(wide.back(), qint64(110000));
        QCOMPARE(wide.size(), qsizetype(10));
        QRandomGenerator rng(5);
        for (int i = 0; i < 2000; ++i) {
            const qint64 start = rng.bounded(1000000), length = 1 + rng.bounded(200000);
            const double width = 50 + rng.bounded(3000);
            const QVector<qint64> t = MutagenesisHeatMap::tickPositions(start, length, width);
            QVERIFY(!t.isEmpty());
            QVERIFY(t.front() >= start + 1 && t.back() <= start + length);
            for (qsizetype k = 1; k < t.size(); ++k) QVERIFY((t[k] - t[k - 1]) * width / double(length) >= 60 - 1e-9);
        }

        MutagenesisHeatMap hm;
        hm.resize(618, 200);
        MutagenesisMatrix m;
        m.start = 500;
        m.length = 40;
        m.ref = QByteArray("ACGT").repeated(10);
        m.values.fill(0.25, 4 * 40);
        hm.setMatrix(m);
        QVERIFY(hm.showsReferenceLetters());  // 600 px over 40 columns
        const QImage shot = hm.grab().toImage();
        const QRect strip = hm.referenceRect();
        const QColor text = hm.palette().color(QPalette::Text);
        int textPixels = 0;
        for (int y = strip.top(); y <= strip.bottom(); ++y)
            for (int x = strip.left(); x <= strip.right(); ++x) textPixels += QColor(shot.pixel(x, y)) == text;
        QVERIFY2(textPixels > 40, qPrintable(QStringLiteral("%1 text pixels in the reference strip").arg(textPixels)));

        m.length = 400;
        m.ref = QByteArray("A").repeated(400);
        m.values.fill(0.25, 4 * 400);
        hm.setMatrix(m);
        QVERIFY(!hm.showsReferenceLetters());
        const QImage ticks = hm.grab().toImage();
        const QRect s2 = hm.referenceRect();
        QCOMPARE(QColor(ticks.pixel(s2.center())), baseColor('A'));
    }

    void windowScreenshot() {
        MainWindow w;
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.document()->setBases(randomBases(1500, 9));
        w.models()->load(modelDir_);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.editor()->likelihood().isEmpty(), 5000);
        w.analysis()->inspectBase(40);
        QCOMPARE(w.analysis()->inspector()->position(), 40);
        w.analysis()->inspector()->selectAlternative(w.document()->bases()[40] == 'A' ? 'C' : 'A');
        emit w.analysis()->inspector()->scoreVariantRequested(40, w.document()->bases()[40] == 'A' ? 'C' : 'A', 600);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->inspector()->chart()->seriesCount() == 3, 60000);
        w.editor()->setSelection(20, 120);
        w.analysis()->scanMutagenesis(false);
        QCOMPARE(w.analysis()->heatMap()->matrix().length, 100);
        QTest::qWait(200);
        const QString shot = qEnvironmentVariableIsSet("CARBON_SCREENSHOT2") ? qEnvironmentVariable("CARBON_SCREENSHOT2")
                                                                               : QStringLiteral("/tmp/carbon-studio-2.png");
        QVERIFY(w.grab().save(shot));
    }
};

QTEST_MAIN(TestAnalysis)
#include "test_analysis.moc"
