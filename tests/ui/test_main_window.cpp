// The whole window, headless: load a tiny model, design into a selected region, stale runs
// dropped (latest request wins), open a design with undo, and a screenshot for review
// (written to $CARBON_SCREENSHOT or /tmp/carbon-studio.png).
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "carbon/test_support/test_model.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "main_window.h"
#include "document/sequence_document.h"
#include "views/sequence_editor.h"
#include "ui_test_support.h"

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
        w.loadModel(modelDir);
        QTRY_VERIFY_WITH_TIMEOUT(w.isModelReady(), 60000);
        QVERIFY(GenerationPanel::offeredTags().contains(QStringLiteral("<promoter>")));

        // A first, long run is overtaken by a second: its designs never reach the table.
        w.editor()->setSelection(600, 660);
        w.generationPanel()->lengthSpin()->setValue(3000);
        w.generationPanel()->countSpin()->setValue(4);
        w.runGeneration();
        w.generationPanel()->templateEdit()->setText(QStringLiteral("NNNNNNNNNNTATAWAWNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"));
        w.generationPanel()->countSpin()->setValue(6);
        w.runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isGenerating(), 60000);
        QCOMPARE(w.designs()->rowCount(), 6);
        for (int r = 0; r < 6; ++r) {
            QCOMPARE(w.designs()->row(r).run, 2ULL);
            QCOMPARE(w.designs()->row(r).design.bases.substr(10, 7).substr(0, 4), std::string("TATA"));
        }

        w.openDesign(0);
        const std::string& bases = w.designs()->row(0).design.bases;
        QCOMPARE(w.document()->mid(600, 60), QByteArray::fromStdString(bases));
        QCOMPARE(w.document()->size(), 2000);
        w.editor()->setShowTokenBoundaries(true);
        QTest::qWait(200);
        const QString shot = qEnvironmentVariableIsSet("CARBON_SCREENSHOT") ? qEnvironmentVariable("CARBON_SCREENSHOT")
                                                                              : QStringLiteral("/tmp/carbon-studio.png");
        QVERIFY(w.grab().save(shot));
        w.undoStack()->undo();
        QCOMPARE(w.document()->bases(), seq);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
