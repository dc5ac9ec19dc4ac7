// Fuzz target for opening a project file someone else sent (storage/src/project_open.cpp and the
// schema check, schema_check.cpp): any bytes must open or be refused with carbon::Error, and
//  - a read-only open never changes the file, whether it opens or not;
//  - a file that opens holds no trigger or view and only the tables and indexes of its schema
//    version (the check passed, so the schema read back must be exactly that version's);
//  - what opens can be listed, and, opened for writing, takes a sequence.
// Seeds: projects this build writes (empty, with a sequence, design and features) and the same
// with a trigger, a view, an extra column and user_version changed. Opening's sources are compiled
// here with the sanitizers; the rest of storage, and SQLite, are the plain libraries.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "carbon/storage/project.h"
#include "carbon/support/common.h"
#include "fuzz_target.h"
#include "schema.h"

namespace {

namespace fs = std::filesystem;
using carbon::storage::OpenOptions;
using carbon::storage::Project;

const std::string& work() {
    static const std::string dir = [] {
        char t[] = "/tmp/carbon-fuzz-project-XXXXXX";
        const char* d = mkdtemp(t);
        return std::string(d ? d : "/tmp");
    }();
    return dir;
}

std::string bytes_of(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void put(const std::string& path, const std::string& bytes) {
    for (const char* ext : {"", "-wal", "-shm", "-journal"}) fs::remove(path + ext);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A project as this build writes it, in rollback-journal mode (one file), with `sql` run after.
std::string seed(bool with_content, const char* sql) {
    const std::string path = work() + "/seed.carbon";
    put(path, "");
    fs::remove(path);
    {
        auto p = Project::open(path);
        if (with_content) {
            carbon::storage::SequenceRecord s;
            s.name = "promoter";
            s.bases = "ACGTACGTACGTTTGACA";
            const int64_t id = p->add_sequence(s);
            carbon::storage::FeatureRecord f;
            f.sequence_id = id;
            f.key = "promoter";
            f.location = "1..12";
            f.qualifiers = {{"note", std::string("a box")}};
            p->set_features(id, {f});
            carbon::storage::Run r;
            r.kind = "generate";
            carbon::storage::DesignRecord d;
            d.run_id = p->begin_run(r);
            d.name = "d1";
            d.bases = "ACGTAC";
            p->add_design(d);
        }
    }
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
    if (sql) sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return bytes_of(path);
}

// The file's own schema objects of a type, through plain SQLite (read-only, no trust needed).
int count_objects(const std::string& path, const char* type) {
    sqlite3* db = nullptr;
    int n = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = ?1", -1, &st, nullptr) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

}  // namespace

std::vector<std::string> carbon_fuzz_seeds() {
    return {seed(false, nullptr),
            seed(true, nullptr),
            seed(true, "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM sequences; END;"),
            seed(true, "DROP TABLE regions; CREATE VIEW regions AS SELECT 1 AS id;"),
            seed(true, "ALTER TABLE sequences ADD COLUMN notes TEXT;"),
            seed(true, "PRAGMA user_version = 3;"),
            seed(true, "PRAGMA application_id = 0;")};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::string path = work() + "/input.carbon";
    put(path, input);
    OpenOptions ro;
    ro.read_only = true;
    ro.create = false;
    ro.busy_timeout_ms = 0;
    bool opened = false;
    try {
        auto p = Project::open(path, ro);
        opened = true;
        p->list_sequences();
        p->list_runs();
    } catch (const carbon::Error&) {
    }
    if (bytes_of(path) != input) __builtin_trap();  // a read-only open wrote to the file
    if (opened && (count_objects(path, "trigger") != 0 || count_objects(path, "view") != 0)) __builtin_trap();
    try {
        OpenOptions rw;
        rw.create = false;
        rw.busy_timeout_ms = 0;
        auto p = Project::open(path, rw);
        carbon::storage::SequenceRecord s;
        s.name = "added";
        s.bases = "ACGT";
        p->add_sequence(s);
        if (!opened && input.size() > 0) {
            // Writable but not readable: only a project of an earlier version may differ so
            // (adopted, migrated); it must now read.
            p.reset();
            Project::open(path, ro)->list_sequences();
        }
    } catch (const carbon::Error&) {
    }
    return 0;
}
