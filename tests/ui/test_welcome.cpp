// The first run, headless: the welcome page is what a new window shows; its sample button builds
// the sample project from the embedded EMBOSS entries (sequences, regions, variants) and opens
// it; then the walkthrough on a tiny checkpoint: the pinned TATA box is fixed in the template,
// every design keeps it, and activating a variant in the project browser selects it and, once
// the likelihood is computed, puts it in the Base Inspector with its alternative chosen, where
// Score variant draws the reference, alternative and delta tracks.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "carbon/storage/project.h"
#include "carbon/test_support/test_model.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "views/base_inspector.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/project_browser.h"
#include "views/sequence_editor.h"
#include "views/track_chart_view.h"
#include "views/welcome_page.h"
#include "workers/project_store.h"

using namespace carbon::ui;

class TestWelcome : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        for (const char* f : {"/sample.carbon", "/sample.carbon-wal", "/sample.carbon-shm"}) QFile::remove(dir + QLatin1String(f));
    }

    void sampleProjectWalkthrough() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.isWelcomeShown());

        // 1. The sample project, from the welcome page.
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        QSignalSpy seqOpened(w.project(), &ProjectController::sequenceOpened);
        QTest::mouseClick(w.welcomePage()->sampleButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && seqOpened.count() > 0, 20000);
        QVERIFY(!w.isWelcomeShown());
        QVERIFY(w.project()->path().endsWith(QStringLiteral("sample.carbon")));
        QTreeWidget* tree = w.project()->browser()->tree();
        QTreeWidgetItem* sequences = tree->topLevelItem(0);
        QCOMPARE(sequences->childCount(), 3);
        QTreeWidgetItem* fos = sequences->child(0);
        QCOMPARE(fos->text(0), QStringLiteral("HSFOS_K00650"));
        QCOMPARE(fos->childCount(), 5);  // the c-fos variants of variants.vcf
        QCOMPARE(sequences->child(1)->childCount(), 1);
        QCOMPARE(sequences->child(2)->childCount(), 1);
        QCOMPARE(w.project()->sequenceName(), QStringLiteral("HSFOS_K00650"));
        QCOMPARE(w.document()->size(), 1200);
        QCOMPARE(w.document()->mid(700, 7), QByteArray("TATAAAA"));  // the entry's TATA box, 701-707
        QCOMPARE(w.document()->regions().size(), 4);
        const QString templ = w.generation()->panel()->templateEdit()->text();
        QCOMPARE(templ, QString(60, QLatin1Char('N')) + QStringLiteral("TATAAAA") + QString(13, QLatin1Char('N')));

        // 2-3. A model, then a design run: every design keeps the pinned box.
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->panel()->countSpin()->setValue(4);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        QCOMPARE(w.designs()->model()->rowCount(), 4);
        for (int r = 0; r < 4; ++r) QCOMPARE(w.designs()->model()->row(r).design.bases.substr(60, 7), std::string("TATAAAA"));

        // 5. The variant fos_TATA_T703G, from the browser to the inspector.
        QTreeWidgetItem* variant = nullptr;
        for (int i = 0; i < fos->childCount(); ++i)
            if (fos->child(i)->text(1) == QLatin1String("fos_TATA_T703G")) variant = fos->child(i);
        QVERIFY(variant);
        QCOMPARE(variant->text(0), QStringLiteral("T>G at 703"));
        emit tree->itemActivated(variant, 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.analysis()->inspector()->position(), qint64(702), 60000);
        QCOMPARE(w.editor()->selectionStart(), qsizetype(702));
        auto* alt = w.analysis()->inspector()->findChild<QComboBox*>();
        QVERIFY(alt);
        QCOMPARE(alt->currentText().left(1), QStringLiteral("G"));
        QPushButton* score = nullptr;
        for (QPushButton* b : w.analysis()->inspector()->findChildren<QPushButton*>())
            if (b->text().contains(QStringLiteral("Score"))) score = b;
        QVERIFY(score);
        score->click();
        QTRY_VERIFY_WITH_TIMEOUT(w.analysis()->inspector()->chart()->seriesCount() >= 3, 60000);  // ref, alt, delta

        // Reopening the sample keeps the work done in it (the run is there).
        w.project()->closeProject();
        QTRY_VERIFY_WITH_TIMEOUT(w.project()->path().isEmpty(), 20000);
        opened.clear();
        w.project()->openSampleProject();
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0, 20000);
        QCOMPARE(w.project()->browser()->tree()->topLevelItem(1)->childCount(), 1);
        QCOMPARE(w.designs()->model()->rowCount(), 4);
    }
};

QTEST_MAIN(TestWelcome)
#include "test_welcome.moc"
