// GenBank / EMBL entries in a project: import stores every record with its feature table in one
// transaction (a file with a malformed record stores nothing, and an existing project is left as
// it was); export of a stored sequence as GenBank reads back to the same sequence and features
// (import -> export -> import equal), on the test record and, where the emboss-test package is
// installed, on every GenBank and EMBL release entry it ships; formatted locations parse back to
// the same parts; a recovery merge carries the features; stored locations must fit their sequence.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "carbon/storage/flatfile.h"
#include "carbon/storage/formats.h"
#include "carbon/storage/recovery.h"
#include "carbon/support/common.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon::storage;
using storage_test::temp_path;

namespace {

const std::string kData = CARBON_STORAGE_TEST_DATA;

std::vector<std::string> release_entries() {
    std::vector<std::string> files;
    // The release division files: GenBank's *.seq, EMBL's *.dat (condiv.dat: a CON record, no sequence).
    for (const auto& [dir, ext] : {std::pair{"/usr/share/EMBOSS/test/genbank", ".seq"}, std::pair{"/usr/share/EMBOSS/test/embl", ".dat"}}) {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
            const std::string p = e.path().string();
            if (p.ends_with(ext) && !p.ends_with("condiv.dat")) files.push_back(p);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// Imports `file`, exports every sequence it gave as GenBank, imports that into a second project
// and checks sequence, name, description and features equal; returns the features compared.
size_t round_trip(const std::string& file, const std::string& tag) {
    const std::string a = temp_path(tag + "-a.carbon"), b = temp_path(tag + "-b.carbon"), gb = temp_path(tag + ".gb");
    auto pa = Project::open(a);
    const FlatImportResult r = import_flat_file(*pa, file);
    auto pb = Project::open(b);
    size_t features = 0;
    for (int64_t id : r.sequence_ids) {
        {
            std::ofstream out(gb);
            export_genbank_sequence(*pa, out, id);
        }
        const FlatImportResult back = import_flat_file(*pb, gb);
        CHECK_EQ(back.sequence_ids.size(), size_t(1));
        const auto s0 = pa->sequence(id), s1 = pb->sequence(back.sequence_ids[0]);
        CHECK(s0->bases == s1->bases);
        CHECK_EQ(s0->name, s1->name);
        CHECK_EQ(s0->description, s1->description);
        EntryHeader h1 = s1->header;
        if (s0->header.date.empty()) h1.date.clear();  // an undated entry goes out with the date it was stored
        if (!(s0->header == h1)) {  // the entry's header goes out as it came in
            std::fprintf(stderr, "  %s %s header: %s -> %s\n", file.c_str(), s0->name.c_str(), entry_header_json(s0->header).c_str(),
                         entry_header_json(s1->header).c_str());
            CHECK(false);
        }
        auto f0 = pa->features_of_sequence(id), f1 = pb->features_of_sequence(back.sequence_ids[0]);
        CHECK_EQ(f0.size(), f1.size());
        for (size_t i = 0; i < f0.size() && i < f1.size(); ++i) {
            f0[i].id = f1[i].id = 0;
            f0[i].sequence_id = f1[i].sequence_id = 0;
            if (!(f0[i] == f1[i])) {
                std::fprintf(stderr, "  %s %s feature %zu: %s %s -> %s %s\n", file.c_str(), s0->name.c_str(), i, f0[i].key.c_str(),
                             f0[i].location.c_str(), f1[i].key.c_str(), f1[i].location.c_str());
                CHECK(false);
                break;
            }
            // The location written from the parts reads back to the same parts.
            const auto parts = parse_insdc_location(f0[i].location, int64_t(s0->bases.size()), "test").parts;
            if (!parts.empty()) CHECK(parse_insdc_location(format_insdc_location(parts), int64_t(s0->bases.size()), "test").parts == parts);
        }
        features += f0.size();
    }
    return features;
}

}  // namespace

TEST(genbank_export_reads_back_to_the_same_features) {
    CHECK_EQ(round_trip(kData + "/flatfile/ptest.gb", "ptest"), size_t(6));
    CHECK_EQ(round_trip(kData + "/flatfile/ptest.embl", "ptest-embl"), size_t(6));
}

// The header fields of a GenBank entry are kept and written back: LOCUS molecule, topology,
// division and date, ACCESSION, VERSION, KEYWORDS, SOURCE, ORGANISM and its lineage; a sequence
// edited since its import is dated by its change; a project whose stored header is not what this
// program writes is refused by name.
TEST(genbank_export_keeps_the_entry_header) {
    CHECK_EQ(round_trip(kData + "/flatfile/reporter_construct.gb", "reporter"), size_t(16));
    const std::string path = temp_path("header.carbon");
    auto p = Project::open(path);
    const int64_t id = import_flat_file(*p, kData + "/flatfile/reporter_construct.gb").sequence_ids.at(0);
    const EntryHeader h = p->sequence(id)->header;
    CHECK_EQ(h.molecule, std::string("DNA"));
    CHECK_EQ(h.topology, std::string("circular"));
    CHECK_EQ(h.division, std::string("SYN"));
    CHECK_EQ(h.date, std::string("12-MAR-2024"));
    CHECK_EQ(h.accession, std::string("CS000029"));
    CHECK_EQ(h.version, std::string("CS000029.2"));
    CHECK_EQ(h.keywords, std::string("reporter; MPRA"));
    CHECK_EQ(h.source, std::string("synthetic DNA construct"));
    CHECK_EQ(h.organism, std::string("synthetic DNA construct"));
    CHECK_EQ(h.lineage, std::string("other sequences; artificial sequences"));
    auto exported = [&] {
        std::ostringstream out;
        export_genbank_sequence(*p, out, id);
        return out.str();
    };
    const std::string gb = exported();
    CHECK(gb.starts_with("LOCUS       pCS-Reporter            3120 bp    DNA     circular SYN 12-MAR-2024\n"));
    CHECK(gb.find("\nACCESSION   CS000029\nVERSION     CS000029.2\nKEYWORDS    reporter; MPRA.\nSOURCE      synthetic DNA construct\n"
                  "  ORGANISM  synthetic DNA construct\n            other sequences; artificial sequences.\n") != std::string::npos);
    // Edited since: the date of the change, the rest kept.
    std::string bases = p->sequence(id)->bases;
    bases[10] = bases[10] == 'A' ? 'C' : 'A';
    p->update_sequence(id, bases, {});
    const std::string edited = exported();
    CHECK(edited.find("circular SYN 12-MAR-2024") == std::string::npos);
    CHECK(edited.find("circular SYN ") != std::string::npos);
    CHECK(edited.find("VERSION     CS000029.2") != std::string::npos);
    // A header that is not an object of text is refused, naming the sequence; a field GenBank
    // could not write (a division of seven letters, a line break) is not used.
    p.reset();
    auto raw = [&](const std::string& sql) {
        auto q = Project::open(path);
        char* err = nullptr;
        sqlite3_exec(q->handle(), sql.c_str(), nullptr, nullptr, &err);
        CHECK(err == nullptr);
        sqlite3_free(err);
    };
    raw("UPDATE sequences SET header = '[1, 2]'");
    p = Project::open(path);
    CHECK_THROWS_WITH(p->sequence(id), "sequence 1", "not a JSON object");
    p.reset();
    raw("UPDATE sequences SET header = '{\"division\": 7}'");
    p = Project::open(path);
    CHECK_THROWS_WITH(p->list_sequences(), "sequence 1", "division is not text");
    p.reset();
    raw("UPDATE sequences SET header = json_object('division', 'SYNTHETIC', 'organism', 'a' || char(10) || 'LOCUS x', 'version', 'X.1')");
    p = Project::open(path);
    const EntryHeader odd = p->sequence(id)->header;
    CHECK(odd.division.empty() && odd.organism.empty());
    CHECK_EQ(odd.version, std::string("X.1"));
    CHECK(exported().find("\nLOCUS x") == std::string::npos);
}

TEST(release_entries_round_trip) {
    const auto files = release_entries();
    if (files.empty()) SKIP("the emboss-test package's GenBank and EMBL entries are not installed (tests/setup-test-deps.sh installs them)");
    size_t features = 0;
    for (size_t i = 0; i < files.size(); ++i) features += round_trip(files[i], "release-" + std::to_string(i));
    std::fprintf(stderr, "  %zu files, %zu features: import -> export -> import equal\n", files.size(), features);
    CHECK(features > 3000);
}

TEST(a_failing_file_stores_nothing) {
    const std::string path = temp_path("fail.carbon");
    auto p = Project::open(path);
    import_flat_file(*p, kData + "/flatfile/ptest.gb");
    // Two records, the second with a location past its end: neither is stored.
    std::string text = storage_test::file_bytes(kData + "/flatfile/ptest.gb");
    std::string bad = text;
    bad.replace(bad.find("<5..40"), 6, "<5..400");
    const std::string two = temp_path("two.gb");
    std::ofstream(two) << text << bad;
    CHECK_THROWS_WITH(import_flat_file(*p, two), "two.gb:44: feature promoter", "past the end of the 120 bp");
    CHECK_EQ(p->count("sequences"), int64_t(1));
    CHECK_EQ(p->count("features"), int64_t(6));
}

TEST(stored_locations_must_fit_and_recovery_carries_features) {
    auto p = Project::open(temp_path("fit.carbon"));
    const FlatImportResult r = import_flat_file(*p, kData + "/flatfile/ptest.gb");
    auto f = p->features_of_sequence(r.sequence_ids[0]);
    CHECK_EQ(f[6 - 1].key, std::string("primer_bind"));
    CHECK(!f[2].qualifiers[2].second.has_value());  // /pseudo: a flag
    f[0].location = "1..121";
    CHECK_THROWS_WITH(p->set_features(r.sequence_ids[0], f), "feature 1 (source)", "past the end of the 120 bp");
    CHECK_EQ(p->features_of_sequence(r.sequence_ids[0]).size(), size_t(6));  // unchanged
    // An edit that shortens the sequence passes the moved features with it.
    f[0].location = "1..100";
    f.resize(1);
    p->update_sequence(r.sequence_ids[0], std::string(100, 'A'), {}, &f);
    CHECK_EQ(p->features_of_sequence(r.sequence_ids[0]).size(), size_t(1));
    auto into = Project::open(temp_path("into.carbon"));
    const MergeResult m = merge_project(*into, *p);
    CHECK_EQ(m.sequences_added, size_t(1));
    CHECK_EQ(into->count("features"), int64_t(1));
}

CHECK_MAIN()
