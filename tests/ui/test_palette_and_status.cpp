// Details a daily user meets (issue 29): in the dark palette the charts take the palette (no white
// hole, labels in the text colour) and an unticked check box can be seen; the light palette puts
// everything back; a status-bar message is never cut by the permanent widgets (the sequence's
// status gives it room while it shows); a sequence with a design region opens on that region.
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>

#include "carbon/storage/project.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/sequence_editor.h"
#include "views/theme.h"
#include "views/track_chart_view.h"

using namespace carbon::ui;
namespace st = carbon::storage;

class TestPaletteAndStatus : public QObject {
    Q_OBJECT
private:
    // The lightest pixel of `img` inside `r`.
    static int lightest(const QImage& img, const QRect& r) {
        int best = 0;
        for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y)
            for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x)
                best = std::max(best, QColor(img.pixel(x, y)).lightness());
        return best;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { applyTheme(Theme::Light); }

    void chartsAndBoxesReadInTheDarkPalette() {
        applyTheme(Theme::Dark);
        QWidget panel;
        auto* layout = new QVBoxLayout(&panel);
        auto* box = new QCheckBox(QStringLiteral("new each run"));
        auto* chart = new TrackChartView;
        layout->addWidget(box);
        layout->addWidget(chart);
        panel.resize(400, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        chart->setTracks({{QStringLiteral("log p"), {-1.f, -2.f, -1.5f}, false}}, 1, QStringLiteral("log p"));
        const QPalette pal = chart->palette();
        QCOMPARE(chart->chart()->backgroundBrush().color(), pal.color(QPalette::Base));
        QVERIFY(!chart->chart()->axes().isEmpty());
        for (QAbstractAxis* a : chart->chart()->axes()) QCOMPARE(a->labelsColor(), pal.color(QPalette::Text));
        // The unticked box: its outline is light on the dark panel (the panel itself is dark).
        QVERIFY(!box->isChecked());
        const QImage img = box->grab().toImage();
        const int indicator = box->style()->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, box);
        QVERIFY2(lightest(img, QRect(0, 0, indicator + 4, img.height())) > 140,
                 qPrintable(QStringLiteral("lightest %1").arg(lightest(img, QRect(0, 0, indicator + 4, img.height())))));
        QVERIFY(panel.palette().color(QPalette::Window).lightness() < 80);
        // Back to light: the palette's chart and no dark-only style sheet.
        applyTheme(Theme::Light);
        QTRY_COMPARE(chart->chart()->backgroundBrush().color(), chart->palette().color(QPalette::Base));
        QVERIFY(qApp->styleSheet().isEmpty());
    }

    void aStatusMessageIsNeverCut() {
        MainWindow w;
        w.resize(1366, 740);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QLabel* status = nullptr;
        for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
            if (l->accessibleName() == QLatin1String("Sequence status")) status = l;
        QVERIFY(status);
        QVERIFY(status->isVisible());
        w.statusBar()->showMessage(QStringLiteral("reporter_construct.gb: 1 sequence(s), 3,120 bp, 16 feature(s) imported"), 2000);
        QVERIFY(!status->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(status->isVisible(), 5000);  // back when the message goes
    }

    void aSequenceOpensOnItsDesignRegion() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("d.carbon"));
        {
            auto p = st::Project::open(path.toStdString());
            st::SequenceRecord s;
            s.name = "long";
            s.bases = ui_test::randomBases(12000, 5).toStdString();
            const int64_t id = p->add_sequence(s);
            st::Region r;
            r.sequence_id = id;
            r.kind = st::RegionKind::Design;
            r.start = 9000;
            r.end = 9200;
            r.label = "design region";
            p->add_region(r);
        }
        MainWindow w;
        w.resize(1366, 740);
        w.show();
        QSignalSpy opened(w.project(), &ProjectController::sequenceOpened);
        w.project()->openProject(path);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        SequenceEditor* e = w.editor();
        QTRY_VERIFY(e->viewport()->height() > 100);
        QVERIFY2(e->firstVisibleBase() <= 9000 && e->endVisibleBase() > 9000,
                 qPrintable(QStringLiteral("%1..%2").arg(e->firstVisibleBase()).arg(e->endVisibleBase())));
    }
};

QTEST_MAIN(TestPaletteAndStatus)
#include "test_palette_and_status.moc"
