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

// Table name -> its column names in order (SQLite's own tables left out).
using SchemaSignature = std::map<std::string, std::vector<std::string>>;
// The tables of a project of schema `version`, as the migrations leave them.
SchemaSignature schema_signature(int version);
// The tables of an open file; reads the schema only.
SchemaSignature read_signature(sqlite3* db);
// For a read-only connection to a file of an older schema: TEMP views that show its tables with
// the newest columns (defaults where the file has none), so the reads need no migration.
void create_read_compat_views(sqlite3* db, int version);

}  // namespace carbon::storage::detail
