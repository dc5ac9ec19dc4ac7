// Project's activity predictors (the predictors table; PredictorRecord in project.h).
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "carbon/storage/project.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

namespace {

PredictorRecord read_row(Stmt& s, const std::string& path, bool with_definition) {
    PredictorRecord p;
    p.id = s.i64(0);
    p.name = s.text(1);
    p.kind = s.text(2);
    p.created = s.text(3);
    p.model_path = s.text(4);
    p.model_fingerprint = s.text(5);
    p.table_path = s.text(6);
    p.table_hash = s.text(7);
    const nlohmann::json c = nlohmann::json::parse(s.text(8), nullptr, false);
    if (!c.is_array()) throw Error(path + ": predictor '" + p.name + "' has an unreadable list of conditions");
    for (const auto& v : c) {
        if (!v.is_string()) throw Error(path + ": predictor '" + p.name + "' has an unreadable list of conditions");
        p.conditions.push_back(v.get<std::string>());
    }
    if (with_definition) p.definition = s.text(9);
    return p;
}

constexpr const char* kColumns =
    "SELECT id, name, kind, created, model_path, model_fingerprint, table_path, table_hash, conditions, definition FROM predictors";

}  // namespace

int64_t Project::add_predictor(const PredictorRecord& p) {
    if (p.name.empty() || p.name.size() > 200) throw Error(path_ + ": a predictor's name must be 1 to 200 bytes");
    const nlohmann::json def = nlohmann::json::parse(p.definition, nullptr, false);
    if (!def.is_object()) throw Error(path_ + ": predictor '" + p.name + "': its definition is not a JSON object");
    Transaction t(*this);
    Stmt same(db_, "SELECT created, model_path FROM predictors WHERE name = ?");
    same.bind(1, p.name);
    if (same.step())
        throw Error(path_ + ": already holds a predictor named '" + p.name + "' (fitted " + same.text(0) + " on " + same.text(1) +
                    "); choose another name");
    nlohmann::json conditions = p.conditions;
    Stmt ins(db_,
             "INSERT INTO predictors(name, kind, created, model_path, model_fingerprint, table_path, table_hash, conditions, definition) "
             "VALUES(?,?,?,?,?,?,?,?,?)");
    ins.bind(1, p.name).bind(2, p.kind).bind(3, p.created.empty() ? utc_now_iso8601() : p.created).bind(4, p.model_path);
    ins.bind(5, p.model_fingerprint).bind(6, p.table_path).bind(7, p.table_hash).bind(8, conditions.dump()).bind(9, p.definition).run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    t.commit();
    return id;
}

std::vector<PredictorRecord> Project::list_predictors(bool with_definition) {
    std::vector<PredictorRecord> out;
    Stmt s(db_, (std::string(kColumns) + " ORDER BY name").c_str());
    while (s.step()) out.push_back(read_row(s, path_, with_definition));
    return out;
}

std::optional<PredictorRecord> Project::find_predictor(const std::string& name) {
    Stmt s(db_, (std::string(kColumns) + " WHERE name = ?").c_str());
    s.bind(1, name);
    if (!s.step()) return std::nullopt;
    return read_row(s, path_, true);
}

}  // namespace carbon::storage
