// A Carbon Studio project: one SQLite file (SQLite as an application file format) holding
// sequences, regions, generation/scoring runs with every setting, designs, per-base tracks and
// variant results. Positions are 0-based, spans half-open [start, end).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "carbon/storage/entry_header.h"

#include "carbon/support/common.h"

struct sqlite3;

namespace carbon::storage {

// The schema version this build writes (PRAGMA user_version); older files are migrated forward
// on open, newer ones are refused.
int schema_version();

// The SQLite application_id of a Carbon Studio project: 'CRBN' read as a big-endian 32-bit
// number. Set when a project is created; open() checks it before anything is written, so that
// no other program's database is ever changed (see open() for files of earlier versions).
constexpr int32_t project_application_id = 0x4352424E;

struct SequenceRecord {
    int64_t id = 0;
    std::string name;
    std::string bases;        // as imported (soft-masked lowercase and IUPAC codes kept)
    std::string description;  // rest of the FASTA header, free text
    std::string origin;       // where it came from: "file.fa:12", "typed", "design 7"
    std::string created, modified;  // ISO 8601 UTC, set by the project
    int64_t length = 0;       // filled by reads (bases may be left empty by list_sequences)
    EntryHeader header;       // an imported GenBank / EMBL entry's header; empty for the others
};

// A feature of an imported GenBank / EMBL entry (flatfile.h's Feature, as stored).
struct FeatureRecord {
    int64_t id = 0;
    int64_t sequence_id = 0;
    std::string key;       // gene, CDS, promoter, ...
    std::string location;  // INSDC location over the sequence as stored
    std::vector<std::pair<std::string, std::optional<std::string>>> qualifiers;  // a flag has no value
    bool operator==(const FeatureRecord&) const = default;
};

// An activity predictor stored by name (carbon/predict/probe.h's Probe; storage keeps its JSON and
// what a list shows, and does not depend on the engine's types: carbon/runs/predictor_records.h
// converts).
struct PredictorRecord {
    int64_t id = 0;
    std::string name;  // unique in the project, 1 to 200 bytes
    std::string kind = "fitted";
    std::string created;
    std::string model_path, model_fingerprint;
    std::string table_path, table_hash;
    std::vector<std::string> conditions;
    std::string definition;  // the predictor file's JSON; empty when listed without it
};

// A construct the project's designs are made in and ordered as (issue 33): the sequences a design
// is synthesised between (MPRA adapters and primers, a promoter and reporter, cloning overhangs),
// A, C, G and T, stored upper-case, by a name unique in the project. A generation run made in one
// records its name and bases in its settings (carbon/runs/run_settings.h), so that a later change
// to the project's constructs never changes what a run's designs were made in.
constexpr size_t kMaxConstructPart = 10000;  // bp in each part (Project::add_construct)
struct ConstructRecord {
    int64_t id = 0;
    std::string name;  // 1 to 200 bytes
    std::string upstream, downstream;
    std::string description;
    std::string created;
};

// A named choice of designs (the Designs table's diverse selection, carbon-cli select --save-as),
// in the order chosen, with how it was made as a JSON object (method, count, distance, ...).
struct SelectionRecord {
    int64_t id = 0;
    std::string name;  // 1 to 200 bytes, unique in the project
    std::string created;
    std::string settings = "{}";
    std::vector<int64_t> design_ids;
};

enum class RegionKind { Design, Pinned, Annotation };
const char* region_kind_name(RegionKind k);
RegionKind parse_region_kind(const std::string& s);

// A region belongs to a sequence or to a design (exactly one of the two ids is set).
struct Region {
    int64_t id = 0;
    int64_t sequence_id = 0, design_id = 0;
    RegionKind kind = RegionKind::Annotation;
    int64_t start = 0, end = 0;
    std::string template_iupac;  // design regions: allowed bases per position (may be empty)
    std::string label;
};

// One engine invocation: generation, scoring, variant scoring or mutagenesis. `settings` holds
// every request setting as key/value text so that the run can be reproduced exactly.
struct Run {
    int64_t id = 0;
    std::string kind;  // "generate", "score", "variant", "ism"
    std::string model_path, model_config_hash, tokenizer_hash;
    std::string backend;
    uint64_t seed = 0;
    std::string engine_version;
    std::string started, finished;  // ISO 8601 UTC; finished empty while running
    double bases_per_second = 0;
    std::string status = "running";  // running, finished, cancelled, failed
    std::vector<std::pair<std::string, std::string>> settings;
    std::optional<std::string> setting(const std::string& key) const;
};

// One output of an activity predictor for a design: the predictor (its name or file, as the run
// says it), the output, the value (NaN: not predicted) and its held-out accuracy in words.
struct DesignPrediction {
    std::string predictor, output;
    double value = std::nan("");
    std::string held_out;
};

// A design as the project holds it: the engine's Design (its bases, scores, rank, stream and
// backtracks: runs::design_record and design_of map the two) plus what storing adds (ids, the run
// and the sequence it belongs to, its name, creation time, the user's verdict, its lowest
// per-base score). Storage's own type: storage does not depend on the engine's result types.
struct DesignRecord {
    int64_t id = 0;
    int64_t run_id = 0;
    int64_t sequence_id = 0;  // the context sequence it was designed for; 0 = none
    std::string name;
    std::string bases;
    double design_logp = 0, ranking_logp = 0;
    int rank = 0;
    int64_t stream_index = 0;  // the random stream it drew from (reproduces it with the run seed)
    int64_t backtracks = 0;
    std::string created;
    std::string flag;  // "", "starred" or "discarded": the user's verdict
    // Lowest per-base log p of the design's "logp" track, set by add_design; NaN without one.
    double min_base_logp = 0;
    // Tag guidance's specificity (fns_generate.h Design::specificity); NaN for unguided designs.
    double specificity = std::nan("");
    // The run's objective for this design (generate-and-rank, evolution; the run's settings name
    // it); NaN where none was computed.
    double objective = std::nan("");
    // What activity predictors say of it: stored by add_design, read by predictions_of_design
    // (list_designs leaves it empty).
    std::vector<DesignPrediction> predictions;
};

enum class TrackDType : uint8_t { F32 = 0, F16 = 1 };

// Per-base values of a sequence or a design: `width` values per base (1: a likelihood track,
// 4: the A/C/G/T distribution), stored as one little-endian blob of length*width elements.
struct Track {
    int64_t id = 0;
    int64_t sequence_id = 0, design_id = 0;  // exactly one is set
    std::string kind;                        // "logp", "entropy", "dist_acgt", "delta", ...
    TrackDType dtype = TrackDType::F32;
    int width = 1;
    std::vector<float> values;  // length() * width, base-major; NaN = no value
    int64_t length() const { return width > 0 ? int64_t(values.size()) / width : 0; }
};

// A single-base substitution on a stored sequence, with its scores when computed (NaN = not).
struct VariantRecord {
    int64_t id = 0;
    int64_t sequence_id = 0;
    int64_t run_id = 0;  // 0 = imported, not scored
    int64_t position = 0;
    char ref = 'N', alt = 'N';
    std::string label;  // the VCF ID column, or ""
    double site_log_odds, window_delta, window_delta_rc, ism_score;
    int64_t window_start = -1, window_end = -1;
    VariantRecord();
};

// One (variant, alternative) row of a whole-VCF variant effect run ("vep"; see vep_result.h).
struct VepRow {
    std::string chrom;
    int64_t pos = 0;  // 1-based, as in the VCF
    std::string id;   // "." for none
    std::string ref, alt, status;
    int64_t window_start = 0, window_end = 0;  // 1-based, inclusive; 0 when not scored
    double site_log_odds = 0, window_delta = 0, window_delta_rc = 0, window_delta_mean = 0;  // NaN: NA
    // In a project: the stored sequence the row's chrom names when the run was scored against the
    // project's own sequences (0 otherwise, or once that sequence is deleted).
    int64_t sequence_id = 0;
    bool scored() const { return window_end > 0; }
};

enum class IntegrityCheck { None, Quick, Full };

struct OpenOptions {
    bool create = true;  // create the file when missing (an existing empty, 0-byte file is taken too)
    // Nothing is written, not even the switch to WAL or a migration: an older project is read
    // through views, a file in a read-only folder is read as it is.
    bool read_only = false;
    IntegrityCheck check = IntegrityCheck::Quick;  // on open; problems throw Error
    // The longest a statement waits for another program's write transaction before it fails.
    int busy_timeout_ms = 5000;
    // Called while waiting for another program's write: seconds waited and the limit; first after
    // one second, then every five.
    std::function<void(double waited_s, double limit_s)> on_wait = nullptr;
    // Reading the file's header and schema, before it is trusted, takes at most this long; a
    // file that takes longer is refused (a project's schema is read in milliseconds).
    double schema_read_limit_s = 10.0;
};

class Transaction;

// One connection to a project file. Not shared between threads: in the desktop application the
// ProjectStore thread holds the only one (reads and writes); carbon-cli holds its own. WAL lets a
// reader in another process go on while a writer commits.
// Every write method is one transaction unless called inside an explicit Transaction.
class Project {
public:
    // Opens a project, or creates one where `path` is missing (or an empty 0-byte file). Before
    // anything is written the file must be a Carbon Studio project: SQLite application_id
    // project_application_id, or, for files of versions that did not set it (schema 1-3,
    // application_id 0), exactly the tables and columns the migrations give that schema version;
    // such a file gets the id when it is first opened for writing. Anything else (another
    // program's database, a file with a few of our table names) is refused with an Error that
    // says so, and the file is left byte for byte as it was.
    static std::unique_ptr<Project> open(const std::string& path, const OpenOptions& options = {});
    ~Project();
    Project(const Project&) = delete;
    Project& operator=(const Project&) = delete;

    const std::string& path() const { return path_; }
    // True when this open created the file: a command that then fails removes it again
    // (remove_project_files) rather than leave an empty project behind.
    bool created() const { return created_; }
    // True when nothing was stored in it yet (no sequence, run, design, track or variant).
    bool empty();
    // The file's PRAGMA user_version: schema_version() unless a read-only open left it older.
    int file_schema_version();
    // PRAGMA integrity_check (full) or quick_check: the problems found, empty when sound.
    std::vector<std::string> check_integrity(bool full = true);

    // Writes.
    int64_t add_sequence(SequenceRecord s);
    int64_t add_region(const Region& r);
    int64_t begin_run(Run r);  // sets started (if empty) and status running
    void finish_run(int64_t run_id, const std::string& status, double bases_per_second);
    // A design with its regions and tracks lands whole or not at all.
    int64_t add_design(DesignRecord d, std::vector<Track> tracks = {}, std::vector<Region> regions = {});
    int64_t add_track(const Track& t);
    void add_variants(std::vector<VariantRecord>& variants);  // sets their ids
    // Rows of a "vep" run (see vep_result.h: store_vep_result), numbered from first_index in order.
    void add_vep_rows(int64_t run_id, int64_t first_index, const std::vector<VepRow>& rows);
    // The features of a sequence, in order, replacing any it had (in the caller's transaction,
    // or one of its own); each location must parse over the sequence's bases.
    void set_features(int64_t sequence_id, const std::vector<FeatureRecord>& features);
    // An edited sequence: new bases and the full new set of its regions (and, when given, of its
    // features, moved with the edit), in one transaction.
    void update_sequence(int64_t sequence_id, const std::string& bases, std::vector<Region> regions,
                         const std::vector<FeatureRecord>* features = nullptr);
    void rename_sequence(int64_t sequence_id, const std::string& name);
    void set_design_flag(int64_t design_id, const std::string& flag);  // "", "starred", "discarded"
    // A predictor under a name no other predictor of the project has (Error naming the one that
    // has it); its definition must be a JSON object.
    int64_t add_predictor(const PredictorRecord& p);
    // A construct under a name no other construct has; its parts A, C, G, T (either case). Error
    // naming the part and position of any other letter, a taken name, or two empty parts.
    int64_t add_construct(const ConstructRecord& c);
    void remove_construct(const std::string& name);  // Error when there is none of that name
    // A selection of stored designs (each once; at least one). A taken name is an Error unless
    // `replace`, which swaps the old selection for the new one in one transaction.
    int64_t save_selection(const SelectionRecord& s, bool replace = false);
    void remove_selection(const std::string& name);  // Error when there is none of that name
    // A consistent copy of the committed project at `path` (which must not exist): Save As.
    void save_copy(const std::string& path);
    // Writes the committed transactions from the -wal file into the project file itself (as far
    // as no reader holds them back; never waits), so that a plain copy of the .carbon file alone
    // holds them. Returns whether every committed page reached the file.
    bool checkpoint();

    // Reads.
    std::vector<SequenceRecord> list_sequences(bool with_bases = false);
    std::optional<SequenceRecord> sequence(int64_t id);
    // Names are not unique in a project: every sequence of that name, by id.
    std::vector<SequenceRecord> find_sequences(const std::string& name, bool with_bases = true);
    // The one sequence of that name; nullopt when none; an Error listing the candidates (id,
    // length, origin) when several share it, so that nothing picks one silently.
    std::optional<SequenceRecord> find_sequence(const std::string& name);
    std::vector<Region> regions_of_sequence(int64_t sequence_id);
    std::vector<Region> regions_of_design(int64_t design_id);
    std::vector<FeatureRecord> features_of_sequence(int64_t sequence_id);
    std::vector<Run> list_runs();
    std::optional<Run> run(int64_t id);
    // run_id 0: every design; ordered by run, then rank.
    std::vector<DesignRecord> list_designs(int64_t run_id = 0, bool with_bases = true);
    std::optional<DesignRecord> design(int64_t id);
    std::vector<Track> tracks_of_design(int64_t design_id);
    // By predictor, then output name.
    std::vector<DesignPrediction> predictions_of_design(int64_t design_id);
    // Every design's, with its design id, in one statement (a project's designs table).
    std::vector<std::pair<int64_t, DesignPrediction>> list_design_predictions();
    // Predictions of designs already stored (a predictor run over the designs table): each
    // (design id, prediction) replaces what that predictor said of that output before; all in one
    // transaction. Error naming a design id the project does not hold.
    void set_design_predictions(const std::vector<std::pair<int64_t, DesignPrediction>>& predictions);
    std::vector<Track> tracks_of_sequence(int64_t sequence_id);
    std::vector<VariantRecord> variants_of_sequence(int64_t sequence_id);
    // The rows of a "vep" run in their order, each handed to `row` as it is read (one statement,
    // linear in the rows, one row in memory); and all of them at once.
    void each_vep_row(int64_t run_id, const std::function<void(VepRow&&)>& row);
    std::vector<VepRow> vep_rows(int64_t run_id);
    // Predictors by name, with their definitions when asked.
    std::vector<PredictorRecord> list_predictors(bool with_definition = false);
    std::optional<PredictorRecord> find_predictor(const std::string& name);
    // Constructs and selections by name (selections with their design ids, in order).
    std::vector<ConstructRecord> list_constructs();
    std::optional<ConstructRecord> find_construct(const std::string& name);
    std::vector<SelectionRecord> list_selections();
    std::optional<SelectionRecord> find_selection(const std::string& name);
    int64_t count(const std::string& table);

    sqlite3* handle() { return db_; }

private:
    friend class Transaction;
    Project(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
    static int busy_handler(void* self, int count);
    void exec(const char* sql);
    int64_t insert_track(const Track& t);
    void insert_predictions(int64_t design_id, const std::string& design_name, const std::vector<DesignPrediction>& predictions);
    int64_t insert_region(const Region& r);
    void check_design_flag(const std::string& flag) const;
    std::string path_;
    sqlite3* db_ = nullptr;
    int depth_ = 0;  // nested Transaction objects: only the outermost commits
    bool created_ = false;
    int busy_timeout_ms_ = 5000;
    std::function<void(double, double)> on_wait_;
    std::chrono::steady_clock::time_point wait_start_, next_report_;
};

// Removes a project file with its -wal, -shm and -journal files (a project this program created
// and did not finish); missing files are no error.
void remove_project_files(const std::string& path);

// BEGIN IMMEDIATE on construction (the one writer takes the write lock up front, so it never
// fails half-way on a lock), COMMIT on commit(), ROLLBACK when destroyed uncommitted.
class Transaction {
public:
    explicit Transaction(Project& p);
    ~Transaction();
    void commit();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

private:
    Project& p_;
    bool done_ = false;
};

// Track blobs: element encoding of the values (little-endian f32 or IEEE f16).
std::string encode_track_values(const std::vector<float>& values, TrackDType dtype);
std::vector<float> decode_track_values(const void* data, size_t bytes, TrackDType dtype);

std::string utc_now_iso8601();

}  // namespace carbon::storage
