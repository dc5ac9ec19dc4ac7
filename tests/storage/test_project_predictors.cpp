// Predictors stored in a project (schema 7: PredictorRecord, Project::add_predictor,
// list_predictors, find_predictor): stored whole and read back, names unique (a second of the
// same name refused with the file unchanged), a definition that is not a JSON object refused,
// recovery merging them under a new name where the name is taken, and a project of schema 6
// read without a predictors table. What predictors say of designs (schema 8: DesignRecord's
// objective and predictions, Project::predictions_of_design): stored with the design and read
// back, NaN as NULL, a repeated output refused with nothing of the design stored, merged by
// recovery, and a schema 7 project read without them.
#include <sqlite3.h>

#include <cmath>

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

int64_t generate_run(Project& p) {
    Run r;
    r.kind = "generate";
    r.model_path = "/models/carbon-500m";
    r.backend = "cpu";
    r.engine_version = "0.1.0";
    r.settings = {{"objective", "mingap:K562"}, {"ranked_by", "predictor.json"}};
    return p.begin_run(r);
}

DesignRecord ranked_design(int64_t run_id, const std::string& name, double objective) {
    DesignRecord d;
    d.run_id = run_id;
    d.name = name;
    d.bases = "ACGTACGTAA";
    d.rank = 1;
    d.objective = objective;
    d.predictions = {{"predictor.json", "K562", 1.25, "held-out Pearson r 0.81"}, {"predictor.json", "HepG2", std::nan(""), ""}};
    return d;
}

}  // namespace

TEST(design_predictions_are_stored_with_the_design_and_read_back) {
    const std::string path = temp_path("design-predictions.carbon");
    auto p = Project::open(path);
    const int64_t run = generate_run(*p);
    const int64_t id = p->add_design(ranked_design(run, "design_1", 0.75));
    const auto d = p->design(id);
    CHECK(d.has_value());
    if (d) CHECK_EQ(d->objective, 0.75);
    const std::vector<DesignPrediction> got = p->predictions_of_design(id);
    CHECK_EQ(got.size(), size_t(2));
    if (got.size() == 2) {  // by predictor, then output name
        CHECK_EQ(got[0].output, std::string("HepG2"));
        CHECK(std::isnan(got[0].value));
        CHECK_EQ(got[1].output, std::string("K562"));
        CHECK_EQ(got[1].value, 1.25);
        CHECK_EQ(got[1].held_out, std::string("held-out Pearson r 0.81"));
        CHECK_EQ(got[1].predictor, std::string("predictor.json"));
    }
    CHECK_EQ(p->count("design_predictions"), int64_t(2));
    // A design without an objective reads NaN and has no predictions.
    DesignRecord plain;
    plain.run_id = run;
    plain.name = "plain";
    plain.bases = "ACGT";
    const int64_t pid = p->add_design(plain);
    CHECK(std::isnan(p->design(pid)->objective));
    CHECK(p->predictions_of_design(pid).empty());
    // The same output twice: refused, and nothing of that design is stored.
    DesignRecord twice = ranked_design(run, "design_2", 0.5);
    twice.predictions.push_back(twice.predictions[0]);
    CHECK_THROWS_WITH(p->add_design(twice), "design 'design_2'", "output 'K562' of predictor 'predictor.json' given twice");
    CHECK_EQ(p->list_designs(run).size(), size_t(2));
    CHECK_EQ(p->count("design_predictions"), int64_t(2));
}

TEST(predictions_of_stored_designs_replace_the_predictors_earlier_ones) {
    const std::string path = temp_path("dp-set.carbon");
    auto p = Project::open(path);
    const int64_t run = generate_run(*p);
    DesignRecord d;
    d.run_id = run;
    d.name = "plain";
    d.bases = "ACGTACGT";
    const int64_t a = p->add_design(d), b = p->add_design(d);
    p->set_design_predictions({{a, {"p.json", "K562", 1.0, "r 0.8"}}, {b, {"p.json", "K562", 2.0, "r 0.8"}}});
    p->set_design_predictions({{a, {"p.json", "K562", 3.0, "r 0.8"}}, {a, {"other.json", "K562", 4.0, ""}}});
    const auto got = p->predictions_of_design(a);
    CHECK_EQ(got.size(), size_t(2));
    if (got.size() == 2) {
        CHECK_EQ(got[0].predictor, std::string("other.json"));
        CHECK_EQ(got[1].value, 3.0);  // replaced, not added
    }
    CHECK_EQ(p->predictions_of_design(b).size(), size_t(1));
    // An unknown design: refused, and nothing of the batch is written.
    CHECK_THROWS_WITH(p->set_design_predictions({{b, {"p.json", "HepG2", 5.0, ""}}, {999, {"p.json", "K562", 1.0, ""}}}),
                      "no design with id 999");
    CHECK_EQ(p->predictions_of_design(b).size(), size_t(1));
}

TEST(recovery_merges_design_predictions) {
    const std::string into_path = temp_path("dp-into.carbon"), from_path = temp_path("dp-from.carbon");
    auto into = Project::open(into_path);
    auto from = Project::open(from_path);
    from->add_design(ranked_design(generate_run(*from), "design_1", 2.5));
    const MergeResult m = merge_project(*into, *from);
    CHECK_EQ(m.designs, size_t(1));
    const auto designs = into->list_designs();
    CHECK_EQ(designs.size(), size_t(1));
    if (!designs.empty()) {
        CHECK_EQ(designs[0].objective, 2.5);
        CHECK_EQ(into->predictions_of_design(designs[0].id).size(), size_t(2));
    }
}

TEST(a_schema_7_project_is_read_without_design_predictions) {
    const std::string path = temp_path("dp-v7.carbon");
    {
        auto p = Project::open(path);
        DesignRecord d;
        d.run_id = generate_run(*p);
        d.name = "old";
        d.bases = "ACGTAC";
        p->add_design(d);
    }
    sqlite3* db = nullptr;
    CHECK(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs; DROP TABLE design_predictions; ALTER TABLE designs DROP COLUMN objective; PRAGMA user_version = 7;",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    const std::string before = file_bytes(path);
    {
        auto p = Project::open(path, OpenOptions{.create = false, .read_only = true});
        CHECK_EQ(p->file_schema_version(), 7);
        const auto designs = p->list_designs();
        CHECK_EQ(designs.size(), size_t(1));
        if (!designs.empty()) {
            CHECK(std::isnan(designs[0].objective));
            CHECK(p->predictions_of_design(designs[0].id).empty());
        }
        CHECK_EQ(p->count("design_predictions"), int64_t(0));
    }
    CHECK(file_bytes(path) == before);
    auto p = Project::open(path);
    CHECK_EQ(p->file_schema_version(), schema_version());
    const int64_t id = p->add_design(ranked_design(p->list_runs()[0].id, "new", 1.0));
    CHECK_EQ(p->predictions_of_design(id).size(), size_t(2));
}

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
    CHECK(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs; DROP TABLE design_predictions; ALTER TABLE designs DROP COLUMN objective; DROP TABLE predictors; PRAGMA user_version = 6;", nullptr, nullptr, nullptr) == SQLITE_OK);
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
