// Project schema migrations. Append a new step for every change; never edit a released one, so
// that any older file replays the same path. Step i moves user_version from i to i + 1.
#include "schema.h"

#include <sqlite3.h>

#include <string>

#include "carbon/storage/project.h"

#include "sqlite_stmt.h"

namespace carbon::storage::detail {

namespace {

const char* const kMigrations[] = {
    // 0 -> 1: the tables.
    R"sql(
CREATE TABLE project_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sequences(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  bases TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  origin TEXT NOT NULL DEFAULT '',
  created TEXT NOT NULL,
  modified TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  model_path TEXT NOT NULL DEFAULT '',
  model_config_hash TEXT NOT NULL DEFAULT '',
  tokenizer_hash TEXT NOT NULL DEFAULT '',
  backend TEXT NOT NULL DEFAULT '',
  seed INTEGER NOT NULL DEFAULT 0,
  engine_version TEXT NOT NULL DEFAULT '',
  started TEXT NOT NULL,
  finished TEXT NOT NULL DEFAULT '',
  bases_per_second REAL NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'running');
CREATE TABLE run_settings(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(run_id, key)) WITHOUT ROWID;
CREATE TABLE designs(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  sequence_id INTEGER REFERENCES sequences(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  bases TEXT NOT NULL,
  design_logp REAL,
  ranking_logp REAL,
  rank INTEGER NOT NULL DEFAULT 0,
  stream_index INTEGER NOT NULL DEFAULT 0,
  backtracks INTEGER NOT NULL DEFAULT 0,
  created TEXT NOT NULL);
CREATE TABLE regions(
  id INTEGER PRIMARY KEY,
  sequence_id INTEGER REFERENCES sequences(id) ON DELETE CASCADE,
  design_id INTEGER REFERENCES designs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK(kind IN ('design', 'pinned', 'annotation')),
  start INTEGER NOT NULL,
  "end" INTEGER NOT NULL,
  template TEXT NOT NULL DEFAULT '',
  label TEXT NOT NULL DEFAULT '',
  CHECK((sequence_id IS NULL) <> (design_id IS NULL)),
  CHECK(start >= 0 AND "end" >= start));
CREATE TABLE tracks(
  id INTEGER PRIMARY KEY,
  sequence_id INTEGER REFERENCES sequences(id) ON DELETE CASCADE,
  design_id INTEGER REFERENCES designs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  dtype TEXT NOT NULL CHECK(dtype IN ('f32', 'f16')),
  length INTEGER NOT NULL CHECK(length >= 0),
  width INTEGER NOT NULL CHECK(width >= 1),
  data BLOB NOT NULL,
  CHECK((sequence_id IS NULL) <> (design_id IS NULL)),
  CHECK(length(data) = length * width * (CASE dtype WHEN 'f32' THEN 4 ELSE 2 END)));
CREATE TABLE variants(
  id INTEGER PRIMARY KEY,
  sequence_id INTEGER NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  position INTEGER NOT NULL CHECK(position >= 0),
  ref TEXT NOT NULL,
  alt TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  site_log_odds REAL,
  window_start INTEGER,
  window_end INTEGER,
  window_delta REAL,
  window_delta_rc REAL,
  ism_score REAL);
)sql",
    // 1 -> 2: indexes for the lookups the GUI makes (designs of a run by rank, tracks and
    // regions of a design, variants by position). Kept apart to exercise a real migration.
    R"sql(
CREATE INDEX designs_by_run ON designs(run_id, rank);
CREATE INDEX tracks_by_design ON tracks(design_id) WHERE design_id IS NOT NULL;
CREATE INDEX tracks_by_sequence ON tracks(sequence_id) WHERE sequence_id IS NOT NULL;
CREATE INDEX regions_by_design ON regions(design_id) WHERE design_id IS NOT NULL;
CREATE INDEX regions_by_sequence ON regions(sequence_id) WHERE sequence_id IS NOT NULL;
CREATE INDEX variants_by_sequence ON variants(sequence_id, position);
CREATE INDEX sequences_by_name ON sequences(name);
)sql",
    // 2 -> 3: the biologist's verdict on a design (the designs table's star / discard), and the
    // lowest per-base log p of its "logp" track (NULL without one), so that a project's designs
    // can be listed and filtered by it without reading every track (designs stored before this
    // step keep NULL: unknown, not recomputed).
    R"sql(
ALTER TABLE designs ADD COLUMN flag TEXT NOT NULL DEFAULT '' CHECK(flag IN ('', 'starred', 'discarded'));
ALTER TABLE designs ADD COLUMN min_base_logp REAL;
)sql",
    // 3 -> 4: whole-VCF variant effect results (`carbon-cli vep --project`, the application's
    // Score Variants): one row per (variant, alternative) of a "vep" run, in the VCF's order
    // (row_index), as the TSV holds them; sequence_id when the run scored the project's own
    // sequences. A genome-scale run is millions of rows, hence no rowid and no per-row ids.
    R"sql(
CREATE TABLE vep_results(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL CHECK(row_index >= 0),
  chrom TEXT NOT NULL,
  pos INTEGER NOT NULL CHECK(pos >= 1),
  vcf_id TEXT NOT NULL,
  ref TEXT NOT NULL,
  alt TEXT NOT NULL,
  status TEXT NOT NULL,
  window_start INTEGER,
  window_end INTEGER,
  site_log_odds REAL,
  window_delta REAL,
  window_delta_rc REAL,
  window_delta_mean REAL,
  sequence_id INTEGER REFERENCES sequences(id) ON DELETE SET NULL,
  PRIMARY KEY(run_id, row_index)) WITHOUT ROWID;
CREATE INDEX vep_results_by_sequence ON vep_results(sequence_id) WHERE sequence_id IS NOT NULL;
)sql",
    // 4 -> 5: the feature tables of imported GenBank / EMBL entries (flatfile.h): one row per
    // feature in the entry's order, its INSDC location over the sequence as stored (rewritten
    // when an edit moves it), its qualifiers as JSON [[name, value or null], ...]; and the
    // specificity of a design made with tag guidance (NULL for the others).
    R"sql(
CREATE TABLE features(
  id INTEGER PRIMARY KEY,
  sequence_id INTEGER NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  key TEXT NOT NULL,
  location TEXT NOT NULL,
  qualifiers TEXT NOT NULL DEFAULT '[]' CHECK(json_valid(qualifiers)));
CREATE INDEX features_by_sequence ON features(sequence_id, ord);
ALTER TABLE designs ADD COLUMN specificity REAL;
)sql",
    // 5 -> 6: an imported GenBank / EMBL entry's header (entry_header.h) as a JSON object, so that
    // GenBank export writes its accession, version, organism, division and date back.
    R"sql(
ALTER TABLE sequences ADD COLUMN header TEXT NOT NULL DEFAULT '{}' CHECK(json_valid(header));
)sql",
    // 6 -> 7: activity predictors fitted to the user's measurements (carbon/predict/probe.h), by
    // name: the model they were fitted on (path and fingerprint), the measurement table's path and
    // hash, the conditions they predict (a JSON list, for listing) and the whole fit with its
    // provenance and held-out figures as the predictor file's JSON (`definition`).
    R"sql(
CREATE TABLE predictors(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE CHECK(length(name) BETWEEN 1 AND 200),
  kind TEXT NOT NULL CHECK(kind IN ('fitted')),
  created TEXT NOT NULL,
  model_path TEXT NOT NULL,
  model_fingerprint TEXT NOT NULL,
  table_path TEXT NOT NULL DEFAULT '',
  table_hash TEXT NOT NULL DEFAULT '',
  conditions TEXT NOT NULL CHECK(json_valid(conditions)),
  definition TEXT NOT NULL CHECK(json_valid(definition)));
)sql",
    // 7 -> 8: what an activity predictor says of a design (generate-and-rank, evolution): one row
    // per design, predictor and output, with the predictor's held-out accuracy beside the value;
    // and the design's objective (the run's settings say which), NULL where none was computed.
    R"sql(
ALTER TABLE designs ADD COLUMN objective REAL;
CREATE TABLE design_predictions(
  design_id INTEGER NOT NULL REFERENCES designs(id) ON DELETE CASCADE,
  predictor TEXT NOT NULL,
  output TEXT NOT NULL,
  value REAL,
  held_out TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(design_id, predictor, output)) WITHOUT ROWID;
)sql",
    // 8 -> 9: constructs by name (the upstream and downstream sequences designs are synthesised
    // between: adapters, primers, promoter, overhangs; a run made in one records its bases in its
    // settings), and selections of designs by name (the Designs table's choice, carbon-cli select
    // --save-as), in their order, with how they were made as JSON.
    R"sql(
CREATE TABLE constructs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE CHECK(length(name) BETWEEN 1 AND 200),
  upstream TEXT NOT NULL,
  downstream TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created TEXT NOT NULL);
CREATE TABLE selections(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE CHECK(length(name) BETWEEN 1 AND 200),
  created TEXT NOT NULL,
  settings TEXT NOT NULL DEFAULT '{}' CHECK(json_valid(settings)));
CREATE TABLE selection_designs(
  selection_id INTEGER NOT NULL REFERENCES selections(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL CHECK(ord >= 0),
  design_id INTEGER NOT NULL REFERENCES designs(id) ON DELETE CASCADE,
  PRIMARY KEY(selection_id, ord)) WITHOUT ROWID;
)sql",
};

void exec(sqlite3* db, const std::string& sql, const std::string& what) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        sqlite3_free(err);
        const std::string msg = failure_text(db);
        const char* file = sqlite3_db_filename(db, "main");
        throw Error(std::string(file && *file ? file : "project") + ": " + what + ": " + msg);
    }
}

int user_version(sqlite3* db) {
    Stmt s(db, "PRAGMA user_version");
    return s.step() ? int(s.i64(0)) : 0;
}

}  // namespace

int newest_schema_version() { return int(sizeof kMigrations / sizeof kMigrations[0]); }

SchemaSignature read_signature(sqlite3* db) {
    SchemaSignature sig;
    Stmt tables(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    while (tables.step()) sig[tables.text(0)];
    for (auto& [table, columns] : sig) {
        Stmt cols(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
        cols.bind(1, table);
        while (cols.step()) columns.push_back(cols.text(0));
    }
    return sig;
}

ReplayedSchema::ReplayedSchema(int version) {
    if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr) != SQLITE_OK) {
        sqlite3_close_v2(db_);
        throw Error("cannot open an in-memory database: out of memory");
    }
    try {
        for (int step = 0; step < version && step < newest_schema_version(); ++step) exec(db_, kMigrations[step], "schema replay");
    } catch (...) {
        sqlite3_close_v2(db_);
        throw;
    }
}

ReplayedSchema::~ReplayedSchema() { sqlite3_close_v2(db_); }

SchemaSignature schema_signature(int version) {
    // Replaying the migrations into a scratch database keeps the signature in step with them.
    const ReplayedSchema replay(version);
    return read_signature(replay.db());
}

void create_read_compat_views(sqlite3* db, int version) {
    // Every column a migration adds gets its default here, for files older than that migration.
    // TEMP objects live in the connection's own temporary database, never in the file, and are
    // found before the file's own tables of the same name.
    if (version < 3)
        exec(db, "CREATE TEMP VIEW designs AS SELECT *, '' AS flag, NULL AS min_base_logp, NULL AS specificity, NULL AS objective FROM main.designs",
             "reading a schema " + std::to_string(version) + " project");
    else if (version < 5)
        exec(db, "CREATE TEMP VIEW designs AS SELECT *, NULL AS specificity, NULL AS objective FROM main.designs",
             "reading a schema " + std::to_string(version) + " project");
    else if (version < 8)
        exec(db, "CREATE TEMP VIEW designs AS SELECT *, NULL AS objective FROM main.designs",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 8)
        exec(db,
             "CREATE TEMP VIEW design_predictions(design_id, predictor, output, value, held_out) AS SELECT 0, '', '', NULL, '' WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 4)
        exec(db,
             "CREATE TEMP VIEW vep_results(run_id, row_index, chrom, pos, vcf_id, ref, alt, status, window_start, window_end, "
             "site_log_odds, window_delta, window_delta_rc, window_delta_mean, sequence_id) AS "
             "SELECT 0, 0, '', 1, '', '', '', '', NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 6)
        exec(db, "CREATE TEMP VIEW sequences AS SELECT *, '{}' AS header FROM main.sequences",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 5)
        exec(db, "CREATE TEMP VIEW features(id, sequence_id, ord, key, location, qualifiers) AS SELECT 0, 0, 0, '', '', '[]' WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 7)
        exec(db,
             "CREATE TEMP VIEW predictors(id, name, kind, created, model_path, model_fingerprint, table_path, table_hash, conditions, "
             "definition) AS SELECT 0, '', 'fitted', '', '', '', '', '', '[]', '{}' WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
    if (version < 9) {
        exec(db,
             "CREATE TEMP VIEW constructs(id, name, upstream, downstream, description, created) AS SELECT 0, '', '', '', '', '' WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
        exec(db, "CREATE TEMP VIEW selections(id, name, created, settings) AS SELECT 0, '', '', '{}' WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
        exec(db, "CREATE TEMP VIEW selection_designs(selection_id, ord, design_id) AS SELECT 0, 0, 0 WHERE 0",
             "reading a schema " + std::to_string(version) + " project");
    }
}

void migrate(sqlite3* db, int up_to) {
    const int v = user_version(db);
    const char* file = sqlite3_db_filename(db, "main");
    if (v < 0) throw Error(std::string(file ? file : "project") + ": project schema version " + std::to_string(v) + " is not a version");
    if (v > newest_schema_version())
        throw Error(std::string(file ? file : "project") + ": project schema version " + std::to_string(v) +
                    " is newer than this Carbon Studio understands (" + std::to_string(newest_schema_version()) +
                    "); open it with a newer version");
    for (int step = v; step < up_to && step < newest_schema_version(); ++step) {
        // IMMEDIATE: two processes opening an old file at once must not both migrate it.
        exec(db, "BEGIN IMMEDIATE", "cannot start the schema migration");
        try {
            if (user_version(db) != step) {  // another process migrated it meanwhile
                exec(db, "COMMIT", "migration");
                continue;
            }
            if (step == 0) {
                // A new project: checked again under the write lock, so that nothing is ever
                // created inside a database that holds anything already.
                Stmt any(db, "SELECT count(*) FROM sqlite_schema");
                if (!any.step() || any.i64(0) != 0)
                    throw Error(std::string(file ? file : "project") +
                                ": not an empty file: it already holds SQLite tables; nothing was written to it");
                exec(db, "PRAGMA application_id = " + std::to_string(project_application_id), "marking the new project");
            }
            exec(db, kMigrations[step], "schema migration " + std::to_string(step) + " -> " + std::to_string(step + 1));
            exec(db, "PRAGMA user_version = " + std::to_string(step + 1), "schema migration");
            exec(db, "COMMIT", "schema migration commit");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

}  // namespace carbon::storage::detail
