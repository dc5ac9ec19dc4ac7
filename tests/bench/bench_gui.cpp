// GUI benchmarks for docs/benchmarks.md (not a test; driven by tests/bench/gui_bench.sh):
//   bench_gui scroll                 frame time of the sequence editor scrolling a 1 Mbp sequence
//   bench_gui open-project FILE N    time to open a project holding N designs (made when missing)
//   bench_gui edit-track MODEL_DIR   time from an edit to the refreshed likelihood track, 10 kb
// Figures go to stdout as "name value unit" lines, one per measurement.
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "../ui/ui_test_support.h"
#include "carbon/runs/run_records.h"
#include "carbon/storage/project.h"
#include "controllers/analysis_controller.h"
#include "controllers/designs_controller.h"
#include "controllers/likelihood_controller.h"
#include "controllers/model_controller.h"
#include "controllers/project_controller.h"
#include "document/commands/insert_bases_command.h"
#include "document/commands/replace_bases_command.h"
#include "document/sequence_document.h"
#include "main_window.h"
#include "views/design_table_model.h"
#include "views/model_panel.h"
#include "views/sequence_editor.h"

using namespace carbon::ui;
namespace st = carbon::storage;

namespace {

using ui_test::randomBases;

void report(const char* name, double value, const char* unit) { std::printf("%s %.3f %s\n", name, value, unit); }

void summary(const char* name, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    report((std::string(name) + "_median").c_str(), ms[ms.size() / 2], "ms");
    report((std::string(name) + "_p95").c_str(), ms[size_t(double(ms.size()) * 0.95)], "ms");
    report((std::string(name) + "_max").c_str(), ms.back(), "ms");
}

// Paint cost per frame while scrolling a 1 Mbp sequence page by page through the whole of it,
// with the token boundaries, a selection and a likelihood band painted.
int benchScroll() {
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return 1;
    w.document()->setBases(randomBases(1'000'000, 1));
    QVector<float> band(1'000'000);
    QRandomGenerator rng(2);
    for (float& v : band) v = -float(rng.generateDouble() * 3.0);
    w.editor()->setLikelihood(band);
    w.editor()->setShowTokenBoundaries(true);
    w.editor()->setSelection(400'000, 600'000);
    QApplication::processEvents();
    std::vector<double> frame, scrollStep;
    for (int i = 0; i < 400; ++i) {
        const qsizetype pos = qsizetype(i) * 2'497;  // 400 positions over the whole megabase
        QElapsedTimer t;
        t.start();
        w.editor()->scrollToPosition(pos);
        w.editor()->repaint();  // synchronous paint of the visible rows
        frame.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    // Small steps, as a wheel or scrollbar drag produces them.
    for (int i = 0; i < 400; ++i) {
        QElapsedTimer t;
        t.start();
        w.editor()->scrollToPosition(700'000 + qsizetype(i) * 120);
        w.editor()->repaint();
        scrollStep.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    report("editor_width_px", w.editor()->width(), "px");
    report("editor_height_px", w.editor()->height(), "px");
    summary("scroll_jump_frame", frame);
    summary("scroll_step_frame", scrollStep);
    return 0;
}

// A project of N designs of 1 kb with their three tracks (as a run stores them), then the time
// from File > Open to the designs table filled and the browser showing the run.
int benchOpenProject(const QString& path, int n) {
    if (!QFileInfo::exists(path)) {
        auto p = st::Project::open(path.toStdString());
        st::SequenceRecord s;
        s.name = "context";
        s.bases = randomBases(2'000, 3).toStdString();
        const int64_t sid = p->add_sequence(s);
        st::Transaction t(*p);
        st::Run r;
        r.kind = "generate";
        const int64_t rid = p->begin_run(r);
        std::vector<carbon::BaseScore> scores(1000);
        QRandomGenerator rng(4);
        for (int i = 0; i < n; ++i) {
            carbon::Design d;
            d.index = size_t(i);
            d.rank = i + 1;
            d.bases = randomBases(1000, quint32(10 + i)).toStdString();
            for (auto& b : scores) {
                b.logp = -float(rng.generateDouble() * 3);
                b.p = {0.25f, 0.25f, 0.25f, 0.25f};
                b.entropy_bits = 2.f;
            }
            d.design_logp = -1.4;
            p->add_design(carbon::runs::design_record(d, rid, sid), carbon::runs::base_score_tracks(scores), carbon::runs::design_regions("", 1000));
        }
        p->finish_run(rid, "finished", 0);
        t.commit();
    }
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return 1;
    QSignalSpy opened(w.project(), &ProjectController::projectOpened);
    // The longest stretch the GUI thread spends without returning to its event loop.
    QElapsedTimer gap;
    qint64 maxGapNs = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] { maxGapNs = std::max(maxGapNs, gap.nsecsElapsed()); gap.restart(); });
    QElapsedTimer t;
    t.start();
    gap.start();
    tick.start(2);
    w.project()->openProject(path);
    while (opened.count() == 0) QTest::qWait(2);  // sleeps in the event loop (processEvents with a time limit would spin)
    const double toOpened = double(t.nsecsElapsed()) / 1e6;
    QApplication::processEvents();  // the table's and browser's first layout and paint
    const double toPainted = double(t.nsecsElapsed()) / 1e6;
    QTest::qWait(20);
    tick.stop();
    report("open_project_longest_gui_thread_stall", double(maxGapNs) / 1e6, "ms");
    report("open_project_designs", w.designs()->model()->rowCount(), "designs");
    report("open_project_to_table_filled", toOpened, "ms");
    report("open_project_to_first_paint", toPainted, "ms");
    return w.designs()->model()->rowCount() == n ? 0 : 1;
}

// Time from an edit of a 10 kb sequence to the refreshed track (incremental rescoring from the
// first changed 6-mer), for edits near the end, in the middle and at the start. The debounce
// that coalesces typing (250 ms in the application) is set to 0 here and reported apart.
int benchEditTrack(const QString& modelDir) {
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return 1;
    // The model manager's start-up scan (each known folder's tokenizer parsed once per session)
    // runs on a pool thread; let it finish so that it does not share the cores with the timings.
    while (w.models()->panel()->isScanning()) QTest::qWait(2);  // sleeps in the event loop (processEvents with a time limit would spin)
    w.models()->load(modelDir);
    while (!w.models()->isReady()) QTest::qWait(2);  // sleeps in the event loop (processEvents with a time limit would spin)
    LikelihoodController* lc = w.analysis()->likelihood();
    lc->setDebounceMs(0);
    QSignalSpy ready(lc, &LikelihoodController::trackReady);
    auto waitTrack = [&] {
        QElapsedTimer t;
        t.start();
        const qsizetype before = ready.count();
        while (ready.count() == before) QTest::qWait(2);  // sleeps in the event loop (processEvents with a time limit would spin)
        return double(t.nsecsElapsed()) / 1e6;
    };
    QElapsedTimer t;
    t.start();
    w.document()->undoStack()->push(new ReplaceBasesCommand(w.document(), 0, 0, randomBases(10'000, 5)));
    report("edit_track_full_10kb", waitTrack(), "ms");
    for (const auto& [name, pos] : {std::pair{"edit_track_insert_at_9000", 9'000}, std::pair{"edit_track_insert_at_5000", 5'000},
                                    std::pair{"edit_track_insert_at_100", 100}}) {
        std::vector<double> ms;
        for (int rep = 0; rep < 5; ++rep) {
            w.document()->undoStack()->push(new InsertBasesCommand(w.document(), pos, QByteArray("G")));
            ms.push_back(waitTrack());
        }
        std::sort(ms.begin(), ms.end());
        report(name, ms[ms.size() / 2], "ms");
    }
    report("edit_track_debounce_in_app", 250, "ms");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // keep QSettings out of the user's files
    const QStringList args = QApplication::arguments().mid(1);
    if (args.value(0) == QLatin1String("scroll")) return benchScroll();
    if (args.value(0) == QLatin1String("open-project") && args.size() == 3) return benchOpenProject(args[1], args[2].toInt());
    if (args.value(0) == QLatin1String("edit-track") && args.size() == 2) return benchEditTrack(args[1]);
    std::fprintf(stderr, "usage: bench_gui scroll | open-project FILE N | edit-track MODEL_DIR\n");
    return 2;
}
