// The model manager, headless: a fake Hugging Face cache (HF_HUB_CACHE) with a tiny snapshot is
// listed, described without loading; a broken folder shows the loader's message naming the
// tensor; a paired draft (the target itself) gives the same greedy designs as the target alone,
// with its acceptance in the run log and stored with the run; a draft with other DNA token ids
// is refused with the engine's message.
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QDoubleSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <filesystem>
#include <fstream>

#include "carbon/storage/project.h"
#include "carbon/test_model.h"
#include "design_table_model.h"
#include "generation_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "project_store.h"
#include "sequence_document.h"
#include "sequence_editor.h"

using namespace carbon::ui;
namespace fs = std::filesystem;

namespace {

// hub/models--ORG--NAME/snapshots/REV/* as symlinks into blobs/, and refs/main.
void addSnapshot(const fs::path& hub, const fs::path& model) {
    const fs::path root = hub / "models--HuggingFaceBio--Carbon-500M";
    fs::create_directories(root / "blobs");
    fs::create_directories(root / "snapshots" / "0123abcd");
    fs::create_directories(root / "refs");
    std::ofstream(root / "refs" / "main") << "0123abcd";
    int n = 0;
    for (const auto& e : fs::directory_iterator(model)) {
        const fs::path blob = root / "blobs" / ("b" + std::to_string(n++));
        fs::copy_file(e.path(), blob);
        fs::create_symlink(fs::path("../../blobs") / blob.filename(), root / "snapshots" / "0123abcd" / e.path().filename());
    }
}

bool anyLabelContains(const QWidget* w, const QString& text) {
    for (const QLabel* l : w->findChildren<QLabel*>())
        if (l->text().contains(text)) return true;
    return false;
}

QStringList designsOf(const DesignTableModel& m) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r) out << QString::fromStdString(m.row(r).design.bases);
    out.sort();
    return out;
}

}  // namespace

class TestModelManager : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString tiny_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();  // no model folders remembered from an earlier run
        tiny_ = tmp_.filePath(QStringLiteral("tiny"));
        carbon::make_test_model(tiny_.toStdString(), {});
        const fs::path hub = tmp_.filePath(QStringLiteral("hub")).toStdString();
        addSnapshot(hub, tiny_.toStdString());
        qputenv("HF_HUB_CACHE", QByteArray::fromStdString(hub.string()));
    }

    void listsCacheSnapshotsAndExplainsBrokenFolders() {
        ModelPanel panel;
        QSignalSpy scanned(&panel, &ModelPanel::scanned);
        QTRY_VERIFY_WITH_TIMEOUT(scanned.count() > 0, 20000);
        QTreeWidget* list = panel.folderList();
        QTreeWidgetItem* snap = nullptr;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->text(0).startsWith(QStringLiteral("HuggingFaceBio/Carbon-500M @0123abcd"))) snap = list->topLevelItem(i);
        QVERIFY(snap);
        QCOMPARE(snap->text(4), QStringLiteral("ready"));
        QVERIFY(snap->text(2).contains(QStringLiteral("12,288 bp")) || snap->text(2).contains(QStringLiteral("12288")));

        // A checkpoint whose config promises a layer its weights lack.
        const QString broken = tmp_.filePath(QStringLiteral("broken"));
        carbon::TestModelOptions o;
        o.layers = 1;
        carbon::make_test_model(broken.toStdString(), o);
        std::string cfg;
        {
            std::ifstream f(broken.toStdString() + "/config.json");
            cfg.assign(std::istreambuf_iterator<char>(f), {});
        }
        cfg.replace(cfg.find("\"num_hidden_layers\": 1"), 22, "\"num_hidden_layers\": 2");
        std::ofstream(broken.toStdString() + "/config.json") << cfg;
        scanned.clear();
        panel.addFolder(broken);
        QTRY_VERIFY_WITH_TIMEOUT(scanned.count() > 0, 20000);
        QTreeWidgetItem* bad = nullptr;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->toolTip(0) == broken) bad = list->topLevelItem(i);
        QVERIFY(bad);
        QCOMPARE(bad->text(4), QStringLiteral("does not load"));
        QVERIFY2(bad->toolTip(4).contains(QStringLiteral("model.layers.1.")), qPrintable(bad->toolTip(4)));
        list->setCurrentItem(bad);
        QVERIFY(anyLabelContains(&panel, QStringLiteral("Does not load")));
    }

    void draftGivesSameDesignsAndIsStoredWithTheRun() {
        QTemporaryDir dir;
        MainWindow w;
        QByteArray seq(600, 'A');
        for (int i = 0; i < seq.size(); ++i) seq[i] = "ACGT"[(i * 7 + i / 5) % 4];
        w.document()->setBases(seq);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.newProject(dir.filePath(QStringLiteral("p.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && w.currentSequenceId() > 0, 20000);
        w.loadModel(tiny_);
        QTRY_VERIFY_WITH_TIMEOUT(w.isModelReady(), 60000);
        w.editor()->setSelection(300, 360);
        w.generationPanel()->countSpin()->setValue(3);
        w.generationPanel()->temperatureSpin()->setValue(0.0);
        QSignalSpy stored(w.projectStore(), &ProjectStore::runStored);
        w.runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        const QStringList alone = designsOf(*w.designs());

        // Pair the target itself as the draft (full agreement) and run again.
        emit w.modelPanel()->draftRequested(tiny_);
        QTRY_VERIFY_WITH_TIMEOUT(anyLabelContains(w.modelPanel(), QStringLiteral("Draft: ") + tiny_), 20000);
        w.designs()->clear();
        w.editor()->setSelection(300, 360);
        stored.clear();
        w.runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->rowCount(), 3, 20000);
        QCOMPARE(designsOf(*w.designs()), alone);
        const QString log = w.findChild<QPlainTextEdit*>()->toPlainText();
        QVERIFY2(log.contains(QStringLiteral("drafted tokens accepted")), qPrintable(log));
        auto p = carbon::storage::Project::open(dir.filePath(QStringLiteral("p.carbon")).toStdString(), {.create = false});
        const auto runs = p->list_runs();
        QCOMPARE(int(runs.size()), 2);
        QVERIFY(!runs[0].setting("spec_acceptance_rate").has_value());
        QCOMPARE(runs[1].setting("draft").value_or(""), tiny_.toStdString());
        QVERIFY(std::stod(runs[1].setting("spec_acceptance_rate").value_or("0")) > 0.99);  // the target agrees with itself

        // A draft with other DNA token ids is refused with the engine's words.
        const QString other = dir.filePath(QStringLiteral("compact"));
        carbon::TestModelOptions c;
        c.compact_vocab = true;
        carbon::make_test_model(other.toStdString(), c);
        emit w.modelPanel()->draftRequested(other);
        QTRY_VERIFY_WITH_TIMEOUT(anyLabelContains(w.modelPanel(), QStringLiteral("does not use the target's DNA token ids")), 20000);
    }
};

QTEST_MAIN(TestModelManager)
#include "test_model_manager.moc"
