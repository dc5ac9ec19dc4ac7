// Constructs and selections stored in a project (schema 9: ConstructRecord, SelectionRecord):
// stored and read back by name, parts upper-cased, names unique (a second refused with the file
// unchanged), parts other than A/C/G/T refused with the part and position, selections in their
// order and replaced whole, a design deleted from under a selection, a run's construct read from
// its settings (construct_settings / run_construct) and used by order_constructs, and a schema 8
// project read without either table.
#include <sqlite3.h>

#include "carbon/storage/order_files.h"
#include "carbon/storage/project.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::file_bytes;
using storage_test::temp_path;

namespace {

ConstructRecord construct(const std::string& name, const std::string& up, const std::string& down) {
    ConstructRecord c;
    c.name = name;
    c.upstream = up;
    c.downstream = down;
    c.description = "MPRA adapters";
    return c;
}

// A run (with `settings`) and `n` designs of it; their ids.
std::vector<int64_t> designs(Project& p, int n, std::vector<std::pair<std::string, std::string>> settings = {}) {
    Run r;
    r.kind = "generate";
    r.settings = std::move(settings);
    const int64_t run = p.begin_run(r);
    std::vector<int64_t> ids;
    for (int i = 0; i < n; ++i) {
        DesignRecord d;
        d.run_id = run;
        d.name = "d" + std::to_string(i);
        d.bases = std::string("ACGT").substr(size_t(i) % 4, 1) + "CCGGAT";
        d.rank = i + 1;
        ids.push_back(p.add_design(d));
    }
    p.finish_run(run, "finished", 1.0);
    return ids;
}

int notes_with(const OrderSelection& s, const std::string& text) {
    int n = 0;
    for (const std::string& note : s.notes) n += note.find(text) != std::string::npos;
    return n;
}

}  // namespace

TEST(constructs_are_stored_upper_cased_and_read_back_by_name) {
    const std::string path = temp_path("constructs.carbon");
    auto p = Project::open(path);
    CHECK(p->empty());
    p->add_construct(construct("mpra", "acgtAC", "GGcc"));
    p->add_construct(construct("golden gate", "", "GGTCTCA"));
    CHECK(!p->empty());
    const auto all = p->list_constructs();
    CHECK_EQ(all.size(), size_t(2));
    CHECK_EQ(all[0].name, std::string("golden gate"));  // by name
    const auto c = p->find_construct("mpra");
    CHECK(c.has_value());
    CHECK_EQ(c->upstream, std::string("ACGTAC"));
    CHECK_EQ(c->downstream, std::string("GGCC"));
    CHECK_EQ(c->description, std::string("MPRA adapters"));
    CHECK(!c->created.empty());
    CHECK(!p->find_construct("MPRA").has_value());
    p->remove_construct("golden gate");
    CHECK_EQ(p->list_constructs().size(), size_t(1));
    CHECK_THROWS_WITH(p->remove_construct("golden gate"), "no construct named 'golden gate'");
}

TEST(bad_constructs_are_refused_and_nothing_changes) {
    const std::string path = temp_path("constructs-bad.carbon");
    auto p = Project::open(path);
    p->add_construct(construct("mpra", "ACGT", "TTTT"));
    p->checkpoint();
    const std::string before = file_bytes(path);
    CHECK_THROWS_WITH(p->add_construct(construct("mpra", "AC", "")), "already holds a construct named 'mpra'", "choose another name");
    CHECK_THROWS_WITH(p->add_construct(construct("n", "ACGTN", "")), "construct 'n'", "upstream flank: position 5 is 'N'");
    CHECK_THROWS_WITH(p->add_construct(construct("r", "", "AC-T")), "construct 'r'", "downstream flank: position 3 is '-'");
    CHECK_THROWS_WITH(p->add_construct(construct("e", "", "")), "neither an upstream nor a downstream");
    CHECK_THROWS_WITH(p->add_construct(construct("long", std::string(kMaxConstructPart + 1, 'A'), "")), "construct 'long'",
                      "its upstream sequence is 10001 bp", "at most 10000 bp");
    CHECK_THROWS_WITH(p->add_construct(construct("", "A", "")), "1 to 200 bytes");
    CHECK_THROWS_WITH(p->add_construct(construct(std::string(201, 'x'), "A", "")), "1 to 200 bytes");
    p->checkpoint();
    CHECK(file_bytes(path) == before);
    CHECK_EQ(p->list_constructs().size(), size_t(1));
}

TEST(selections_keep_their_order_and_are_replaced_whole) {
    const std::string path = temp_path("selections.carbon");
    auto p = Project::open(path);
    const auto ids = designs(*p, 6);
    SelectionRecord s;
    s.name = "order 1";
    s.settings = R"({"method": "greedy max-min", "count": 3})";
    s.design_ids = {ids[4], ids[0], ids[2]};
    const int64_t id = p->save_selection(s);
    CHECK(id > 0);
    auto got = p->find_selection("order 1");
    CHECK(got.has_value());
    CHECK(got->design_ids == s.design_ids);
    CHECK(got->settings.find("greedy max-min") != std::string::npos);
    CHECK_THROWS_WITH(p->save_selection(s), "selection 'order 1' exists already", "replace it");
    s.design_ids = {ids[1]};
    p->save_selection(s, true);
    CHECK(p->find_selection("order 1")->design_ids == std::vector<int64_t>{ids[1]});
    CHECK_EQ(p->count("selection_designs"), int64_t(1));
    SelectionRecord bad = s;
    bad.name = "bad";
    bad.design_ids = {ids[0], 999};
    CHECK_THROWS_WITH(p->save_selection(bad), "selection 'bad'", "no design with id 999");
    bad.design_ids = {ids[0], ids[0]};
    CHECK_THROWS_WITH(p->save_selection(bad), "names design", "twice");
    bad.design_ids = {};
    CHECK_THROWS_WITH(p->save_selection(bad), "holds no designs");
    bad.design_ids = {ids[0]};
    bad.settings = "[1]";
    CHECK_THROWS_WITH(p->save_selection(bad), "not a JSON object");
    CHECK(!p->find_selection("bad").has_value());
    // A design deleted from under a selection leaves it (foreign key cascade).
    CHECK(sqlite3_exec(p->handle(), ("DELETE FROM designs WHERE id = " + std::to_string(ids[1])).c_str(), nullptr, nullptr, nullptr) ==
          SQLITE_OK);
    CHECK(p->find_selection("order 1")->design_ids.empty());
    p->remove_selection("order 1");
    CHECK(p->list_selections().empty());
    CHECK_THROWS_WITH(p->remove_selection("order 1"), "no selection named 'order 1'");
}

TEST(orders_use_each_runs_construct_unless_flanks_are_given) {
    const std::string path = temp_path("construct-orders.carbon");
    auto p = Project::open(path);
    p->add_construct(construct("mpra", "AAAC", "GTTT"));
    const auto made = designs(*p, 2, construct_settings(*p->find_construct("mpra")));
    const auto bare = designs(*p, 1);
    p->remove_construct("mpra");  // the run keeps its bases
    const auto run = p->run(p->design(made[0])->run_id);
    const auto c = run_construct(*run);
    CHECK(c.has_value());
    CHECK_EQ(c->name, std::string("mpra"));
    CHECK_EQ(c->upstream, std::string("AAAC"));
    CHECK(!run_construct(*p->run(p->design(bare[0])->run_id)).has_value());

    OrderSelection own = order_constructs(*p, {made[0], bare[0], made[1]}, std::nullopt);
    CHECK_EQ(own.constructs.size(), size_t(3));
    CHECK_EQ(own.constructs[0].upstream, std::string("AAAC"));
    CHECK_EQ(own.constructs[0].downstream, std::string("GTTT"));
    CHECK(own.constructs[1].upstream.empty() && own.constructs[1].downstream.empty());
    CHECK_EQ(own.constructs[2].downstream, std::string("GTTT"));
    CHECK_EQ(notes_with(own, "was made in construct 'mpra' (4 + 4 bp); its designs are ordered in it"), 1);  // once per run

    OrderSelection given = order_constructs(*p, {made[0], bare[0]}, ConstructFlanks{"cc", "gg"});
    CHECK_EQ(given.constructs[0].upstream, std::string("CC"));
    CHECK_EQ(given.constructs[1].downstream, std::string("GG"));
    CHECK_EQ(notes_with(given, "was made in construct 'mpra' (4 + 4 bp); its designs are ordered between the flanks given instead"), 1);
}

TEST(a_schema_8_project_is_read_without_constructs_or_selections) {
    const std::string path = temp_path("schema8.carbon");
    {
        auto p = Project::open(path);
        designs(*p, 1);
    }
    sqlite3* db = nullptr;
    CHECK(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs; "
                           "PRAGMA user_version = 8;",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    const std::string before = file_bytes(path);
    {
        auto p = Project::open(path, OpenOptions{.create = false, .read_only = true});
        CHECK_EQ(p->file_schema_version(), 8);
        CHECK(p->list_constructs().empty());
        CHECK(p->list_selections().empty());
        CHECK(!p->find_selection("x").has_value());
    }
    CHECK(file_bytes(path) == before);
    auto p = Project::open(path);
    CHECK_EQ(p->file_schema_version(), schema_version());
    p->add_construct(construct("mpra", "A", "C"));
    CHECK_EQ(p->list_constructs().size(), size_t(1));
}

int main() { return check::run_all(); }
