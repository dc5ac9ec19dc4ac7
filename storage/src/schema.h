// The project schema as a list of forward migrations; migrate() brings a file from its
// PRAGMA user_version up to the newest, each step in its own transaction. Private to storage/.
#pragma once

struct sqlite3;

namespace carbon::storage::detail {

int newest_schema_version();
// Error (naming the file) for a version newer than this build knows, or a failed step.
void migrate(sqlite3* db, int up_to);

}  // namespace carbon::storage::detail
