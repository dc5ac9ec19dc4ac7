// Predictors stored in a project (schema 7: PredictorRecord, Project::add_predictor,
// list_predictors, find_predictor): stored whole and read back, names unique (a second of the
// same name refused with the file unchanged), a definition that is not a JSON object refused,
// recovery merging them under a new name where the name is taken, and a project of schema 6
// read without a predictors table.
#include <sqlite3.h>

#include "carbon/storage/project.h"
#include "carbon/storage/recovery.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::file_bytes;
using storage_test::temp_path;

namespace {

PredictorRecord record(const std::string& name) {
    PredictorRecord r;
    r.name = name;
    r.created = "2026-11-27T18:00:00Z";
    r.model_path = "/models/carbon-500m";
    r.model_fingerprint = "fnv1a64:00000000000000aa";
    r.table_path = "/lab/mpra.tsv";
    r.table_hash = "fnv1a64:00000000000000bb";
    r.conditions = {"K562", "HepG2"};
    r.definition = R"({"format": "carbon-studio-probe", "version": 1, "name": ")" + name + "\"}";
    return r;
}

}  // namespace

TEST(predictors_are_stored_whole_and_read_back_by_name) {
    const std::string path = temp_path("predictors.carbon");
    {
        auto p = Project::open(path);
        CHECK(p->empty());
        const int64_t a = p->add_predictor(record("mpra round 1"));
        const int64_t b = p->add_predictor(record("deepstarr"));
        CHECK(a > 0 && b > a);
        CHECK(!p->empty());
        CHECK_EQ(p->count("predictors"), int64_t(2));
    }
    auto p = Project::open(path, OpenOptions{.read_only = true});
    const auto list = p->list_predictors();
    CHECK_EQ(list.size(), size_t(2));
    if (list.size() != 2) return;
    CHECK_EQ(list[0].name, std::string("deepstarr"));  // by name
    CHECK(list[0].definition.empty());                  // listed without the definition
    CHECK(list[1].conditions == std::vector<std::string>({"K562", "HepG2"}));
    const auto found = p->find_predictor("mpra round 1");
    CHECK(found.has_value());
    if (!found) return;
    const PredictorRecord want = record("mpra round 1");
    CHECK_EQ(found->definition, want.definition);
    CHECK_EQ(found->model_fingerprint, want.model_fingerprint);
    CHECK_EQ(found->table_hash, want.table_hash);
    CHECK_EQ(found->created, want.created);
    CHECK(!p->find_predictor("mpra round 2").has_value());
}

TEST(a_second_predictor_of_the_same_name_is_refused_and_nothing_changes) {
    const std::string path = temp_path("predictors-dup.carbon");
    {
        auto p = Project::open(path);
        p->add_predictor(record("k562"));
        p->checkpoint();
    }
    const std::string before = file_bytes(path);
    {
        auto p = Project::open(path);
        CHECK_THROWS_WITH(p->add_predictor(record("k562")), "already holds a predictor named 'k562'", "choose another name");
        PredictorRecord bad = record("broken");
        bad.definition = "[1, 2]";
        CHECK_THROWS_WITH(p->add_predictor(bad), "predictor 'broken'", "not a JSON object");
        PredictorRecord unnamed = record("");
        CHECK_THROWS_WITH(p->add_predictor(unnamed), "1 to 200 bytes");
        CHECK_EQ(p->count("predictors"), int64_t(1));
    }
    CHECK(file_bytes(path) == before);
}

TEST(recovery_merges_predictors_renaming_a_taken_name) {
    const std::string into_path = temp_path("predictors-into.carbon"), from_path = temp_path("predictors-from.carbon");
    auto into = Project::open(into_path);
    into->add_predictor(record("k562"));
    auto from = Project::open(from_path);
    from->add_predictor(record("k562"));
    from->add_predictor(record("hepg2"));
    const MergeResult m = merge_project(*into, *from);
    CHECK_EQ(m.predictors, size_t(2));
    const auto list = into->list_predictors(true);
    CHECK_EQ(list.size(), size_t(3));
    CHECK(into->find_predictor("k562 (recovered)").has_value());
    CHECK(into->find_predictor("hepg2").has_value());
    const MergeResult again = merge_project(*into, *from);
    CHECK_EQ(again.predictors, size_t(2));
    CHECK(into->find_predictor("k562 (recovered 2)").has_value());
    CHECK(into->find_predictor("hepg2 (recovered)").has_value());
}

TEST(a_schema_6_project_is_read_without_predictors_and_migrated_when_written) {
    const std::string path = temp_path("predictors-v6.carbon");
    {
        auto p = Project::open(path);
        SequenceRecord s;
        s.name = "enhancer";
        s.bases = "ACGTACGTAC";
        p->add_sequence(s);
    }
    sqlite3* db = nullptr;
    CHECK(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE predictors; PRAGMA user_version = 6;", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    const std::string before = file_bytes(path);
    {
        auto p = Project::open(path, OpenOptions{.create = false, .read_only = true});
        CHECK_EQ(p->file_schema_version(), 6);
        CHECK(p->list_predictors().empty());  // an empty view: no predictors table before schema 7
        CHECK(!p->find_predictor("k562").has_value());
        CHECK_EQ(p->count("predictors"), int64_t(0));
    }
    CHECK(file_bytes(path) == before);
    auto p = Project::open(path);
    CHECK_EQ(p->file_schema_version(), schema_version());
    p->add_predictor(record("k562"));
    CHECK(p->find_predictor("k562").has_value());
    CHECK_EQ(p->list_sequences().size(), size_t(1));
}

int main() { return check::run_all(); }
