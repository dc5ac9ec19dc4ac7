// The project schema as a list of forward migrations; migrate() brings a file from its
// PRAGMA user_version up to the newest, each step in its own transaction. Private to storage/.
#pragma once

#include <map>
#include <string>
#include <vector>

struct sqlite3;

namespace carbon::storage::detail {

int newest_schema_version();
// Error (naming the file) for a version newer than this build knows, or a failed step. Step 0
// (a new project) also sets the application_id, and refuses a file that holds any table.
void migrate(sqlite3* db, int up_to);

// An in-memory database holding the schema the migrations 0..version make; closed with it.
class ReplayedSchema {
public:
    explicit ReplayedSchema(int version);
    ~ReplayedSchema();
    ReplayedSchema(const ReplayedSchema&) = delete;
    ReplayedSchema& operator=(const ReplayedSchema&) = delete;
    sqlite3* db() const { return db_; }

private:
    sqlite3* db_ = nullptr;
};

// Table name -> its column names in order (SQLite's own tables left out).
using SchemaSignature = std::map<std::string, std::vector<std::string>>;
// The tables of a project of schema `version`, as the migrations leave them.
SchemaSignature schema_signature(int version);
// The tables of an open file; reads the schema only.
SchemaSignature read_signature(sqlite3* db);
// Every object of a file's main schema (tables, indexes, triggers, views) by name: its type, its
// table and its SQL with blanks normalised. A project file is a document people send each other,
// so what it holds is compared with what the migrations make before anything reads or writes it:
// a trigger, a view, an extra index or column, a changed constraint are not Carbon Studio's.
struct SchemaObject {
    std::string type, table, sql;
    bool operator==(const SchemaObject&) const = default;
};
using SchemaObjects = std::map<std::string, SchemaObject>;
SchemaObjects schema_objects(int version);       // as the migrations 0..version leave them
SchemaObjects read_schema_objects(sqlite3* db);  // what the file's main schema holds
// The first way `have` differs from a project of schema `version`, in words; "" when it does not.
std::string schema_difference(const SchemaObjects& have, int version);

// For a read-only connection to a file of an older schema: TEMP views that show its tables with
// the newest columns (defaults where the file has none), so the reads need no migration.
void create_read_compat_views(sqlite3* db, int version);

}  // namespace carbon::storage::detail
