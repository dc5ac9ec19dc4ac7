// Project: the typed reads and writes of the project tables (opening is project_open.cpp). One
// connection per object; see project.h.
#include "carbon/storage/project.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "schema.h"
#include "sqlite_stmt.h"

namespace carbon::storage {

using detail::Stmt;

int schema_version() { return detail::newest_schema_version(); }

const char* region_kind_name(RegionKind k) {
    switch (k) {
        case RegionKind::Design: return "design";
        case RegionKind::Pinned: return "pinned";
        case RegionKind::Annotation: return "annotation";
    }
    return "annotation";
}

RegionKind parse_region_kind(const std::string& s) {
    if (s == "design") return RegionKind::Design;
    if (s == "pinned") return RegionKind::Pinned;
    if (s == "annotation") return RegionKind::Annotation;
    throw Error("unknown region kind '" + s + "' (expected design, pinned or annotation)");
}

std::optional<std::string> Run::setting(const std::string& key) const {
    for (const auto& [k, v] : settings)
        if (k == key) return v;
    return std::nullopt;
}

VariantRecord::VariantRecord()
    : site_log_odds(NAN), window_delta(NAN), window_delta_rc(NAN), ism_score(NAN) {}

std::string utc_now_iso8601() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec, int(ms));
    return buf;
}

std::string encode_track_values(const std::vector<float>& values, TrackDType dtype) {
    std::string out;
    if (dtype == TrackDType::F32) {
        out.resize(values.size() * 4);
        std::memcpy(out.data(), values.data(), out.size());  // the supported targets are little-endian
    } else {
        out.resize(values.size() * 2);
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t h = f32_to_f16(values[i]);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
    return out;
}

std::vector<float> decode_track_values(const void* data, size_t bytes, TrackDType dtype) {
    const size_t n = bytes / (dtype == TrackDType::F32 ? 4 : 2);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = load_as_f32(data, dtype == TrackDType::F32 ? DType::F32 : DType::F16, i);
    return v;
}

namespace {

const char* dtype_text(TrackDType d) { return d == TrackDType::F32 ? "f32" : "f16"; }

}  // namespace

std::vector<std::string> Project::check_integrity(bool full) {
    std::vector<std::string> out;
    Stmt s(db_, full ? "PRAGMA integrity_check(100)" : "PRAGMA quick_check(100)");
    while (s.step()) {
        std::string row = s.text(0);
        if (row != "ok") out.push_back(row);
    }
    Stmt fk(db_, "PRAGMA foreign_key_check");
    while (fk.step()) out.push_back("row " + std::to_string(fk.i64(1)) + " of " + fk.text(0) + " refers to a missing " + fk.text(2) + " row");
    return out;
}

void Project::exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        sqlite3_free(err);
        const std::string what = std::strcmp(sql, "BEGIN IMMEDIATE") == 0 ? "cannot start writing"
                                 : std::strcmp(sql, "COMMIT") == 0        ? "cannot commit"
                                                                          : "'" + std::string(sql) + "' failed";
        throw Error(path_ + ": " + what + ": " + detail::failure_text(db_));
    }
}

Transaction::Transaction(Project& p) : p_(p) {
    if (p_.depth_++ == 0) {
        try {
            p_.exec("BEGIN IMMEDIATE");
        } catch (...) {
            --p_.depth_;
            throw;
        }
    }
}

void Transaction::commit() {
    if (done_) return;
    done_ = true;
    if (--p_.depth_ == 0) p_.exec("COMMIT");
}

Transaction::~Transaction() {
    if (done_) return;
    // An inner failure poisons the outer transaction: the exception propagates through it, and
    // the outermost one rolls everything back.
    if (--p_.depth_ == 0) sqlite3_exec(p_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

int64_t Project::add_sequence(SequenceRecord s) {
    if (s.created.empty()) s.created = utc_now_iso8601();
    if (s.modified.empty()) s.modified = s.created;
    Stmt st(db_, "INSERT INTO sequences(name, bases, description, origin, created, modified, header) VALUES(?,?,?,?,?,?,?)");
    st.bind(1, s.name).bind(2, s.bases).bind(3, s.description).bind(4, s.origin).bind(5, s.created).bind(6, s.modified);
    st.bind(7, entry_header_json(writable_entry_header(s.header))).run();
    return sqlite3_last_insert_rowid(db_);
}

int64_t Project::insert_region(const Region& r) {
    if ((r.sequence_id == 0) == (r.design_id == 0)) throw Error(path_ + ": a region belongs to exactly one sequence or design");
    if (r.start < 0 || r.end < r.start)
        throw Error(path_ + ": region " + std::to_string(r.start) + "-" + std::to_string(r.end) + " is not a valid span");
    Stmt st(db_, "INSERT INTO regions(sequence_id, design_id, kind, start, \"end\", template, label) VALUES(?,?,?,?,?,?,?)");
    st.bind_id(1, r.sequence_id).bind_id(2, r.design_id).bind(3, region_kind_name(r.kind)).bind(4, r.start).bind(5, r.end);
    st.bind(6, r.template_iupac).bind(7, r.label).run();
    return sqlite3_last_insert_rowid(db_);
}

int64_t Project::add_region(const Region& r) { return insert_region(r); }

int64_t Project::begin_run(Run r) {
    if (r.started.empty()) r.started = utc_now_iso8601();
    Transaction t(*this);
    Stmt st(db_, "INSERT INTO runs(kind, model_path, model_config_hash, tokenizer_hash, backend, seed, engine_version, started, "
                 "finished, bases_per_second, status) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    st.bind(1, r.kind).bind(2, r.model_path).bind(3, r.model_config_hash).bind(4, r.tokenizer_hash).bind(5, r.backend);
    st.bind(6, int64_t(r.seed)).bind(7, r.engine_version).bind(8, r.started).bind(9, r.finished).bind(10, r.bases_per_second);
    st.bind(11, r.status).run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    Stmt kv(db_, "INSERT OR REPLACE INTO run_settings(run_id, key, value) VALUES(?,?,?)");
    for (const auto& [k, v] : r.settings) {
        kv.bind(1, id).bind(2, k).bind(3, v);
        kv.run();
    }
    t.commit();
    return id;
}

void Project::finish_run(int64_t run_id, const std::string& status, double bases_per_second) {
    Stmt st(db_, "UPDATE runs SET finished = ?, status = ?, bases_per_second = ? WHERE id = ?");
    st.bind(1, utc_now_iso8601()).bind(2, status).bind(3, bases_per_second).bind(4, run_id).run();
    if (sqlite3_changes(db_) != 1) throw Error(path_ + ": no run " + std::to_string(run_id));
}

int64_t Project::insert_track(const Track& t) {
    if ((t.sequence_id == 0) == (t.design_id == 0)) throw Error(path_ + ": a track belongs to exactly one sequence or design");
    if (t.width < 1 || t.values.size() % size_t(t.width) != 0)
        throw Error(path_ + ": track '" + t.kind + "' has " + std::to_string(t.values.size()) + " values, not a multiple of its width " +
                    std::to_string(t.width));
    Stmt st(db_, "INSERT INTO tracks(sequence_id, design_id, kind, dtype, length, width, data) VALUES(?,?,?,?,?,?,?)");
    st.bind_id(1, t.sequence_id).bind_id(2, t.design_id).bind(3, t.kind).bind(4, dtype_text(t.dtype)).bind(5, t.length());
    st.bind(6, t.width).bind_blob(7, encode_track_values(t.values, t.dtype)).run();
    return sqlite3_last_insert_rowid(db_);
}

int64_t Project::add_track(const Track& t) { return insert_track(t); }

int64_t Project::add_design(DesignRecord d, std::vector<Track> tracks, std::vector<Region> regions) {
    if (d.created.empty()) d.created = utc_now_iso8601();
    Transaction t(*this);
    check_design_flag(d.flag);
    // The lowest per-base log p of its "logp" track (NaN bases, such as N, do not count).
    double min_logp = std::nan("");
    for (const Track& tr : tracks)
        if (tr.kind == "logp" && tr.width == 1)
            for (float v : tr.values)
                if (!std::isnan(v) && (std::isnan(min_logp) || v < min_logp)) min_logp = v;
    Stmt st(db_, "INSERT INTO designs(run_id, sequence_id, name, bases, design_logp, ranking_logp, rank, stream_index, backtracks, "
                 "created, flag, min_base_logp, specificity, objective) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    st.bind(1, d.run_id).bind_id(2, d.sequence_id).bind(3, d.name).bind(4, d.bases).bind(5, d.design_logp).bind(6, d.ranking_logp);
    st.bind(7, d.rank).bind(8, d.stream_index).bind(9, d.backtracks).bind(10, d.created).bind(11, d.flag);
    if (std::isnan(min_logp)) st.bind_null(12);
    else st.bind(12, min_logp);
    if (std::isnan(d.specificity)) st.bind_null(13);
    else st.bind(13, d.specificity);
    if (std::isnan(d.objective)) st.bind_null(14);
    else st.bind(14, d.objective);
    st.run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    insert_predictions(id, d.name, d.predictions);
    for (Track& tr : tracks) {
        tr.design_id = id;
        tr.sequence_id = 0;
        if (tr.length() != int64_t(d.bases.size()))
            throw Error(path_ + ": track '" + tr.kind + "' of design '" + d.name + "' has " + std::to_string(tr.length()) +
                        " positions for " + std::to_string(d.bases.size()) + " bases");
        insert_track(tr);
    }
    for (Region& r : regions) {
        r.design_id = id;
        r.sequence_id = 0;
        insert_region(r);
    }
    t.commit();
    return id;
}

void Project::check_design_flag(const std::string& flag) const {
    if (flag != "" && flag != "starred" && flag != "discarded")
        throw Error(path_ + ": design flag must be '', 'starred' or 'discarded', not '" + flag + "'");
}

void Project::set_design_flag(int64_t design_id, const std::string& flag) {
    check_design_flag(flag);
    Stmt st(db_, "UPDATE designs SET flag = ? WHERE id = ?");
    st.bind(1, flag).bind(2, design_id).run();
    if (sqlite3_changes(db_) != 1) throw Error(path_ + ": no design with id " + std::to_string(design_id));
}

void Project::update_sequence(int64_t sequence_id, const std::string& bases, std::vector<Region> regions,
                              const std::vector<FeatureRecord>* features) {
    Transaction t(*this);  // the bases and their regions change together or not at all
    // An imported entry's date is the entry's as it was: once its bases change it no longer
    // applies (GenBank export then dates it by the change).
    Stmt st(db_,
            "UPDATE sequences SET header = CASE WHEN bases IS ?1 THEN header ELSE json_remove(header, '$.date') END, "
            "bases = ?1, modified = ?2 WHERE id = ?3");
    st.bind(1, bases).bind(2, utc_now_iso8601()).bind(3, sequence_id).run();
    if (sqlite3_changes(db_) != 1) throw Error(path_ + ": no sequence with id " + std::to_string(sequence_id));
    Stmt del(db_, "DELETE FROM regions WHERE sequence_id = ?");
    del.bind(1, sequence_id).run();
    for (Region& r : regions) {
        r.sequence_id = sequence_id;
        r.design_id = 0;
        if (r.end > int64_t(bases.size()))
            throw Error(path_ + ": region " + std::to_string(r.start) + "-" + std::to_string(r.end) + " runs past the " +
                        std::to_string(bases.size()) + " bases of sequence " + std::to_string(sequence_id));
        insert_region(r);
    }
    if (features) set_features(sequence_id, *features);
    t.commit();
}

void Project::rename_sequence(int64_t sequence_id, const std::string& name) {
    if (name.empty()) throw Error(path_ + ": a sequence name cannot be empty");
    Stmt st(db_, "UPDATE sequences SET name = ?, modified = ? WHERE id = ?");
    st.bind(1, name).bind(2, utc_now_iso8601()).bind(3, sequence_id).run();
    if (sqlite3_changes(db_) != 1) throw Error(path_ + ": no sequence with id " + std::to_string(sequence_id));
}

void Project::save_copy(const std::string& path) {
    if (std::filesystem::exists(path)) throw Error(path + ": already exists (choose a new file name for the copy)");
    // VACUUM INTO writes a consistent, compacted copy of the committed state in one statement.
    Stmt st(db_, "VACUUM INTO ?");
    st.bind(1, path).run();
}

bool Project::checkpoint() {
    int log = 0, copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    return rc == SQLITE_OK && log >= 0 && copied == log;
}

void Project::add_variants(std::vector<VariantRecord>& variants) {
    Transaction t(*this);
    Stmt st(db_, "INSERT INTO variants(sequence_id, run_id, position, ref, alt, label, site_log_odds, window_start, window_end, "
                 "window_delta, window_delta_rc, ism_score) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    for (VariantRecord& v : variants) {
        st.bind(1, v.sequence_id).bind_id(2, v.run_id).bind(3, v.position).bind(4, std::string(1, v.ref)).bind(5, std::string(1, v.alt));
        st.bind(6, v.label).bind(7, v.site_log_odds);
        if (v.window_start >= 0) st.bind(8, v.window_start).bind(9, v.window_end);
        st.bind(10, v.window_delta).bind(11, v.window_delta_rc).bind(12, v.ism_score);
        st.run();
        v.id = sqlite3_last_insert_rowid(db_);
    }
    t.commit();
}

// ---- reads

namespace {

SequenceRecord read_sequence(const Stmt& s, bool with_bases, const std::string& path) {
    SequenceRecord r;
    r.id = s.i64(0);
    r.name = s.text(1);
    if (with_bases) r.bases = s.text(2);
    r.length = s.i64(3);
    r.description = s.text(4);
    r.origin = s.text(5);
    r.created = s.text(6);
    r.modified = s.text(7);
    r.header = parse_entry_header_json(s.text(8), path + ": sequence " + std::to_string(r.id));
    return r;
}

const char* kSeqCols = "SELECT id, name, %s, length(bases), description, origin, created, modified, header FROM sequences";

std::string seq_query(bool with_bases, const char* tail) {
    char buf[256];
    std::snprintf(buf, sizeof buf, kSeqCols, with_bases ? "bases" : "''");
    return std::string(buf) + tail;
}

Region read_region(const Stmt& s) {
    Region r;
    r.id = s.i64(0);
    r.sequence_id = s.i64(1);
    r.design_id = s.i64(2);
    r.kind = parse_region_kind(s.text(3));
    r.start = s.i64(4);
    r.end = s.i64(5);
    r.template_iupac = s.text(6);
    r.label = s.text(7);
    return r;
}

DesignRecord read_design(const Stmt& s) {
    DesignRecord d;
    d.id = s.i64(0);
    d.run_id = s.i64(1);
    d.sequence_id = s.i64(2);
    d.name = s.text(3);
    d.bases = s.text(4);
    d.design_logp = s.real(5);
    d.ranking_logp = s.real(6);
    d.rank = int(s.i64(7));
    d.stream_index = s.i64(8);
    d.backtracks = s.i64(9);
    d.created = s.text(10);
    d.flag = s.text(11);
    d.min_base_logp = s.real(12);  // NULL reads as NaN
    d.specificity = s.real(13);
    d.objective = s.real(14);
    return d;
}

Track read_track(const Stmt& s, const std::string& path) {
    Track t;
    t.id = s.i64(0);
    t.sequence_id = s.i64(1);
    t.design_id = s.i64(2);
    t.kind = s.text(3);
    t.dtype = s.text(4) == "f16" ? TrackDType::F16 : TrackDType::F32;
    const int64_t length = s.i64(5);
    t.width = int(s.i64(6));
    t.values = decode_track_values(s.blob(7), s.bytes(7), t.dtype);
    if (int64_t(t.values.size()) != length * t.width)
        throw Error(path + ": track " + std::to_string(t.id) + " holds " + std::to_string(t.values.size()) + " values, expected " +
                    std::to_string(length * t.width));
    return t;
}

}  // namespace

std::vector<SequenceRecord> Project::list_sequences(bool with_bases) {
    Stmt s(db_, seq_query(with_bases, " ORDER BY id").c_str());
    std::vector<SequenceRecord> out;
    while (s.step()) out.push_back(read_sequence(s, with_bases, path_));
    return out;
}

std::optional<SequenceRecord> Project::sequence(int64_t id) {
    const std::string q = seq_query(true, " WHERE id = ?");
    Stmt s(db_, q.c_str());
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return read_sequence(s, true, path_);
}

std::vector<SequenceRecord> Project::find_sequences(const std::string& name, bool with_bases) {
    const std::string q = seq_query(with_bases, " WHERE name = ? ORDER BY id");
    Stmt s(db_, q.c_str());
    s.bind(1, name);
    std::vector<SequenceRecord> out;
    while (s.step()) out.push_back(read_sequence(s, with_bases, path_));
    return out;
}

std::optional<SequenceRecord> Project::find_sequence(const std::string& name) {
    std::vector<SequenceRecord> found = find_sequences(name, false);
    if (found.empty()) return std::nullopt;
    if (found.size() > 1) {
        std::string list;
        for (size_t i = 0; i < found.size() && i < 10; ++i)
            list += std::string(i ? "; " : "") + "id " + std::to_string(found[i].id) + " (" + std::to_string(found[i].length) + " bp, " +
                    (found[i].origin.empty() ? std::string("origin not recorded") : "from " + found[i].origin) + ")";
        if (found.size() > 10) list += "; ...";
        throw Error(path_ + ": " + std::to_string(found.size()) + " sequences are named '" + name + "': " + list +
                    "; choose one by its id");
    }
    return sequence(found[0].id);
}

std::vector<Region> Project::regions_of_sequence(int64_t sequence_id) {
    Stmt s(db_, "SELECT id, sequence_id, design_id, kind, start, \"end\", template, label FROM regions WHERE sequence_id = ? ORDER BY start, id");
    s.bind(1, sequence_id);
    std::vector<Region> out;
    while (s.step()) out.push_back(read_region(s));
    return out;
}

std::vector<Region> Project::regions_of_design(int64_t design_id) {
    Stmt s(db_, "SELECT id, sequence_id, design_id, kind, start, \"end\", template, label FROM regions WHERE design_id = ? ORDER BY start, id");
    s.bind(1, design_id);
    std::vector<Region> out;
    while (s.step()) out.push_back(read_region(s));
    return out;
}

std::vector<Run> Project::list_runs() {
    std::vector<Run> out;
    std::vector<int64_t> ids;
    {
        Stmt s(db_, "SELECT id FROM runs ORDER BY id");
        while (s.step()) ids.push_back(s.i64(0));
    }
    for (int64_t id : ids)
        if (auto r = run(id)) out.push_back(std::move(*r));
    return out;
}

std::optional<Run> Project::run(int64_t id) {
    Stmt s(db_, "SELECT id, kind, model_path, model_config_hash, tokenizer_hash, backend, seed, engine_version, started, finished, "
                "bases_per_second, status FROM runs WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    Run r;
    r.id = s.i64(0);
    r.kind = s.text(1);
    r.model_path = s.text(2);
    r.model_config_hash = s.text(3);
    r.tokenizer_hash = s.text(4);
    r.backend = s.text(5);
    r.seed = uint64_t(s.i64(6));
    r.engine_version = s.text(7);
    r.started = s.text(8);
    r.finished = s.text(9);
    r.bases_per_second = s.real(10);
    r.status = s.text(11);
    Stmt kv(db_, "SELECT key, value FROM run_settings WHERE run_id = ? ORDER BY key");
    kv.bind(1, id);
    while (kv.step()) r.settings.emplace_back(kv.text(0), kv.text(1));
    return r;
}

std::vector<DesignRecord> Project::list_designs(int64_t run_id, bool with_bases) {
    std::string q = std::string("SELECT id, run_id, sequence_id, name, ") + (with_bases ? "bases" : "''") +
                    ", design_logp, ranking_logp, rank, stream_index, backtracks, created, flag, min_base_logp, specificity, objective FROM designs";
    q += run_id ? " WHERE run_id = ? ORDER BY rank, id" : " ORDER BY run_id, rank, id";
    Stmt s(db_, q.c_str());
    if (run_id) s.bind(1, run_id);
    std::vector<DesignRecord> out;
    while (s.step()) out.push_back(read_design(s));
    return out;
}

std::optional<DesignRecord> Project::design(int64_t id) {
    Stmt s(db_, "SELECT id, run_id, sequence_id, name, bases, design_logp, ranking_logp, rank, stream_index, backtracks, created, "
                "flag, min_base_logp, specificity, objective FROM designs WHERE id = ?");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return read_design(s);
}

std::vector<Track> Project::tracks_of_design(int64_t design_id) {
    Stmt s(db_, "SELECT id, sequence_id, design_id, kind, dtype, length, width, data FROM tracks WHERE design_id = ? ORDER BY id");
    s.bind(1, design_id);
    std::vector<Track> out;
    while (s.step()) out.push_back(read_track(s, path_));
    return out;
}

std::vector<Track> Project::tracks_of_sequence(int64_t sequence_id) {
    Stmt s(db_, "SELECT id, sequence_id, design_id, kind, dtype, length, width, data FROM tracks WHERE sequence_id = ? ORDER BY id");
    s.bind(1, sequence_id);
    std::vector<Track> out;
    while (s.step()) out.push_back(read_track(s, path_));
    return out;
}

std::vector<VariantRecord> Project::variants_of_sequence(int64_t sequence_id) {
    Stmt s(db_, "SELECT id, sequence_id, run_id, position, ref, alt, label, site_log_odds, window_start, window_end, window_delta, "
                "window_delta_rc, ism_score, window_start IS NULL FROM variants WHERE sequence_id = ? ORDER BY position, id");
    s.bind(1, sequence_id);
    std::vector<VariantRecord> out;
    while (s.step()) {
        VariantRecord v;
        v.id = s.i64(0);
        v.sequence_id = s.i64(1);
        v.run_id = s.i64(2);
        v.position = s.i64(3);
        const std::string ref = s.text(4), alt = s.text(5);
        v.ref = ref.empty() ? 'N' : ref[0];
        v.alt = alt.empty() ? 'N' : alt[0];
        v.label = s.text(6);
        v.site_log_odds = s.real(7);
        if (!s.i64(13)) {
            v.window_start = s.i64(8);
            v.window_end = s.i64(9);
        }
        v.window_delta = s.real(10);
        v.window_delta_rc = s.real(11);
        v.ism_score = s.real(12);
        out.push_back(v);
    }
    return out;
}

int64_t Project::count(const std::string& table) {
    static const char* const kTables[] = {"sequences", "regions", "runs", "run_settings", "designs", "tracks", "variants", "vep_results", "features", "predictors", "design_predictions", "constructs", "selections", "selection_designs"};
    for (const char* t : kTables)
        if (table == t) {
            const std::string q = "SELECT count(*) FROM " + table;
            Stmt s(db_, q.c_str());
            return s.step() ? s.i64(0) : 0;
        }
    throw Error("no table '" + table + "' in a project");
}

}  // namespace carbon::storage
