// Waiting for another writer and never losing a result (issue 15, class 8): a write waits for
// another connection's transaction up to its busy timeout, reporting while it waits; past it,
// the statement fails saying so; store_or_keep then keeps the whole result in a recovery project
// that merge_project stores later, exactly; a project made only for a failed result is removed.
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::file_bytes;
using storage_test::file_exists;
using storage_test::temp_path;

namespace {

// One run with `n` designs (and their tracks and regions) on a context sequence.
void write_run(Project& p, int n) {
    SequenceRecord ctx;
    ctx.name = "context";
    ctx.bases = "ACGTACGTACGTAAAA";
    const int64_t sid = p.add_sequence(ctx);
    Run r;
    r.kind = "generate";
    r.seed = 11;
    r.settings = {{"length", "300"}, {"mode", "fns"}};
    const int64_t run = p.begin_run(r);
    for (int i = 0; i < n; ++i) {
        DesignRecord d;
        d.run_id = run;
        d.sequence_id = sid;
        d.name = "design_" + std::to_string(i);
        d.bases = storage_test::design_bases(i, 300);
        d.rank = i;
        d.flag = i == 0 ? "starred" : "";
        Region reg;
        reg.kind = RegionKind::Design;
        reg.end = 300;
        p.add_design(d, storage_test::design_tracks(i, 300), {reg});
    }
    std::vector<VariantRecord> vs(1);
    vs[0].sequence_id = sid;
    vs[0].run_id = run;
    vs[0].position = 3;
    vs[0].ref = 'T';
    vs[0].alt = 'G';
    vs[0].ism_score = -0.5;
    p.add_variants(vs);
    p.finish_run(run, "finished", 123.0);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(a_writer_waits_reports_and_gives_up_at_its_limit) {
    const std::string path = temp_path("busy.carbon");
    auto holder = Project::open(path);
    Transaction held(*holder);  // another program's long write transaction
    SequenceRecord s;
    s.name = "held";
    s.bases = "ACGT";
    holder->add_sequence(s);

    int reports = 0;
    double last_limit = 0;
    OpenOptions o;
    o.busy_timeout_ms = 2500;
    o.on_wait = [&](double, double limit) {
        ++reports;
        last_limit = limit;
    };
    auto waiter = Project::open(path, o);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(waiter->add_sequence(s), "busy.carbon", "another program is writing to the project and did not finish within",
                      "database is locked");
    const double waited = seconds_since(t0);
    CHECK(waited >= 2.4 && waited < 60.0);  // waits its limit, then gives up (the upper bound only catches "forever")
    CHECK(reports >= 1);
    CHECK_NEAR(last_limit, 2.5, 1e-9);
    held.commit();
}

TEST(a_writer_that_waits_long_enough_stores_everything) {
    const std::string path = temp_path("wait_ok.carbon");
    auto holder = Project::open(path);
    OpenOptions o;
    o.busy_timeout_ms = 20000;
    auto waiter = Project::open(path, o);
    std::thread other([&] {
        Transaction t(*holder);
        SequenceRecord s;
        s.name = "first";
        s.bases = "ACGT";
        holder->add_sequence(s);
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        t.commit();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto t0 = std::chrono::steady_clock::now();
    const StoreOutcome r = store_or_keep(*waiter, [](Project& p) { write_run(p, 5); });
    other.join();
    CHECK(r.stored);
    CHECK(seconds_since(t0) >= 1.0);
    CHECK_EQ(waiter->count("designs"), int64_t(5));
    CHECK_EQ(waiter->count("sequences"), int64_t(2));
}

TEST(a_result_the_project_cannot_take_is_kept_whole_and_merged_later_exactly) {
    const std::string path = temp_path("kept.carbon");
    auto holder = Project::open(path);
    {
        SequenceRecord s;
        s.name = "context";  // the same name and bases as the run's context: reused by the merge
        s.bases = "ACGTACGTACGTAAAA";
        holder->add_sequence(s);
    }
    const std::string before = file_bytes(path);
    auto held = std::make_unique<Transaction>(*holder);
    OpenOptions o;
    o.busy_timeout_ms = 300;
    const StoreOutcome r = store_or_keep(path, o, [](Project& p) { write_run(p, 7); });
    CHECK(!r.stored);
    CHECK(r.error.find("another program is writing to the project") != std::string::npos);
    CHECK(!r.kept_in.empty());
    CHECK(r.kept_in.find("kept.recovered-") != std::string::npos);
    CHECK(file_exists(r.kept_in));
    held.reset();  // rolled back: the other program wrote nothing after all
    CHECK_EQ(holder->count("designs"), int64_t(0));
    CHECK(file_bytes(path) == before);  // nothing of the result reached the project

    {  // the recovery project holds the whole result
        auto kept = Project::open(r.kept_in, {.create = false, .read_only = true});
        CHECK_EQ(kept->count("designs"), int64_t(7));
        CHECK_EQ(kept->count("tracks"), int64_t(14));
        CHECK_EQ(kept->count("variants"), int64_t(1));
        const MergeResult m = merge_project(*holder, *kept);
        CHECK_EQ(m.run_ids.size(), size_t(1));
        CHECK_EQ(m.designs, size_t(7));
        CHECK_EQ(m.sequences_reused, size_t(1));
        CHECK_EQ(m.sequences_added, size_t(0));
        CHECK_EQ(m.variants, size_t(1));
    }
    const auto designs = holder->list_designs();
    CHECK_EQ(designs.size(), size_t(7));
    for (size_t i = 0; i < designs.size(); ++i) {
        CHECK_EQ(storage_test::verify_design(*holder, designs[i], int64_t(i), 300), std::string());
        CHECK_EQ(designs[i].sequence_id, int64_t(1));
    }
    CHECK_EQ(designs[0].flag, std::string("starred"));
    const auto run = holder->run(designs[0].run_id);
    CHECK(run.has_value());
    CHECK_EQ(run->status, std::string("finished"));
    CHECK_EQ(run->seed, uint64_t(11));
    CHECK_EQ(run->setting("length").value_or(""), std::string("300"));
    const auto vs = holder->variants_of_sequence(1);
    CHECK_EQ(vs.size(), size_t(1));
    CHECK_EQ(vs[0].run_id, run->id);
    CHECK_NEAR(vs[0].ism_score, -0.5, 1e-12);
    remove_project_files(r.kept_in);
}

TEST(a_project_created_for_a_result_that_fails_is_removed) {
    const std::string path = temp_path("made_for_it.carbon");
    const StoreOutcome r = store_or_keep(path, {}, [](Project& p) {
        write_run(p, 2);
        throw carbon::Error("the result itself is wrong");  // fails in the project and in the recovery file
    });
    CHECK(!r.stored);
    CHECK(r.kept_in.empty());
    CHECK(r.keep_error.find("the result itself is wrong") != std::string::npos);
    CHECK(!file_exists(path));
    CHECK(!file_exists(path + "-wal"));
    CHECK(!file_exists(path + "-shm"));
}

CHECK_MAIN()
