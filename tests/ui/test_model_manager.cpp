// The model manager, headless: with no folder known it says how to get the weights; a fake Hugging
// Face cache (HF_HUB_CACHE) with a tiny snapshot is listed, described without loading; a broken
// folder shows the loader's message naming the tensor; a paired draft (the target itself) gives
// the same greedy designs as the target alone, with its acceptance in the run log and stored with
// the run; a draft with other DNA token ids is refused with the engine's message, up front and
// when a new target no longer fits the paired draft.
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <filesystem>
#include <fstream>

#include "carbon/loader/config.h"
#include "carbon/storage/project.h"
#include "carbon/test_support/test_gguf.h"
#include "carbon/test_support/test_model.h"
#include "controllers/designs_controller.h"
#include "controllers/generation_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "views/design_table_model.h"
#include "views/generation_panel.h"
#include "views/message_bar.h"
#include "views/model_panel.h"
#include "views/sequence_editor.h"
#include "workers/engine_worker.h"
#include "workers/project_store.h"
#include "window_steps.h"

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

    void explainsHowToGetWeightsWhenNoFolderIsKnown() {
        QTemporaryDir emptyHub;
        qputenv("HF_HUB_CACHE", emptyHub.path().toUtf8());
        ModelPanel panel;
        QSignalSpy scanned(&panel, &ModelPanel::scanned);
        QTRY_VERIFY_WITH_TIMEOUT(scanned.count() > 0, 20000);
        qputenv("HF_HUB_CACHE", QByteArray::fromStdString(tmp_.filePath(QStringLiteral("hub")).toStdString()));
        QVERIFY(panel.folders().isEmpty());
        QLabel* help = nullptr;
        for (QLabel* l : panel.findChildren<QLabel*>())
            if (l->accessibleName() == QStringLiteral("How to get Carbon weights")) help = l;
        QVERIFY(help);
        QVERIFY(help->isVisibleTo(&panel));
        QVERIFY(!panel.folderList()->isVisibleTo(&panel));
        QCOMPARE(help->textFormat(), Qt::PlainText);  // nothing to click that would open a browser
        for (const char* needed : {"hf download HuggingFaceBio/Carbon-3B", "config.json", "model.safetensors",
                                   "tokenizer.json", "Add folder", "never downloads"})
            QVERIFY2(help->text().contains(QLatin1String(needed)), needed);
        QVERIFY2(help->text().contains(emptyHub.path()), qPrintable(help->text()));  // where the cache is looked for
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
        // The facts come from the files: the config's sizes, the tokenizer's DNA ids (the real
        // layout in the test tokenizer), the refs/main revision.
        const carbon::ModelConfig tinyConfig = carbon::load_config(tiny_.toStdString() + "/config.json");
        QCOMPARE(snap->text(1),
                 QLocale().toString(double(tinyConfig.parameter_count()) / 1e6, 'f', 1) + QStringLiteral(" M"));
        const carbon::ModelFolderInfo* info = nullptr;
        for (const carbon::ModelFolderInfo& m : panel.folders())
            if (m.name == "HuggingFaceBio/Carbon-500M") info = &m;
        QVERIFY(info && info->ok && info->current);
        QCOMPARE(info->revision, std::string("0123abcd"));
        QCOMPARE(info->config.num_hidden_layers, tinyConfig.num_hidden_layers);
        QCOMPARE(info->dna_open, 151669);
        QCOMPARE(info->first_kmer, 151672);
        QCOMPARE(info->last_kmer, 151672 + 4095);
        list->setCurrentItem(snap);
        for (const QString& fact :
             {QStringLiteral("Tokenizer: <dna> 151669, </dna> 151670, <oov> 151671, 6-mers 151672..155767"),
              QStringLiteral("%1 attention heads (%2 KV)")
                  .arg(tinyConfig.num_attention_heads)
                  .arg(tinyConfig.num_key_value_heads),
              QStringLiteral("bfloat16 weights"), QStringLiteral("Runs on: CPU")})
            QVERIFY2(anyLabelContains(&panel, fact), qPrintable(fact));

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
        QVERIFY2(bad->toolTip(4).contains(QStringLiteral("num_hidden_layers=2")) && bad->toolTip(4).contains(QStringLiteral("hold 1 layer")),
                 qPrintable(bad->toolTip(4)));
        list->setCurrentItem(bad);
        QVERIFY(anyLabelContains(&panel, QStringLiteral("Does not load")));
    }

    void draftGivesSameDesignsAndIsStoredWithTheRun() {
        QTemporaryDir dir;
        MainWindow w;
        QByteArray seq(600, 'A');
        for (int i = 0; i < seq.size(); ++i) seq[i] = "ACGT"[(i * 7 + i / 5) % 4];
        w.document()->setBases(seq);
        QSignalSpy opened(w.project(), &ProjectController::projectOpened);
        w.project()->newProject(dir.filePath(QStringLiteral("p.carbon")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() > 0 && w.project()->currentSequenceId() > 0, 20000);
        w.models()->load(tiny_);
        QTRY_VERIFY_WITH_TIMEOUT(w.models()->isReady(), 60000);
        w.editor()->setSelection(300, 360);
        w.generation()->panel()->countSpin()->setValue(3);
        w.generation()->panel()->temperatureSpin()->setValue(0.0);
        QSignalSpy stored(w.project()->store(), &ProjectStore::runStored);
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        const QStringList alone = designsOf(*w.designs()->model());

        // Pair the target itself as the draft (full agreement) and run again.
        emit w.models()->panel()->draftRequested(tiny_);
        QTRY_VERIFY_WITH_TIMEOUT(anyLabelContains(w.models()->panel(), QStringLiteral("Draft: ") + tiny_), 20000);
        w.designs()->model()->clear();
        w.editor()->setSelection(300, 360);
        stored.clear();
        w.generation()->runGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(stored.count() > 0, 120000);
        QTRY_COMPARE_WITH_TIMEOUT(w.designs()->model()->rowCount(), 3, 20000);
        QCOMPARE(designsOf(*w.designs()->model()), alone);
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
        emit w.models()->panel()->draftRequested(other);
        QTRY_VERIFY_WITH_TIMEOUT(anyLabelContains(w.models()->panel(), QStringLiteral("does not use the target's DNA token ids")), 20000);
    }

    // EngineWorker alone: a run with a draft reports its figures in the finished notices, and a
    // new target whose DNA ids differ drops the paired draft with the engine's message.
    // "Run on" is remembered; the worker loads where it says; asking for the GPU where there is none
    // fails the load with the reason, and "Automatic" runs on the CPU with a notice saying why.
    void runOnChoiceIsRememberedAndAGpuLoadWithoutOneSaysWhy() {
        ModelPanel panel;
        auto* combo = panel.findChild<QComboBox*>();
        QVERIFY(combo);
        QCOMPARE(panel.backendChoice(), QStringLiteral("auto"));
        QSignalSpy changed(&panel, &ModelPanel::backendChanged);
        combo->setCurrentIndex(combo->findData(QStringLiteral("cuda")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toString(), QStringLiteral("cuda"));
        QCOMPARE(QSettings().value(QStringLiteral("models/backend")).toString(), QStringLiteral("cuda"));
        ModelPanel again;
        QCOMPARE(again.backendChoice(), QStringLiteral("cuda"));
        combo->setCurrentIndex(combo->findData(QStringLiteral("auto")));

        registerEngineMetaTypes();
        QThread thread;
        auto* worker = new EngineWorker;
        worker->moveToThread(&thread);
        thread.start();
        QSignalSpy loaded(worker, &EngineWorker::modelLoaded), failed(worker, &EngineWorker::modelFailed);
        const QString target = tiny_;
        QMetaObject::invokeMethod(worker, [worker, target] {
            worker->setBackend(QStringLiteral("cuda"));
            worker->loadModel(target);
        }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 60000);
        QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("cannot run on the GPU as asked")),
                 qPrintable(failed.first().at(1).toString()));
        QMetaObject::invokeMethod(worker, [worker, target] {
            worker->setBackend(QStringLiteral("auto"));
            worker->loadModel(target);
        }, Qt::QueuedConnection);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, 60000);
        const auto summary = loaded.first().at(0).value<ModelSummary>();
        QVERIFY2(summary.notice.contains(QStringLiteral("running on the CPU")), qPrintable(summary.notice));
        thread.quit();
        thread.wait();
        delete worker;
    }

    // The weights, per folder (issue 34): choosing 8-bit (fastest, then finest) for the loaded folder
    // reloads it with those weights, which its description (what the panel shows and every stored
    // run records) says; the choice is remembered for that folder only.
    void weightsAreChosenPerFolderAndTheLoadedModelSaysWhich() {
        MainWindow w;
        QVERIFY(ui_test::loadModel(w, tiny_));
        QVERIFY(!w.models()->backend().contains(QStringLiteral("int8")));
        ModelPanel* panel = w.models()->panel();
        QTreeWidget* list = panel->folderList();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isScanning(), 20000);
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->data(0, Qt::UserRole).toString() == tiny_) list->setCurrentItem(list->topLevelItem(i));
        QVERIFY(list->currentItem());
        QCOMPARE(panel->weightsCombo()->currentData().toString(), QStringLiteral("native"));
        QSignalSpy loaded(w.models(), &ModelController::loaded);
        panel->weightsCombo()->setCurrentIndex(panel->weightsCombo()->findData(QStringLiteral("int8")));
        emit panel->weightsCombo()->activated(panel->weightsCombo()->currentIndex());
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && w.models()->isReady(), 60000);
        QVERIFY2(w.models()->backend().contains(QStringLiteral("int8 weights")), qPrintable(w.models()->backend()));
        QVERIFY2(w.models()->backend().contains(QStringLiteral("one scale per output row")), qPrintable(w.models()->backend()));
        QCOMPARE(ModelPanel::weightsFor(tiny_), QStringLiteral("int8"));
        QCOMPARE(ModelPanel::weightsFor(tiny_ + QStringLiteral("-other")), QStringLiteral("native"));
        // The finer Q8_0 scheme, then back to the stored weights.
        panel->weightsCombo()->setCurrentIndex(panel->weightsCombo()->findData(QStringLiteral("q8_0")));
        emit panel->weightsCombo()->activated(panel->weightsCombo()->currentIndex());
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 2 && w.models()->isReady(), 60000);
        QVERIFY2(w.models()->backend().contains(QStringLiteral("groups of 32")), qPrintable(w.models()->backend()));
        QCOMPARE(ModelPanel::weightsFor(tiny_), QStringLiteral("q8_0"));
        panel->weightsCombo()->setCurrentIndex(panel->weightsCombo()->findData(QStringLiteral("native")));
        emit panel->weightsCombo()->activated(panel->weightsCombo()->currentIndex());
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 3 && w.models()->isReady(), 60000);
        QVERIFY(!w.models()->backend().contains(QStringLiteral("int8")));
    }

    // A GGUF file is added and loaded as the file (File > Open Model File, or the panel's Add GGUF
    // file): a folder holding two of them does not load (the reader will not guess between bf16 and
    // Q8_0), the file itself does; a file that is not a model says so, naming the file, with the
    // way on being another file.
    void ggufFilesAreChosenByFileAndLoad() {
        QTemporaryDir dir;
        const std::string bytes = carbon::test::one_layer_carbon_gguf();
        const QString gguf = dir.filePath(QStringLiteral("carbon-tiny-bf16.gguf"));
        std::ofstream(gguf.toStdString(), std::ios::binary) << bytes;
        std::ofstream(dir.filePath(QStringLiteral("carbon-tiny-q8_0.gguf")).toStdString(), std::ios::binary) << bytes;
        MainWindow w;
        w.show();  // the message bar shows only in a shown window
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The action sits in the File menu beside Open Model Folder, with its shortcut.
        QAction* open = w.models()->openFileAction();
        QCOMPARE(open->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+M")));
        bool inFileMenu = false;
        for (QAction* a : w.menuBar()->actions())
            if (a->menu() && a->menu()->actions().contains(open)) inFileMenu = true;
        QVERIFY(inFileMenu);

        ModelPanel* panel = w.models()->panel();
        QTreeWidget* list = panel->folderList();
        auto row = [&](const QString& path) -> QTreeWidgetItem* {
            for (int i = 0; i < list->topLevelItemCount(); ++i)
                if (list->topLevelItem(i)->toolTip(0) == path) return list->topLevelItem(i);
            return nullptr;
        };
        QSignalSpy scanned(panel, &ModelPanel::scanned);
        panel->addFolder(dir.path());
        QTRY_VERIFY_WITH_TIMEOUT(row(dir.path()) != nullptr && !panel->isScanning(), 20000);
        QCOMPARE(row(dir.path())->text(4), QStringLiteral("does not load"));
        QVERIFY2(row(dir.path())->toolTip(4).contains(QStringLiteral("choose one")), qPrintable(row(dir.path())->toolTip(4)));

        scanned.clear();
        panel->addFolder(gguf);
        QTRY_VERIFY_WITH_TIMEOUT(row(gguf) != nullptr && !panel->isScanning(), 20000);
        QCOMPARE(row(gguf)->text(4), QStringLiteral("ready"));
        QSignalSpy loaded(w.models(), &ModelController::loaded);
        w.models()->load(gguf);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && w.models()->isReady(), 60000);
        QCOMPARE(w.models()->dir(), gguf);
        QVERIFY2(anyLabelContains(panel, gguf), "the loaded file is named in the model manager");

        // Not a model: the message names the file and offers another file.
        const QString junk = dir.filePath(QStringLiteral("notes.gguf"));
        std::ofstream(junk.toStdString()) << "not a GGUF file";
        QSignalSpy failed(w.models(), &ModelController::failed);
        w.models()->load(junk);
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 60000);
        QTRY_VERIFY2_WITH_TIMEOUT(w.messageBar()->text().contains(junk + QStringLiteral(" is not a model file that loads")),
                                  qPrintable(w.messageBar()->text()), 20000);
        QVERIFY2(w.messageBar()->text().contains(QStringLiteral("stays loaded")), qPrintable(w.messageBar()->text()));
        QCOMPARE(w.models()->dir(), gguf);  // the GGUF model loaded before is kept
    }

    void workerReportsDraftFiguresAndDropsADraftThatNoLongerFits() {
        QTemporaryDir dir;
        const QString compact = dir.filePath(QStringLiteral("compact"));
        carbon::TestModelOptions c;
        c.compact_vocab = true;
        carbon::make_test_model(compact.toStdString(), c);
        registerEngineMetaTypes();
        QThread thread;
        auto* worker = new EngineWorker;
        worker->moveToThread(&thread);
        thread.start();
        auto call = [worker](auto f) {
            QMetaObject::invokeMethod(
                worker, [worker, f] { f(worker); }, Qt::QueuedConnection);
        };
        QSignalSpy loaded(worker, &EngineWorker::modelLoaded), draftLoaded(worker, &EngineWorker::draftLoaded),
            draftFailed(worker, &EngineWorker::draftFailed), finished(worker, &EngineWorker::finished),
            failed(worker, &EngineWorker::failed);
        const QString target = tiny_;
        call([target](EngineWorker* w) { w->loadModel(target); });
        call([target](EngineWorker* w) { w->loadDraft(target); });
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && draftLoaded.count() == 1, 60000);
        carbon::DesignRequest r;
        r.left_context = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG";
        r.length = 120;
        r.count = 2;
        r.sampling.temperature = 0.0f;
        call([r](EngineWorker* w) { w->generate(1, r); });
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 60000);
        QCOMPARE(failed.count(), 0);
        const QString notices = finished.first().at(2).toStringList().join(QLatin1Char('\n'));
        for (const QString& part : {QStringLiteral("speculative decoding (identical verification) with ") + target,
                                    QStringLiteral("100.0% of"), QStringLiteral("drafted tokens accepted"),
                                    QStringLiteral("tokens per target pass"), QStringLiteral("speed-up")})
            QVERIFY2(notices.contains(part), qPrintable(notices));

        call([compact](EngineWorker* w) { w->loadModel(compact); });
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 2 && draftFailed.count() == 1, 60000);
        QCOMPARE(draftFailed.first().at(0).toString(), target);
        QVERIFY(
            draftFailed.first().at(1).toString().contains(QStringLiteral("does not use the target's DNA token ids")));
        finished.clear();
        call([r](EngineWorker* w) { w->generate(2, r); });
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 60000);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!finished.first().at(2).toStringList().join(QLatin1Char('\n')).contains(QStringLiteral("speculative")));

        thread.quit();
        thread.wait();
        delete worker;
    }
};

QTEST_MAIN(TestModelManager)
#include "test_model_manager.moc"
