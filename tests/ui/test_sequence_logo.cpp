// Sequence logos: information content against a direct computation (2 + sum p log2 p, the
// small-sample correction for counted sequences), the model's marginals mapped to A/C/G/T, the
// base frequencies of designs (N and short designs count for nothing), the letters painted in
// their colours with heights in proportion, SVG and PNG export, and the Sequence Logo dock
// following the editor's selection with a model loaded.
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/logo_controller.h"
#include "controllers/model_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/logo_panel.h"
#include "views/sequence_editor.h"
#include "views/sequence_logo.h"
#include "views/theme.h"

using namespace carbon::ui;

namespace {

double directBits(const std::array<double, 4>& p) {
    double s = 2;
    for (double v : p)
        if (v > 0) s += v * std::log2(v);
    return s;
}

// Pixels of `color` in the rectangle (colour distance under 40: antialiased edges count).
int pixelsOf(const QImage& img, const QRect& r, const QColor& color) {
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c(img.pixel(x, y));
            n += std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) + std::abs(c.blue() - color.blue()) < 40;
        }
    return n;
}

}  // namespace

class TestSequenceLogo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void informationContentIsTwoMinusEntropy() {
        QCOMPARE(SequenceLogo::informationBits({0.25, 0.25, 0.25, 0.25}), 0.0);
        QCOMPARE(SequenceLogo::informationBits({0, 0, 1, 0}), 2.0);
        QCOMPARE(SequenceLogo::informationBits({0.5, 0.5, 0, 0}), 1.0);
        QCOMPARE(SequenceLogo::informationBits({2, 2, 0, 0}), 1.0);  // normalised first
        QRandomGenerator rng(3);
        for (int i = 0; i < 1000; ++i) {
            std::array<double, 4> p;
            double t = 0;
            for (double& v : p) t += v = rng.generateDouble();
            for (double& v : p) v /= t;
            QVERIFY(std::abs(SequenceLogo::informationBits(p) - directBits(p)) < 1e-12);
            QVERIFY(std::abs(SequenceLogo::informationBits(p, 0.1) - std::max(0.0, directBits(p) - 0.1)) < 1e-12);
        }
    }

    void designFrequenciesWithTheSmallSampleCorrection() {
        const SequenceLogo logo = SequenceLogo::fromSequences({"AACN", "AGC", "ATCG", "ANC"});
        QCOMPARE(logo.columns.size(), qsizetype(4));
        const double e4 = 3.0 / (2.0 * std::log(2.0) * 4);
        QCOMPARE(logo.columns[0].p, (std::array<double, 4>{1, 0, 0, 0}));
        QVERIFY(std::abs(logo.columns[0].bits - (2 - e4)) < 1e-12);
        // Column 2: A, G, T (the N counts for nothing): a third each, below the correction: 0.
        QVERIFY(std::abs(logo.columns[1].p[0] - 1.0 / 3) < 1e-12 && std::abs(logo.columns[1].p[2] - 1.0 / 3) < 1e-12);
        QCOMPARE(logo.columns[1].bits, 0.0);
        QVERIFY(std::abs(logo.columns[2].bits - (2 - e4)) < 1e-12);
        // Column 4: only ATCG has a base there (AACN's is an N; the others are shorter).
        QCOMPARE(logo.columns[3].p, (std::array<double, 4>{0, 0, 1, 0}));
        QVERIFY(std::abs(logo.columns[3].bits - std::max(0.0, 2 - 3.0 / (2.0 * std::log(2.0)))) < 1e-12);
    }

    void modelMarginalsAreMappedToACGT() {
        carbon::SequenceScore score;
        score.track.resize(3);
        // The engine's order is A, T, C, G.
        score.track[0].p = {0.7f, 0.1f, 0.1f, 0.1f};
        score.track[1].p = {0.1f, 0.6f, 0.2f, 0.1f};
        score.track[2].p = {0.25f, 0.25f, 0.25f, 0.25f};
        const SequenceLogo logo = SequenceLogo::fromScore(score, 1, 3);
        QCOMPARE(logo.start, qint64(1));
        QCOMPARE(logo.columns.size(), qsizetype(2));
        QVERIFY(std::abs(logo.columns[0].p[3] - 0.6) < 1e-6);  // T
        QVERIFY(std::abs(logo.columns[0].p[1] - 0.2) < 1e-6);  // C
        QVERIFY(std::abs(logo.columns[0].bits - directBits(logo.columns[0].p)) < 1e-12);
        QVERIFY(std::abs(logo.columns[1].bits) < 1e-6);
    }

    void lettersArePaintedAndExported() {
        SequenceLogoView v;
        v.resize(644, 220);  // 600 px of plot: 200 per column
        SequenceLogo logo;
        logo.columns.resize(3);
        logo.columns[0].p = {1, 0, 0, 0};  // a full-height A
        logo.columns[0].bits = 2;
        logo.columns[1].p = {0.25, 0.25, 0.25, 0.25};  // nothing
        logo.columns[2].p = {0, 0, 0.5, 0.5};  // G and T, 1 bit: half height each
        logo.columns[2].bits = 1;
        v.setLogo(logo);
        const QImage img = v.grab().toImage();
        const QRect col0(50, 20, 190, 170), col1(250, 20, 190, 170), col2(450, 20, 190, 170);
        QVERIFY(pixelsOf(img, col0, baseColor('A')) > 2000);
        QCOMPARE(pixelsOf(img, col0, baseColor('T')), 0);
        for (char b : {'A', 'C', 'G', 'T'}) QCOMPARE(pixelsOf(img, col1, baseColor(b)), 0);
        const int g = pixelsOf(img, col2, baseColor('G')), t = pixelsOf(img, col2, baseColor('T'));
        QVERIFY2(g > 300 && t > 300, qPrintable(QStringLiteral("G %1, T %2 pixels").arg(g).arg(t)));
        QVERIFY(pixelsOf(img, col2, baseColor('A')) == 0);

        QTemporaryDir dir;
        QString error;
        const QString svg = dir.filePath(QStringLiteral("logo.svg")), png = dir.filePath(QStringLiteral("logo.png"));
        QVERIFY2(v.exportSvg(svg, QSize(900, 260), &error), qPrintable(error));
        QVERIFY2(v.exportPng(png, QSize(900, 260), &error), qPrintable(error));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg") && text.contains("</svg>") && text.contains("<path"));
        QCOMPARE(QImage(png).size(), QSize(900, 260));
        QVERIFY(!v.exportPng(dir.filePath(QStringLiteral("missing/dir/logo.png")), QSize(10, 10), &error));
        QVERIFY(error.contains(QStringLiteral("cannot write")));
    }

    void theDockFollowsTheSelection() {
        QTemporaryDir tmp;
        const QString model = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(model.toStdString(), {});
        MainWindow w;
        w.document()->setBases(ui_test::randomBases(600, 4));
        w.models()->load(model);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->likelihood()->isCurrent(), 60000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("logoDock"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        QTRY_VERIFY_WITH_TIMEOUT(w.logo()->panel()->isVisible(), 5000);
        w.editor()->setSelection(100, 140);
        QTRY_COMPARE_WITH_TIMEOUT(w.logo()->panel()->view()->logo().columns.size(), qsizetype(40), 10000);
        QCOMPARE(w.logo()->panel()->view()->logo().start, qint64(100));
        const SequenceLogo want = SequenceLogo::fromScore(*w.analysis()->likelihood()->score(), 100, 140);
        for (int i = 0; i < 40; ++i) QCOMPARE(w.logo()->panel()->view()->logo().columns[i].bits, want.columns[i].bits);
        w.editor()->setSelection(10, 15);
        QTRY_COMPARE_WITH_TIMEOUT(w.logo()->panel()->view()->logo().columns.size(), qsizetype(5), 10000);
    }
};

QTEST_MAIN(TestSequenceLogo)
#include "test_sequence_logo.moc"
