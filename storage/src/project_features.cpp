// Project's feature tables of imported GenBank / EMBL entries (the features table; flatfile.h).
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/project.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

namespace {

std::string qualifiers_json(const FeatureRecord& f) {
    nlohmann::json q = nlohmann::json::array();
    for (const auto& [name, value] : f.qualifiers) q.push_back({name, value ? nlohmann::json(*value) : nlohmann::json(nullptr)});
    return q.dump();
}

}  // namespace

void Project::set_features(int64_t sequence_id, const std::vector<FeatureRecord>& features) {
    Transaction t(*this);
    Stmt len(db_, "SELECT length(bases) FROM sequences WHERE id = ?");
    len.bind(1, sequence_id);
    if (!len.step()) throw Error(path_ + ": no sequence with id " + std::to_string(sequence_id));
    const int64_t length = len.i64(0);
    Stmt del(db_, "DELETE FROM features WHERE sequence_id = ?");
    del.bind(1, sequence_id).run();
    Stmt ins(db_, "INSERT INTO features(sequence_id, ord, key, location, qualifiers) VALUES(?,?,?,?,?)");
    int64_t ord = 0;
    for (const FeatureRecord& f : features) {
        if (f.key.empty()) throw Error(path_ + ": a feature of sequence " + std::to_string(sequence_id) + " has no key");
        // A location that does not fit the sequence is refused here, before anything is committed.
        (void)parse_insdc_location(f.location, length, path_ + ": feature " + std::to_string(ord + 1) + " (" + f.key + ") of sequence " +
                                                          std::to_string(sequence_id));
        ins.bind(1, sequence_id).bind(2, ord++).bind(3, f.key).bind(4, f.location).bind(5, qualifiers_json(f)).run();
    }
    t.commit();
}

std::vector<FeatureRecord> Project::features_of_sequence(int64_t sequence_id) {
    std::vector<FeatureRecord> out;
    Stmt s(db_, "SELECT id, key, location, qualifiers FROM features WHERE sequence_id = ? ORDER BY ord");
    s.bind(1, sequence_id);
    while (s.step()) {
        FeatureRecord f;
        f.id = s.i64(0);
        f.sequence_id = sequence_id;
        f.key = s.text(1);
        f.location = s.text(2);
        const nlohmann::json q = nlohmann::json::parse(s.text(3), nullptr, false);
        if (!q.is_array()) throw Error(path_ + ": feature " + std::to_string(f.id) + " has unreadable qualifiers");
        for (const auto& kv : q) {
            if (!kv.is_array() || kv.size() != 2 || !kv[0].is_string() || !(kv[1].is_string() || kv[1].is_null()))
                throw Error(path_ + ": feature " + std::to_string(f.id) + " has unreadable qualifiers");
            f.qualifiers.emplace_back(kv[0].get<std::string>(),
                                      kv[1].is_null() ? std::nullopt : std::optional<std::string>(kv[1].get<std::string>()));
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace carbon::storage
