// A project file's schema against the one the migrations make (see schema.h).
#include <sqlite3.h>

#include <cctype>

#include "carbon/support/common.h"
#include "schema.h"
#include "sqlite_stmt.h"

namespace carbon::storage::detail {

namespace {

// Blanks collapsed to one and dropped next to punctuation, so that the same definition written by
// ALTER TABLE or by CREATE TABLE, on any SQLite version, reads the same.
std::string normalised(const std::string& sql) {
    std::string out;
    bool blank = false;
    for (const char c : sql) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            blank = true;
            continue;
        }
        const bool punct = c == '(' || c == ')' || c == ',';
        if (blank && !out.empty() && !punct && out.back() != '(' && out.back() != ',') out += ' ';
        blank = false;
        out += c;
    }
    return out;
}

SchemaObjects objects_of(sqlite3* db) {
    SchemaObjects out;
    Stmt s(db, "SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema");
    while (s.step()) out[s.text(1)] = SchemaObject{s.text(0), s.text(2), normalised(s.text(3))};
    return out;
}

}  // namespace

SchemaObjects read_schema_objects(sqlite3* db) { return objects_of(db); }

SchemaObjects schema_objects(int version) {
    const ReplayedSchema replay(version);
    return objects_of(replay.db());
}

std::string schema_difference(const SchemaObjects& have, int version) {
    const SchemaObjects want = schema_objects(version);
    const std::string of = "a project of schema " + std::to_string(version);
    for (const auto& [name, o] : have) {
        const auto it = want.find(name);
        if (it == want.end())
            return "it holds a " + o.type + " '" + name + "'" + (o.type == "table" ? std::string() : " on table '" + o.table + "'") +
                   " that " + of + " does not have";
        if (it->second.type != o.type) return "its '" + name + "' is a " + o.type + " where " + of + " has a " + it->second.type;
        if (it->second != o) {
            // Where the definitions part: a few words of each around the first difference.
            const std::string& a = o.sql;
            const std::string& b = it->second.sql;
            size_t i = 0;
            while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
            const size_t from = i > 40 ? i - 40 : 0;
            auto excerpt = [&](const std::string& t) {
                return (from ? "..." : "") + t.substr(from, 100) + (from + 100 < t.size() ? "..." : "");
            };
            return "its " + o.type + " '" + name + "' is defined as '" + excerpt(a) + "' where " + of + " has '" + excerpt(b) + "'";
        }
    }
    for (const auto& [name, o] : want)
        if (!have.count(name)) return "it has no " + o.type + " '" + name + "', which " + of + " has";
    return "";
}

}  // namespace carbon::storage::detail
