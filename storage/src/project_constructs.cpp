// Project's constructs and selections of designs (ConstructRecord, SelectionRecord in project.h).
#include <sqlite3.h>

#include <set>

#include <nlohmann/json.hpp>

#include "carbon/storage/order_files.h"
#include "carbon/storage/project.h"
#include "carbon/support/visible_text.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

namespace {

void check_name(const std::string& path, const char* what, const std::string& name) {
    if (name.empty() || name.size() > 200) throw Error(path + ": a " + what + "'s name must be 1 to 200 bytes");
}

ConstructRecord construct_row(Stmt& s) {
    return {s.i64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5)};
}

constexpr const char* kConstructColumns = "SELECT id, name, upstream, downstream, description, created FROM constructs";

// Deletes the row of `table` named `name` (a constant table name), in one transaction; Error when
// there is none.
void delete_named(Project& p, sqlite3* db, const char* table, const char* what, const std::string& name) {
    Transaction t(p);
    Stmt del(db, (std::string("DELETE FROM ") + table + " WHERE name = ?").c_str());
    del.bind(1, name).run();
    if (sqlite3_changes(db) == 0) throw Error(p.path() + ": no " + what + " named '" + visible_text(name, 80) + "'");
    t.commit();
}

std::vector<int64_t> selection_designs(sqlite3* db, int64_t id) {
    std::vector<int64_t> ids;
    Stmt s(db, "SELECT design_id FROM selection_designs WHERE selection_id = ? ORDER BY ord");
    s.bind(1, id);
    while (s.step()) ids.push_back(s.i64(0));
    return ids;
}

}  // namespace

int64_t Project::add_construct(const ConstructRecord& c) {
    check_name(path_, "construct", c.name);
    ConstructFlanks parts;
    try {
        parts = checked_flanks({c.upstream, c.downstream});
    } catch (const Error& e) {
        throw Error(path_ + ": construct '" + visible_text(c.name, 80) + "': " + e.what());
    }
    for (const auto& [what, s] : {std::pair<const char*, const std::string&>{"upstream", parts.upstream}, {"downstream", parts.downstream}})
        if (s.size() > kMaxConstructPart)
            throw Error(path_ + ": construct '" + visible_text(c.name, 80) + "': its " + what + " sequence is " + std::to_string(s.size()) +
                        " bp; a construct's part holds at most " + std::to_string(kMaxConstructPart) +
                        " bp (what is synthesised around a design, not a plasmid backbone)");
    if (parts.upstream.empty() && parts.downstream.empty())
        throw Error(path_ + ": construct '" + visible_text(c.name, 80) + "' has neither an upstream nor a downstream sequence");
    Transaction t(*this);
    Stmt same(db_, "SELECT created FROM constructs WHERE name = ?");
    same.bind(1, c.name);
    if (same.step())
        throw Error(path_ + ": already holds a construct named '" + visible_text(c.name, 80) + "' (added " + same.text(0) +
                    "); choose another name");
    Stmt ins(db_, "INSERT INTO constructs(name, upstream, downstream, description, created) VALUES(?,?,?,?,?)");
    ins.bind(1, c.name).bind(2, parts.upstream).bind(3, parts.downstream).bind(4, c.description);
    ins.bind(5, c.created.empty() ? utc_now_iso8601() : c.created).run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    t.commit();
    return id;
}

void Project::remove_construct(const std::string& name) { delete_named(*this, db_, "constructs", "construct", name); }

std::vector<ConstructRecord> Project::list_constructs() {
    std::vector<ConstructRecord> out;
    Stmt s(db_, (std::string(kConstructColumns) + " ORDER BY name").c_str());
    while (s.step()) out.push_back(construct_row(s));
    return out;
}

std::optional<ConstructRecord> Project::find_construct(const std::string& name) {
    Stmt s(db_, (std::string(kConstructColumns) + " WHERE name = ?").c_str());
    s.bind(1, name);
    if (!s.step()) return std::nullopt;
    return construct_row(s);
}

int64_t Project::save_selection(const SelectionRecord& sel, bool replace) {
    check_name(path_, "selection", sel.name);
    const std::string what = path_ + ": selection '" + visible_text(sel.name, 80) + "'";
    if (sel.design_ids.empty()) throw Error(what + " holds no designs");
    const nlohmann::json settings = nlohmann::json::parse(sel.settings, nullptr, false);
    if (!settings.is_object()) throw Error(what + ": its settings are not a JSON object");
    std::set<int64_t> seen;
    for (int64_t id : sel.design_ids)
        if (!seen.insert(id).second) throw Error(what + " names design " + std::to_string(id) + " twice");
    Transaction t(*this);
    Stmt same(db_, "SELECT id, created FROM selections WHERE name = ?");
    same.bind(1, sel.name);
    if (same.step()) {
        if (!replace) throw Error(what + " exists already (saved " + same.text(1) + "); choose another name or replace it");
        Stmt del(db_, "DELETE FROM selections WHERE id = ?");
        del.bind(1, same.i64(0)).run();
    }
    Stmt exists(db_, "SELECT 1 FROM designs WHERE id = ?");
    for (int64_t id : sel.design_ids) {
        exists.reset();
        exists.bind(1, id);
        if (!exists.step()) throw Error(what + ": the project holds no design with id " + std::to_string(id));
    }
    Stmt ins(db_, "INSERT INTO selections(name, created, settings) VALUES(?,?,?)");
    ins.bind(1, sel.name).bind(2, sel.created.empty() ? utc_now_iso8601() : sel.created).bind(3, settings.dump()).run();
    const int64_t sid = sqlite3_last_insert_rowid(db_);
    Stmt row(db_, "INSERT INTO selection_designs(selection_id, ord, design_id) VALUES(?,?,?)");
    for (size_t k = 0; k < sel.design_ids.size(); ++k) {
        row.reset();
        row.bind(1, sid).bind(2, int64_t(k)).bind(3, sel.design_ids[k]).run();
    }
    t.commit();
    return sid;
}

void Project::remove_selection(const std::string& name) { delete_named(*this, db_, "selections", "selection", name); }

std::vector<SelectionRecord> Project::list_selections() {
    std::vector<SelectionRecord> out;
    Stmt s(db_, "SELECT id, name, created, settings FROM selections ORDER BY name");
    while (s.step()) out.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), {}});
    for (SelectionRecord& r : out) r.design_ids = selection_designs(db_, r.id);
    return out;
}

std::optional<SelectionRecord> Project::find_selection(const std::string& name) {
    Stmt s(db_, "SELECT id, name, created, settings FROM selections WHERE name = ?");
    s.bind(1, name);
    if (!s.step()) return std::nullopt;
    SelectionRecord r{s.i64(0), s.text(1), s.text(2), s.text(3), {}};
    r.design_ids = selection_designs(db_, r.id);
    return r;
}

}  // namespace carbon::storage
