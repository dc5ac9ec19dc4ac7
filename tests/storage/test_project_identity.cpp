// Which files Project::open accepts (issue 15, class 5): other programs' SQLite databases (with
// or without an application_id, with a table called `sequences`, in WAL or rollback mode) are
// refused and stay byte for byte as they were; projects of earlier versions (application_id 0,
// schema 1-3) open, read-only without a single write, and get the id when opened for writing.
// Every input is made here.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cmath>

#include <fstream>

#include "carbon/storage/project.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::file_bytes;
using storage_test::file_exists;
using storage_test::temp_path;

namespace {

// Runs SQL on a file through plain SQLite, as another program would.
void sql(const std::string& path, const std::string& text) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    char* err = nullptr;
    sqlite3_exec(db, text.c_str(), nullptr, nullptr, &err);
    if (err) std::fprintf(stderr, "  setup SQL failed: %s\n", err);
    CHECK(err == nullptr);
    sqlite3_free(err);
    sqlite3_close(db);
}

int64_t pragma(Project& p, const char* q) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(p.handle(), q, -1, &st, nullptr);
    const int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return v;
}

// Byte 18 of the SQLite header: 1 = rollback journal, 2 = WAL.
int file_format_byte(const std::string& path) { return file_bytes(path).size() > 18 ? file_bytes(path)[18] : -1; }

// A project of an earlier version: made by this build, then taken back to `version` with
// application_id 0, in rollback-journal mode so that its bytes are stable on disk.
std::string legacy_project(const std::string& name, int version) {
    const std::string path = temp_path(name);
    {
        auto p = Project::open(path);
        SequenceRecord s;
        s.name = "promoter";
        s.bases = "ACGTACGTAC";
        p->add_sequence(s);
        Run r;
        r.kind = "generate";
        DesignRecord d;
        d.run_id = p->begin_run(r);
        d.name = "old";
        d.bases = "ACGT";
        p->add_design(d);
    }
    std::string downgrade = "PRAGMA journal_mode = DELETE; PRAGMA application_id = 0; PRAGMA user_version = " + std::to_string(version) + ";";
    if (version < 9) downgrade += "DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs;";
    if (version < 8) downgrade += "DROP TABLE design_predictions; ALTER TABLE designs DROP COLUMN objective;";
    if (version < 7) downgrade += "DROP TABLE predictors;";
    if (version < 6) downgrade += "ALTER TABLE sequences DROP COLUMN header;";
    if (version < 5) downgrade += "DROP TABLE features; ALTER TABLE designs DROP COLUMN specificity;";
    if (version < 4) downgrade += "DROP TABLE vep_results;";
    if (version < 3) downgrade += "ALTER TABLE designs DROP COLUMN flag; ALTER TABLE designs DROP COLUMN min_base_logp;";
    if (version < 2)
        downgrade += "DROP INDEX designs_by_run; DROP INDEX tracks_by_design; DROP INDEX tracks_by_sequence; DROP INDEX regions_by_design; "
                     "DROP INDEX regions_by_sequence; DROP INDEX variants_by_sequence; DROP INDEX sequences_by_name;";
    sql(path, downgrade);
    return path;
}

// Open must fail with every `parts` in the message and leave the file (and its folder) as it was.
void check_refused_untouched(const std::string& path, std::initializer_list<const char*> parts, double schema_read_limit_s = 10) {
    const std::string before = file_bytes(path);
    for (const bool read_only : {false, true}) {
        OpenOptions o;
        o.read_only = read_only;
        o.create = !read_only;
        o.schema_read_limit_s = schema_read_limit_s;
        bool threw = false;
        try {
            Project::open(path, o);
        } catch (const carbon::Error& e) {
            threw = true;
            const std::string msg = e.what();
            for (const char* part : parts)
                if (msg.find(part) == std::string::npos) check::fail(__FILE__, __LINE__, "message '" + msg + "' lacks '" + part + "'");
        }
        CHECK(threw);
        CHECK(file_bytes(path) == before);
        CHECK(!file_exists(path + "-wal"));
        CHECK(!file_exists(path + "-shm"));
        CHECK(!file_exists(path + "-journal"));
    }
}

}  // namespace

TEST(new_project_carries_the_application_id) {
    auto p = Project::open(temp_path("id.carbon"));
    CHECK_EQ(pragma(*p, "PRAGMA application_id"), int64_t(project_application_id));
    CHECK_EQ(project_application_id, int32_t(('C' << 24) | ('R' << 16) | ('B' << 8) | 'N'));
    CHECK(p->created());
    CHECK(p->empty());
}

TEST(another_programs_database_is_refused_and_left_byte_identical) {
    const std::string contacts = temp_path("contacts.db");
    sql(contacts, "CREATE TABLE contacts(name TEXT, phone TEXT); INSERT INTO contacts VALUES('Ada', '123');");
    check_refused_untouched(contacts, {"contacts.db", "not a Carbon Studio project", "tables: contacts", "nothing was written"});
    CHECK_EQ(file_format_byte(contacts), 1);  // still a rollback-journal file, not switched to WAL

    const std::string wal = temp_path("wal.db");  // another program's WAL database, closed cleanly
    sql(wal, "PRAGMA journal_mode = WAL; CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('x');");
    check_refused_untouched(wal, {"wal.db", "not a Carbon Studio project", "tables: notes"});

    const std::string tagged = temp_path("tagged.db");  // with an application_id of its own
    sql(tagged, "PRAGMA application_id = 1195459674; CREATE TABLE t(x);");
    check_refused_untouched(tagged, {"application_id 0x4741445A 'GADZ'", "0x4352424E 'CRBN'"});
}

TEST(a_file_with_a_sequences_table_is_refused_before_anything_changes) {
    const std::string path = temp_path("sequences.db");
    sql(path, "CREATE TABLE sequences(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO sequences(x) VALUES('mine');");
    check_refused_untouched(path, {"not a Carbon Studio project", "tables: sequences"});
    CHECK_EQ(file_format_byte(path), 1);
    // The same table at a project's schema version is not enough either.
    sql(path, "PRAGMA user_version = 3");
    check_refused_untouched(path, {"not those of a project of schema 3", "it has no table"});
}

// A project is a document people send each other: a file with Carbon Studio's application_id and
// a schema that is not exactly what the migrations make (a trigger, a view standing in for a
// table, an extra column or index, a user_version out of range or lying about the schema) is
// refused before anything reads or writes it, read-write and read-only, and stays byte-identical.
TEST(a_tampered_project_is_refused_before_anything_runs) {
    const std::string base = temp_path("base.carbon");
    {
        auto p = Project::open(base);
        SequenceRecord s;
        s.name = "promoter";
        s.bases = "ACGTACGTAC";
        p->add_sequence(s);
    }
    sql(base, "PRAGMA journal_mode = DELETE");  // one file, as sent
    const std::string bytes = file_bytes(base);
    const struct {
        const char* name;
        const char* sql;
        std::initializer_list<const char*> parts;
    } cases[] = {
        {"trigger", "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM sequences; END;",
         {"not a project this version can trust", "trigger 'wipe' on table 'runs'", "nothing was written"}},
        {"view", "DROP TABLE regions; CREATE VIEW regions AS SELECT 1 AS id;", {"its 'regions' is a view where a project of schema"}},
        {"column", "ALTER TABLE sequences ADD COLUMN notes TEXT;", {"its table 'sequences' is defined as", ",notes TEXT)'"}},
        {"index", "CREATE INDEX by_bases ON sequences(bases);", {"index 'by_bases' on table 'sequences'"}},
        {"table", "CREATE TABLE loot(x);", {"a table 'loot'"}},
        {"negative", "PRAGMA user_version = -1;", {"user_version -1", "1 to "}},
        {"future", "PRAGMA user_version = 99;", {"schema version 99 is newer"}},
        {"lying", "PRAGMA user_version = 3;", {"a project of schema 3"}},
        // Past the limits each connection sets for an untrusted file (project_open.cpp).
        {"wide", nullptr, {"not a project this version can trust", "too many columns on wide"}},
        {"long", nullptr, {"not a project this version can trust", "string or blob too big"}},
    };
    for (const auto& c : cases) {
        const std::string path = temp_path(std::string("tampered-") + c.name + ".carbon");
        { std::ofstream(path, std::ios::binary) << bytes; }
        std::string text = c.sql ? c.sql : "";
        if (std::string(c.name) == "wide") {
            text = "CREATE TABLE wide(c0";
            for (int i = 1; i < 150; ++i) text += ", c" + std::to_string(i);
            text += ");";
        } else if (std::string(c.name) == "long") {
            text = "CREATE TABLE long(x DEFAULT '" + std::string(200'000, 'A') + "');";
        }
        sql(path, text);
        check_refused_untouched(path, c.parts);
    }
    // The untampered copy opens.
    CHECK(Project::open(base)->list_sequences().size() == 1);
}

TEST(every_connection_has_the_untrusted_file_limits) {
    auto p = Project::open(temp_path("limits.carbon"));
    sqlite3* db = p->handle();
    CHECK_EQ(sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1), 1);
    CHECK_EQ(sqlite3_limit(db, SQLITE_LIMIT_COLUMN, -1), 100);
    CHECK_EQ(sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, -1), 100000);
    CHECK_EQ(sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, -1), 100000);
    CHECK_EQ(sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, -1), 1);
    CHECK(sqlite3_exec(db, "ATTACH ':memory:' AS one", nullptr, nullptr, nullptr) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "ATTACH ':memory:' AS two", nullptr, nullptr, nullptr) != SQLITE_OK);
    sqlite3_exec(db, "DETACH one", nullptr, nullptr, nullptr);
}

TEST(a_file_whose_schema_takes_too_long_to_read_is_refused_untouched) {
    const std::string path = temp_path("slow-schema.carbon");
    { Project::open(path); }
    std::string many = "PRAGMA journal_mode = DELETE; BEGIN;";
    for (int i = 0; i < 4000; ++i) many += "CREATE TABLE t" + std::to_string(i) + "(a, b, c);";
    sql(path, many + "COMMIT;");
    // The first progress tick is past a limit of 0 s: deterministic.
    check_refused_untouched(path, {"reading its schema took longer than 0 s", "nothing was written"}, 0);
    // Within the default limit the same file is refused for what it holds.
    check_refused_untouched(path, {"a table 't"});
}

TEST(an_earlier_projects_tables_plus_one_of_its_own_are_refused) {
    const std::string path = legacy_project("legacy_plus.carbon", 3);
    sql(path, "CREATE TABLE contacts(name TEXT)");
    check_refused_untouched(path, {"not a Carbon Studio project", "a table 'contacts' that no project has"});
    const std::string cols = legacy_project("legacy_cols.carbon", 2);
    sql(cols, "ALTER TABLE sequences ADD COLUMN colour TEXT");
    check_refused_untouched(cols, {"its table 'sequences' has the columns (id, name, bases, description, origin, created, modified, colour)"});
}

TEST(projects_of_earlier_versions_are_read_without_a_write) {
    for (int version = 1; version <= 3; ++version) {
        const std::string path = legacy_project("legacy_ro_" + std::to_string(version) + ".carbon", version);
        const std::string before = file_bytes(path);
        {
            auto p = Project::open(path, {.create = false, .read_only = true});
            CHECK_EQ(p->file_schema_version(), version);
            CHECK_EQ(p->list_sequences().size(), size_t(1));
            const auto designs = p->list_designs();
            CHECK_EQ(designs.size(), size_t(1));
            CHECK_EQ(designs[0].flag, std::string(""));  // read through the view for schema 1 and 2
            CHECK(version == 3 || std::isnan(designs[0].min_base_logp));
            CHECK(p->vep_rows(1).empty());  // no vep_results table before schema 4: an empty view
            CHECK_EQ(p->count("vep_results"), int64_t(0));
        }
        CHECK(file_bytes(path) == before);
        CHECK(!file_exists(path + "-wal"));
        CHECK_EQ(file_format_byte(path), 1);
    }
}

TEST(projects_of_earlier_versions_get_the_id_and_migrate_when_opened_for_writing) {
    for (int version = 1; version <= 3; ++version) {
        const std::string path = legacy_project("legacy_rw_" + std::to_string(version) + ".carbon", version);
        {
            auto p = Project::open(path);
            CHECK(!p->created());
            CHECK_EQ(pragma(*p, "PRAGMA application_id"), int64_t(project_application_id));
            CHECK_EQ(p->file_schema_version(), schema_version());
            CHECK_EQ(p->list_designs().size(), size_t(1));
            p->set_design_flag(p->list_designs()[0].id, "starred");
        }
        auto again = Project::open(path, {.create = false, .read_only = true});
        CHECK_EQ(again->list_designs()[0].flag, std::string("starred"));
    }
}

TEST(empty_files_folders_and_pipes) {
    const std::string zero = temp_path("zero.carbon");
    { std::ofstream(zero).flush(); }
    CHECK_THROWS_WITH(Project::open(zero, {.create = false, .read_only = true}), "zero.carbon", "not a Carbon Studio project", "empty file");
    CHECK_EQ(file_bytes(zero).size(), size_t(0));
    {
        auto p = Project::open(zero);  // a 0-byte file may become a project when creating was asked
        CHECK_EQ(pragma(*p, "PRAGMA application_id"), int64_t(project_application_id));
    }
    const std::string no_tables = temp_path("notables.db");
    sql(no_tables, "PRAGMA user_version = 0; PRAGMA page_size = 4096; VACUUM;");
    if (file_bytes(no_tables).size() > 0)
        check_refused_untouched(no_tables, {"an SQLite database without any table"});
    const std::string text = temp_path("text.carbon");
    std::ofstream(text) << "name,phone\nAda,123\n";
    check_refused_untouched(text, {"not a Carbon Studio project", "not a database", "it starts with 'name,phone.Ada,1'"});
    const std::string folder = temp_path("folder.carbon");
    std::filesystem::create_directories(folder);
    CHECK_THROWS_WITH(Project::open(folder), "folder.carbon: is a folder, not a project file");
    const std::string fifo = temp_path("fifo.carbon");
    CHECK(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(Project::open(fifo), "fifo.carbon: is not a regular file");
    CHECK_THROWS_WITH(Project::open(temp_path("missing.carbon"), {.create = false, .read_only = true}), "missing.carbon: no such project file");
    CHECK(!file_exists(temp_path("missing.carbon")));
}

TEST(a_newer_project_is_refused_read_only_too) {
    const std::string path = temp_path("newer.carbon");
    {
        auto p = Project::open(path);
        sqlite3_exec(p->handle(), "PRAGMA user_version = 42", nullptr, nullptr, nullptr);
    }
    CHECK_THROWS_WITH(Project::open(path, {.create = false, .read_only = true}), "schema version 42 is newer");
}

CHECK_MAIN()
