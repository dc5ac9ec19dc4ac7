// Project file tests: creation and pragmas, migrations from an older schema and refusal of a
// newer one, typed round trips of every table, whole-or-nothing design commits, a reader that
// keeps reading while a writer thread commits, and clear errors for non-project files.
#include <cmath>
#include <sqlite3.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "carbon/storage/project.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::temp_path;

namespace {

int64_t pragma_int(Project& p, const char* sql) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(p.handle(), sql, -1, &st, nullptr);
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return v;
}

std::string pragma_text(Project& p, const char* sql) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(p.handle(), sql, -1, &st, nullptr);
    std::string v = sqlite3_step(st) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "";
    sqlite3_finalize(st);
    return v;
}

int64_t add_run(Project& p) {
    Run r;
    r.kind = "generate";
    r.model_path = "/models/carbon-500m";
    r.model_config_hash = "cfg123";
    r.tokenizer_hash = "tok456";
    r.backend = "cpu";
    r.seed = 7;
    r.engine_version = "0.1.0";
    r.settings = {{"temperature", "0.8"}, {"top_p", "0.95"}, {"template", "NNNTATAAANNN"}, {"mode", "fns"}};
    return p.begin_run(r);
}

}  // namespace

TEST(new_project_has_schema_wal_and_foreign_keys) {
    const std::string path = temp_path("new.carbon");
    auto p = Project::open(path);
    CHECK_EQ(pragma_int(*p, "PRAGMA user_version"), int64_t(schema_version()));
    CHECK_EQ(pragma_int(*p, "PRAGMA foreign_keys"), 1);
    CHECK_EQ(pragma_text(*p, "PRAGMA journal_mode"), std::string("wal"));
    CHECK(p->check_integrity(true).empty());
}

TEST(round_trip_of_every_table) {
    const std::string path = temp_path("roundtrip.carbon");
    int64_t seq_id = 0, run_id = 0, design_id = 0;
    {
        auto p = Project::open(path);
        SequenceRecord s;
        s.name = "promoter";
        s.bases = "ACGTacgtNRYK";
        s.description = "2 kb upstream";
        s.origin = "typed";
        seq_id = p->add_sequence(s);
        Region r;
        r.sequence_id = seq_id;
        r.kind = RegionKind::Pinned;
        r.start = 2;
        r.end = 8;
        r.label = "TATA";
        p->add_region(r);
        run_id = add_run(*p);
        DesignRecord d;
        d.run_id = run_id;
        d.sequence_id = seq_id;
        d.name = "design_1";
        d.bases = storage_test::design_bases(1, 12);
        d.design_logp = -1.25;
        d.ranking_logp = -1.5;
        d.rank = 1;
        d.stream_index = 3;
        Region dr;
        dr.kind = RegionKind::Design;
        dr.start = 0;
        dr.end = 12;
        dr.template_iupac = "NNNTATAAANNN";
        design_id = p->add_design(d, storage_test::design_tracks(1, 12), {dr});
        p->finish_run(run_id, "finished", 123.5);
        std::vector<VariantRecord> vs(1);
        vs[0].sequence_id = seq_id;
        vs[0].position = 4;
        vs[0].ref = 'a';
        vs[0].alt = 'G';
        vs[0].site_log_odds = 0.75;
        vs[0].window_start = 0;
        vs[0].window_end = 12;
        p->add_variants(vs);
        CHECK(vs[0].id > 0);
    }
    auto p = Project::open(path, {.create = false});
    auto s = p->find_sequence("promoter");
    CHECK(s.has_value());
    CHECK_EQ(s->bases, std::string("ACGTacgtNRYK"));
    CHECK_EQ(s->length, int64_t(12));
    CHECK_EQ(s->origin, std::string("typed"));
    CHECK_EQ(p->regions_of_sequence(seq_id).size(), size_t(1));
    CHECK_EQ(p->regions_of_sequence(seq_id)[0].label, std::string("TATA"));
    auto run = p->run(run_id);
    CHECK(run.has_value());
    CHECK_EQ(run->status, std::string("finished"));
    CHECK_EQ(run->seed, uint64_t(7));
    CHECK_EQ(run->tokenizer_hash, std::string("tok456"));
    CHECK_EQ(run->setting("template").value_or(""), std::string("NNNTATAAANNN"));
    CHECK_NEAR(run->bases_per_second, 123.5, 1e-9);
    CHECK(!run->finished.empty());
    auto designs = p->list_designs();
    CHECK_EQ(designs.size(), size_t(1));
    CHECK_EQ(designs[0].id, design_id);
    CHECK_NEAR(designs[0].design_logp, -1.25, 1e-12);
    CHECK_EQ(storage_test::verify_design(*p, designs[0], 1, 12), std::string());
    auto vs = p->variants_of_sequence(seq_id);
    CHECK_EQ(vs.size(), size_t(1));
    CHECK_EQ(vs[0].alt, 'G');
    CHECK_NEAR(vs[0].site_log_odds, 0.75, 1e-12);
    CHECK(std::isnan(vs[0].window_delta));
    CHECK_EQ(vs[0].window_end, int64_t(12));
}

TEST(design_with_bad_track_is_not_stored_at_all) {
    auto p = Project::open(temp_path("atomic.carbon"));
    const int64_t run_id = add_run(*p);
    DesignRecord d;
    d.run_id = run_id;
    d.name = "bad";
    d.bases = "ACGTACGT";
    auto tracks = storage_test::design_tracks(0, 8);
    tracks[1].values.resize(12);  // 3 positions of a 4-wide track: does not match 8 bases
    CHECK_THROWS_WITH(p->add_design(d, tracks), "track 'dist_acgt' of design 'bad' has 3 positions for 8 bases");
    CHECK_EQ(p->count("designs"), int64_t(0));
    CHECK_EQ(p->count("tracks"), int64_t(0));
    d.run_id = 999;  // no such run: the foreign key refuses it
    CHECK_THROWS_WITH(p->add_design(d, storage_test::design_tracks(0, 8)), "FOREIGN KEY");
    CHECK_EQ(p->count("tracks"), int64_t(0));
}

TEST(older_schema_is_migrated_forward) {
    const std::string path = temp_path("v1.carbon");
    {  // a version-1 file as the first release wrote it: the tables without the indexes
        // (and without version 3's design flag and minimum per-base score columns).
        auto p = Project::open(path);
        DesignRecord d;
        d.run_id = add_run(*p);
        d.name = "old";
        d.bases = "ACGT";
        p->add_design(d);
        char* err = nullptr;
        sqlite3_exec(p->handle(),
                     "DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs; DROP TABLE design_predictions; ALTER TABLE designs DROP COLUMN objective; DROP TABLE predictors; ALTER TABLE sequences DROP COLUMN header; DROP TABLE features; ALTER TABLE designs DROP COLUMN specificity; DROP TABLE vep_results; DROP INDEX designs_by_run; DROP INDEX tracks_by_design; DROP INDEX tracks_by_sequence; "
                     "DROP INDEX regions_by_design; DROP INDEX regions_by_sequence; DROP INDEX variants_by_sequence; "
                     "DROP INDEX sequences_by_name; ALTER TABLE designs DROP COLUMN flag; "
                     "ALTER TABLE designs DROP COLUMN min_base_logp; PRAGMA user_version = 1;",
                     nullptr, nullptr, &err);
        CHECK(err == nullptr);
        sqlite3_free(err);
    }
    auto p = Project::open(path);
    CHECK_EQ(pragma_int(*p, "PRAGMA user_version"), int64_t(schema_version()));
    CHECK_EQ(pragma_int(*p, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'designs_by_run'"), 1);
    CHECK_EQ(p->list_runs().size(), size_t(1));
    const auto designs = p->list_designs();
    CHECK_EQ(designs.size(), size_t(1));
    CHECK_EQ(designs[0].flag, std::string(""));
    CHECK(std::isnan(designs[0].min_base_logp));  // unknown for designs stored before version 3
    p->set_design_flag(designs[0].id, "starred");
    CHECK_EQ(p->design(designs[0].id)->flag, std::string("starred"));
    CHECK_THROWS_WITH(p->set_design_flag(designs[0].id, "maybe"), "design flag must be");
}

TEST(newer_schema_is_refused) {
    const std::string path = temp_path("future.carbon");
    {
        auto p = Project::open(path);
        sqlite3_exec(p->handle(), "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    }
    CHECK_THROWS_WITH(Project::open(path), "future.carbon", "schema version 99 is newer");
}

TEST(non_project_files_give_clear_errors) {
    const std::string path = temp_path("text.carbon");
    std::ofstream(path) << "this is not a database, just some text that is long enough to have a header........\n";
    CHECK_THROWS_WITH(Project::open(path), "text.carbon", "not a database", "Carbon Studio project");
    CHECK_THROWS_WITH(Project::open(temp_path("missing.carbon"), {.create = false}), "missing.carbon: no such project file");
}

TEST(damaged_file_is_reported_not_crashed_on) {
    const std::string path = temp_path("damaged.carbon");
    {
        auto p = Project::open(path);
        const int64_t run_id = add_run(*p);
        for (int i = 0; i < 200; ++i) {
            DesignRecord d;
            d.run_id = run_id;
            d.name = "d" + std::to_string(i);
            d.bases = storage_test::design_bases(i, 300);
            Region r;
            r.kind = RegionKind::Design;
            r.end = 300;
            p->add_design(d, storage_test::design_tracks(i, 300), {r});
        }
        sqlite3_exec(p->handle(), "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
    }
    {  // overwrite a few pages in the middle with garbage
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096 * 7 + 100);
        const std::string junk(9000, '\x5a');
        f.write(junk.data(), std::streamsize(junk.size()));
    }
    bool reported = false;
    try {
        auto p = Project::open(path, {.check = IntegrityCheck::Full});
    } catch (const carbon::Error& e) {
        reported = std::string(e.what()).find("damaged.carbon") != std::string::npos;
    }
    CHECK(reported);
}

TEST(reader_sees_whole_designs_while_a_writer_thread_commits) {
    const std::string path = temp_path("concurrent.carbon");
    auto writer = Project::open(path);
    const int64_t run_id = add_run(*writer);
    std::atomic<bool> done{false};
    std::atomic<int> bad{0}, reads{0};
    std::thread reader([&] {
        auto r = Project::open(path, {.check = IntegrityCheck::None});
        while (!done.load()) {
            // One read transaction: the count of designs and of tracks must agree in every snapshot.
            sqlite3_exec(r->handle(), "BEGIN", nullptr, nullptr, nullptr);
            const int64_t designs = r->count("designs"), tracks = r->count("tracks"), regions = r->count("regions");
            sqlite3_exec(r->handle(), "COMMIT", nullptr, nullptr, nullptr);
            if (tracks != 2 * designs || regions != designs) ++bad;
            ++reads;
        }
    });
    for (int i = 0; i < 300; ++i) {
        DesignRecord d;
        d.run_id = run_id;
        d.name = "d" + std::to_string(i);
        d.bases = storage_test::design_bases(i, 200);
        Region r;
        r.kind = RegionKind::Design;
        r.end = 200;
        writer->add_design(d, storage_test::design_tracks(i, 200), {r});
    }
    done = true;
    reader.join();
    CHECK_EQ(bad.load(), 0);
    CHECK(reads.load() > 0);
    CHECK_EQ(writer->count("designs"), int64_t(300));
}

CHECK_MAIN()

TEST(edited_sequence_is_updated_whole_or_not_at_all) {
    const std::string path = temp_path("edit.carbon");
    auto p = Project::open(path);
    SequenceRecord s;
    s.name = "seq";
    s.bases = "ACGTACGTAC";
    const int64_t id = p->add_sequence(s);
    Region r;
    r.kind = RegionKind::Design;
    r.start = 2;
    r.end = 6;
    std::vector<Region> regions = {r};
    p->update_sequence(id, "TTACGTACGTAC", regions);
    CHECK_EQ(p->sequence(id)->bases, std::string("TTACGTACGTAC"));
    CHECK_EQ(p->regions_of_sequence(id).size(), size_t(1));
    // A region past the end: refused, and neither the bases nor the regions change.
    r.end = 40;
    CHECK_THROWS_WITH(p->update_sequence(id, "GG", {r}), "runs past the 2 bases");
    CHECK_EQ(p->sequence(id)->bases, std::string("TTACGTACGTAC"));
    CHECK_EQ(p->regions_of_sequence(id).size(), size_t(1));
    CHECK_THROWS_WITH(p->update_sequence(id + 99, "GG", {}), "no sequence with id");
}

TEST(design_minimum_per_base_score_and_save_copy) {
    const std::string path = temp_path("min.carbon");
    auto p = Project::open(path);
    DesignRecord d;
    d.run_id = add_run(*p);
    d.name = "d";
    d.bases = "ACGT";
    Track t;
    t.kind = "logp";
    t.values = {-1.0f, std::nanf(""), -2.5f, -0.5f};
    const int64_t id = p->add_design(d, {t});
    CHECK_EQ(p->design(id)->min_base_logp, -2.5);  // NaN (an N base) does not count
    const std::string copy = temp_path("min-copy.carbon");
    p->save_copy(copy);
    CHECK_THROWS_WITH(p->save_copy(copy), "already exists");
    auto c = Project::open(copy, {.create = false});
    CHECK_EQ(c->design(id)->min_base_logp, -2.5);
    CHECK_EQ(c->tracks_of_design(id).size(), size_t(1));
}
