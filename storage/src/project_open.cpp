// Opening a project file: telling a Carbon Studio project apart from any other file before
// anything is written, creating new projects, adopting those of earlier versions, read-only
// access that writes nothing, and the bounded, reported wait for another program's write.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "carbon/storage/project.h"
#include "schema.h"
#include "sqlite_failure.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

namespace {

// Earlier versions created projects without an application_id; their schema versions end here.
constexpr int kLastSchemaWithoutApplicationId = 3;

std::string hex32(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08X", v);
    std::string out = b;
    std::string ascii;
    for (int shift = 24; shift >= 0; shift -= 8) {
        const char c = char((v >> shift) & 0xff);
        if (c < 0x20 || c > 0x7e) return out;
        ascii += c;
    }
    return out + " '" + ascii + "'";
}

// The first 100 bytes of an SQLite file: magic, then (big-endian) user_version at 60 and
// application_id at 68. Read with plain file I/O: no lock, no -wal or -shm file, no side effect.
struct Header {
    bool sqlite = false;
    uint32_t user_version = 0, application_id = 0;
    std::string start;  // the first bytes, for the message on a file that is no database
};

Header read_header(const std::string& path) {
    Header h;
    std::ifstream f(path, std::ios::binary);
    char b[100] = {};
    f.read(b, sizeof b);
    const size_t got = size_t(f.gcount());
    for (size_t i = 0; i < got && i < 16; ++i) h.start += (b[i] >= 0x20 && b[i] < 0x7f) ? b[i] : '.';
    if (got < sizeof b || std::string_view(b, 16) != std::string_view("SQLite format 3\0", 16)) return h;
    auto be32 = [&](int at) {
        return uint32_t(uint8_t(b[at])) << 24 | uint32_t(uint8_t(b[at + 1])) << 16 | uint32_t(uint8_t(b[at + 2])) << 8 | uint8_t(b[at + 3]);
    };
    h.sqlite = true;
    h.user_version = be32(60);
    h.application_id = be32(68);
    return h;
}

bool has_nonempty_wal(const std::string& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path + "-wal", ec);
    return !ec && n > 0;
}

// "file:" URI of a path (immutable and similar query parameters need the URI form).
std::string file_uri(const std::string& path, const char* query) {
    std::string out = "file:";
    for (const char c : std::filesystem::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#') {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", unsigned(static_cast<unsigned char>(c)));
            out += b;
        } else {
            out += c;
        }
    }
    return out + "?" + query;
}

// SQLite's limits for an untrusted database file, on every connection to one. Each is far above
// what Carbon Studio's own schema and statements need (at most 15 columns in a table, 15
// parameters, statements of a few hundred bytes, one ATTACH, by VACUUM INTO, no LIKE beyond
// sqlite_%) and far
// below SQLite's defaults, so that neither a file's schema nor anything read from it can make a
// statement that large. A value's length stays at SQLite's default (10^9 bytes): one stored
// chromosome is one value, and record_base_limit tells the user of that limit on import.
void set_untrusted_limits(sqlite3* db) {
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100'000);
    sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 100);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
    sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 100'000);
    sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 1);  // VACUUM INTO (Save As) attaches its target
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 64);
    sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 100);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
}

// Reading what a file is, before it is trusted, has a time limit: a project's header and schema
// are read in milliseconds, so a file whose schema takes longer is refused, not waited on. The
// limit is SQLite's progress handler, asked every 1,000 virtual-machine steps.
class SchemaDeadline {
public:
    SchemaDeadline(sqlite3* db, double seconds)
        : db_(db), end_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                std::chrono::duration<double>(seconds))) {
        sqlite3_progress_handler(db_, 1000, &SchemaDeadline::tick, this);
    }
    ~SchemaDeadline() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }
    SchemaDeadline(const SchemaDeadline&) = delete;
    SchemaDeadline& operator=(const SchemaDeadline&) = delete;
    bool expired() const { return expired_; }

private:
    static int tick(void* self) {
        auto* d = static_cast<SchemaDeadline*>(self);
        d->expired_ = d->expired_ || std::chrono::steady_clock::now() >= d->end_;
        return d->expired_ ? 1 : 0;  // non-zero interrupts the statement (SQLITE_INTERRUPT)
    }
    sqlite3* db_;
    std::chrono::steady_clock::time_point end_;
    bool expired_ = false;
};

// fn() under a SchemaDeadline; its expiry, or a schema past the limits, becomes the refusal that
// says so.
template <class F>
auto within_schema_time(sqlite3* db, const std::string& path, double seconds, F&& fn) {
    SchemaDeadline deadline(db, seconds);
    try {
        return fn();
    } catch (const Error&) {
        const std::string sqlite_says = sqlite3_errmsg(db);
        if (!deadline.expired() && sqlite_says.rfind("malformed database schema", 0) == 0)
            throw Error(path + ": not a project this version can trust: SQLite cannot read its schema within the limits set for a file from outside (" +
                        sqlite_says + "); nothing was written to it");
        if (!deadline.expired()) throw;
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", seconds);
        throw Error(path + ": not a project this version can trust: reading its schema took longer than " + std::string(limit) +
                    " s (a project's takes milliseconds); nothing was written to it");
    }
}

sqlite3* connect(const std::string& path, const std::string& target, int flags) {
    sqlite3* db = nullptr;
    flags |= SQLITE_OPEN_NOMUTEX;  // one connection per thread (see project.h)
    if (sqlite3_open_v2(target.c_str(), &db, flags, nullptr) != SQLITE_OK) {
        const std::string msg = detail::failure_text(db);
        sqlite3_close_v2(db);
        throw Error(path + ": cannot open the project: " + msg);
    }
    sqlite3_extended_result_codes(db, 1);
    set_untrusted_limits(db);
    // A project file is untrusted input (SQLite's "defense against dark arts"): no SQL that would
    // corrupt it on purpose, no extension loading, and none of the file's own triggers or views
    // ever run (the connection's TEMP ones, the read-compatibility views, still do). The schema is
    // then checked to be exactly ours before anything reads or writes a table (Project::open).
    // trusted_schema stays on: the project's own CHECK constraints call json_valid, which SQLite
    // 3.40 does not mark innocuous, so with it off no project could be read; what it guards
    // against, a file's functions in triggers, views, constraints or defaults running on our reads
    // and writes, the exact schema check and the switched-off triggers and views stop first.
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    if (sqlite3_libversion_number() >= 3035000) {  // earlier, these switched off TEMP views and triggers too
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
        sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    }
    return db;
}

enum class Kind { Carbon, Legacy, Empty, Foreign };

struct Identity {
    Kind kind = Kind::Foreign;
    int version = 0;
    std::string why;  // Foreign: what the file is instead
};

std::string table_list(const detail::SchemaSignature& sig) {
    std::string out;
    size_t n = 0;
    for (const auto& [t, cols] : sig) {
        if (n++ == 6) return out + ", ...";
        out += (out.empty() ? "" : ", ") + t;
    }
    return out;
}

// The first way a file's tables differ from those of a project of schema `version`.
std::string signature_difference(const detail::SchemaSignature& have, const detail::SchemaSignature& want) {
    for (const auto& [t, cols] : want) {
        const auto it = have.find(t);
        if (it == have.end()) return "it has no table '" + t + "'";
        if (it->second != cols) {
            std::string c;
            for (const auto& name : it->second) c += (c.empty() ? "" : ", ") + name;
            return "its table '" + t + "' has the columns (" + c + ")";
        }
    }
    for (const auto& [t, cols] : have)
        if (!want.count(t)) return "it has a table '" + t + "' that no project has";
    return "";
}

// What the file is, from its header and, where that is not enough (application_id 0), its
// tables, read through a connection that writes nothing.
Identity identify(const std::string& path, const Header& h, double schema_seconds) {
    Identity id;
    id.version = int(h.user_version);
    if (h.application_id == uint32_t(project_application_id)) {
        id.kind = Kind::Carbon;
        return id;
    }
    if (h.application_id != 0) {
        id.why = "an SQLite database of another program (application_id " + hex32(h.application_id) + "; a project's is " +
                 hex32(uint32_t(project_application_id)) + ")";
        return id;
    }
    // application_id 0: another program's database, an empty one, or a project of an earlier
    // version. Without a non-empty -wal beside it the file alone is the whole database and is
    // read as immutable (no lock, no -shm); otherwise through an ordinary read-only connection.
    const std::string target = has_nonempty_wal(path) ? path : file_uri(path, "immutable=1");
    sqlite3* db = connect(path, target, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    detail::SchemaSignature sig;
    int version = 0;
    uint32_t app = 0;
    try {
        within_schema_time(db, path, schema_seconds, [&] {
            Stmt v(db, "PRAGMA user_version");
            version = v.step() ? int(v.i64(0)) : 0;
            Stmt a(db, "PRAGMA application_id");
            app = a.step() ? uint32_t(a.i64(0)) : 0;
            sig = detail::read_signature(db);
        });
    } catch (...) {
        sqlite3_close_v2(db);
        throw;
    }
    sqlite3_close_v2(db);
    id.version = version;
    if (app == uint32_t(project_application_id)) {  // adopted, the header change still in the WAL
        id.kind = Kind::Carbon;
        return id;
    }
    if (sig.empty() && version == 0) {
        id.kind = Kind::Empty;
        id.why = "an SQLite database without any table (a new project is created only in place of a missing or empty file)";
        return id;
    }
    if (version >= 1 && version <= kLastSchemaWithoutApplicationId) {
        const std::string diff = signature_difference(sig, detail::schema_signature(version));
        if (diff.empty()) {
            id.kind = Kind::Legacy;
            return id;
        }
        id.why = "an SQLite database without Carbon Studio's application_id whose tables (" + table_list(sig) +
                 ") are not those of a project of schema " + std::to_string(version) + ": " + diff;
        return id;
    }
    id.why = "an SQLite database of another program (no Carbon Studio application_id" +
             (version ? "; user_version " + std::to_string(version) : std::string()) +
             "; tables: " + (sig.empty() ? std::string("none") : table_list(sig)) + ")";
    return id;
}

void run_sql(sqlite3* db, const std::string& path, const char* sql, const char* what) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        sqlite3_free(err);
        throw Error(path + ": " + what + ": " + detail::failure_text(db));
    }
}

// A project of an earlier version gets the application_id, under the write lock and after
// checking its tables once more.
void adopt(sqlite3* db, const std::string& path) {
    run_sql(db, path, "BEGIN IMMEDIATE", "cannot start writing");
    try {
        Stmt a(db, "PRAGMA application_id");
        const bool done = a.step() && a.i64(0) == project_application_id;
        a.reset();
        if (!done) {
            Stmt v(db, "PRAGMA user_version");
            const int version = v.step() ? int(v.i64(0)) : 0;
            v.reset();
            if (version < 1 || version > kLastSchemaWithoutApplicationId ||
                !signature_difference(detail::read_signature(db), detail::schema_signature(version)).empty())
                throw Error(path + ": changed while it was being opened; nothing was written to it");
            const std::string sql = "PRAGMA application_id = " + std::to_string(project_application_id);
            run_sql(db, path, sql.c_str(), "cannot mark the project");
        }
        run_sql(db, path, "COMMIT", "cannot mark the project");
    } catch (...) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

}  // namespace

int Project::busy_handler(void* self, int count) {
    auto* p = static_cast<Project*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (count == 0) {
        p->wait_start_ = now;
        p->next_report_ = now + std::chrono::seconds(1);
    }
    const double waited = std::chrono::duration<double>(now - p->wait_start_).count();
    const double limit = p->busy_timeout_ms_ / 1000.0;
    if (waited >= limit) {
        detail::last_busy_give_up() = {p->db_, waited};
        return 0;  // SQLite returns SQLITE_BUSY to the statement
    }
    if (p->on_wait_ && now >= p->next_report_) {
        try {  // never let an exception cross SQLite's C frames
            p->on_wait_(waited, limit);
        } catch (...) {
        }
        p->next_report_ = now + std::chrono::seconds(5);
    }
    const double left_ms = (limit - waited) * 1000.0;
    const double step_ms = std::min({count < 7 ? double(1 << count) : 100.0, left_ms, 100.0});
    std::this_thread::sleep_for(std::chrono::microseconds(int64_t(std::max(step_ms, 0.5) * 1000)));
    return 1;
}

std::unique_ptr<Project> Project::open(const std::string& path, const OpenOptions& o) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    // Not found is not an error of status(); anything else (a folder on the way this user may
    // not enter) must not be reported as a missing file.
    if (ec && st.type() != fs::file_type::not_found)
        throw Error(path + ": cannot be reached: " + ec.message() + " (a folder on its path is not open to this user?)");
    const bool existed = fs::exists(st);
    if (existed && fs::is_directory(st)) throw Error(path + ": is a folder, not a project file");
    if (existed && !fs::is_regular_file(st))
        throw Error(path + ": is not a regular file (a device, pipe or socket), so it cannot be a project");
    if (!existed && (!o.create || o.read_only)) throw Error(path + ": no such project file");
    const bool zero_bytes = !existed || fs::file_size(path, ec) == 0;

    // What the file is, found without writing anything to it.
    Identity id;
    if (zero_bytes) {
        id.kind = Kind::Empty;
        id.why = "an empty file";
    } else {
        const Header h = read_header(path);
        if (!h.sqlite)
            throw Error(path + ": not a Carbon Studio project: the file is not a database (no SQLite header; it starts with '" + h.start +
                        "'); nothing was written to it");
        id = identify(path, h, o.schema_read_limit_s);
    }
    if (id.kind == Kind::Foreign) throw Error(path + ": not a Carbon Studio project: " + id.why + "; nothing was written to it");
    if (id.kind == Kind::Empty && (!zero_bytes || o.read_only || !o.create))
        throw Error(path + ": not a Carbon Studio project: " + id.why + "; nothing was written to it");
    if (id.kind != Kind::Empty && id.version < 1)
        throw Error(path + ": not a project this version can open: its schema version (user_version " + std::to_string(id.version) +
                    ") is not one a project ever has (1 to " + std::to_string(detail::newest_schema_version()) + "); nothing was written to it");
    if (id.version > detail::newest_schema_version())
        throw Error(path + ": project schema version " + std::to_string(id.version) + " is newer than this Carbon Studio understands (" +
                    std::to_string(detail::newest_schema_version()) + "); open it with a newer version");

    // The connection this Project keeps.
    sqlite3* db = connect(path, path, o.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (existed ? 0 : SQLITE_OPEN_CREATE));
    std::unique_ptr<Project> p(new Project(path, db));
    p->created_ = !existed;
    p->busy_timeout_ms_ = std::max(0, o.busy_timeout_ms);
    p->on_wait_ = o.on_wait;
    sqlite3_busy_handler(db, &Project::busy_handler, p.get());
    if (!o.read_only && sqlite3_db_readonly(db, "main") == 1)
        throw Error(path + ": the project file cannot be written (no write permission); nothing was written to it");
    try {
        within_schema_time(db, path, o.schema_read_limit_s, [&] {
            Stmt s(db, "SELECT count(*) FROM sqlite_schema");
            s.step();
        });
    } catch (const Error&) {
        // A project in WAL mode inside a read-only folder: a reader cannot make the -shm file it
        // needs. Without a -wal file beside it, nothing can be writing to the project there, and
        // the file is read as it is (immutable).
        const int code = sqlite3_errcode(db) & 0xff;  // extended codes are on
        if (!o.read_only || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN) || has_nonempty_wal(path)) throw;
        sqlite3_close_v2(db);
        p->db_ = nullptr;
        p->db_ = connect(path, file_uri(path, "immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
        db = p->db_;
        sqlite3_busy_handler(db, &Project::busy_handler, p.get());
    }
    // Before anything reads or writes it: the file holds exactly the tables and indexes a project
    // of its version has (no trigger, view, extra index or column, no changed constraint).
    if (id.kind != Kind::Empty) {
        // The version as the connection reads it (a migration may still be in the -wal file).
        const int version = p->file_schema_version();
        if (version < 1 || version > detail::newest_schema_version())
            throw Error(path + ": not a project this version can open: its schema version (user_version " + std::to_string(version) +
                        ") is not one this Carbon Studio knows (1 to " + std::to_string(detail::newest_schema_version()) +
                        "); nothing was written to it");
        id.version = version;
        const std::string diff = detail::schema_difference(
            within_schema_time(db, path, o.schema_read_limit_s, [&] { return detail::read_schema_objects(db); }), version);
        if (!diff.empty())
            throw Error(path + ": not a project this version can trust: " + diff +
                        " (a project holds only the tables and indexes Carbon Studio makes); nothing was written to it");
    }
    run_sql(db, path, "PRAGMA foreign_keys = ON", "cannot enable foreign keys");
    if (o.read_only) {
        // Nothing is written: an older schema is read through views in the connection's own
        // temporary database.
        if (id.version < detail::newest_schema_version()) detail::create_read_compat_views(db, id.version);
    } else {
        // A new project gets its tables and application_id in one transaction before the switch
        // to WAL, so that a crash leaves either an empty file or a whole project.
        if (id.kind == Kind::Empty) detail::migrate(db, 1);
        if (id.kind == Kind::Legacy) adopt(db, path);
        run_sql(db, path, "PRAGMA journal_mode = WAL", "cannot switch to WAL");
        // NORMAL in WAL: a commit survives a killed process; only an OS crash or power loss can
        // lose the last commits, never corrupt the file.
        run_sql(db, path, "PRAGMA synchronous = NORMAL", "cannot set synchronous");
        detail::migrate(db, schema_version());
    }
    if (o.check != IntegrityCheck::None) {
        const auto problems = p->check_integrity(o.check == IntegrityCheck::Full);
        if (!problems.empty()) {
            std::string msg = path + ": the project file is damaged (" + std::to_string(problems.size()) + " problem(s)): " + problems[0];
            for (size_t i = 1; i < problems.size() && i < 5; ++i) msg += "; " + problems[i];
            throw Error(msg);
        }
    }
    return p;
}

Project::~Project() { sqlite3_close_v2(db_); }

bool Project::empty() {
    for (const char* t : {"sequences", "runs", "designs", "tracks", "variants", "regions", "predictors", "constructs", "selections"})
        if (count(t) != 0) return false;
    return true;
}

int Project::file_schema_version() {
    Stmt v(db_, "PRAGMA user_version");
    return v.step() ? int(v.i64(0)) : 0;
}

void remove_project_files(const std::string& path) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace carbon::storage
