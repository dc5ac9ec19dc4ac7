// The whole window, headless: load a tiny model, design into a selected region, stale runs
// dropped (latest request wins), open a design with undo, and a screenshot for review
// (written to $CARBON_SCREENSHOT or /tmp/carbon-studio.png).
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/sequence_editor.h"

#include <QLineEdit>
#include <QSpinBox>

using namespace carbon::ui;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // keep QSettings out of the user's files
    void designAndOpen() {
        QTemporaryDir tmp;
        const QString modelDir = tmp.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(modelDir.toStdString(), {});
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QByteArray seq = ui_test::randomBases(2000, 5);
        w.document()->setBases(seq);
        w.models()->load(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        QVERIFY(GenerationPanel::offeredTags().contains(QStringLiteral("<promoter>")));

        // A first, long run is overtaken by a second: its designs never reach the table.
        w.editor()->setSelection(600, 660);
        w.generation()->panel()->lengthSpin()->setValue(3000);
        w.generation()->panel()->countSpin()->setValue(4);
        w.generation()->runGeneration();
        w.generation()->panel()->templateEdit()->setText(QStringLiteral("NNNNNNNNNNTATAWAWNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"));
        w.generation()->panel()->countSpin()->setValue(6);
        const quint64 second = quint64(w.generation()->nextRunNumber());  // the cancelled first run took no number
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.generation()->isGenerating(), 60000);
        QCOMPARE(w.designs()->model()->rowCount(), 6);
        for (int r = 0; r < 6; ++r) {
            QCOMPARE(w.designs()->model()->row(r).run, second);
            QCOMPARE(w.designs()->model()->row(r).design.bases.substr(10, 7).substr(0, 4), std::string("TATA"));
        }

        w.generation()->openDesign(0);
        const std::string& bases = w.designs()->model()->row(0).design.bases;
        QCOMPARE(w.document()->mid(600, 60), QByteArray::fromStdString(bases));
        QCOMPARE(w.document()->size(), 2000);
        w.editor()->setShowTokenBoundaries(true);
        QTest::qWait(200);
        const QString shot = qEnvironmentVariableIsSet("CARBON_SCREENSHOT") ? qEnvironmentVariable("CARBON_SCREENSHOT")
                                                                              : QStringLiteral("/tmp/carbon-studio.png");
        QVERIFY(w.grab().save(shot));
        w.document()->undoStack()->undo();
        QCOMPARE(w.document()->bases(), seq);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
