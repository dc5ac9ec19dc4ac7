// A thin RAII wrapper over sqlite3_stmt for the storage sources: prepare, bind by position,
// step, read columns; every failure becomes a carbon::Error naming the project file and the
// statement. Private to storage/.
#pragma once

#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "carbon/support/common.h"
#include "sqlite_failure.h"

namespace carbon::storage::detail {

[[noreturn]] inline void fail(sqlite3* db, const std::string& what) {
    const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
    throw Error(std::string(file && *file ? file : "project") + ": " + what + ": " + failure_text(db));
}

class Stmt {
public:
    Stmt(sqlite3* db, const char* sql) : db_(db), sql_(sql) {
        if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) fail(db, std::string("cannot prepare '") + sql + "'");
    }
    ~Stmt() { sqlite3_finalize(st_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, int64_t v) { return check(sqlite3_bind_int64(st_, i, v)); }
    Stmt& bind(int i, int v) { return check(sqlite3_bind_int64(st_, i, v)); }
    Stmt& bind(int i, double v) {
        return v != v ? check(sqlite3_bind_null(st_, i)) : check(sqlite3_bind_double(st_, i, v));
    }
    Stmt& bind(int i, const std::string& v) {
        return check(sqlite3_bind_text64(st_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    }
    Stmt& bind(int i, const char* v) { return bind(i, std::string(v)); }
    Stmt& bind_blob(int i, const std::string& v) { return check(sqlite3_bind_blob64(st_, i, v.data(), v.size(), SQLITE_TRANSIENT)); }
    Stmt& bind_null(int i) { return check(sqlite3_bind_null(st_, i)); }
    // 0 is stored as NULL: the optional foreign keys (design_id, sequence_id, run_id).
    Stmt& bind_id(int i, int64_t id) { return id ? bind(i, id) : bind_null(i); }

    // true while a row is available.
    bool step() {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        // A cause outside the program (lock, disk, permissions) is said in the user's terms; for
        // anything else the statement helps whoever reads the report.
        const int code = sqlite3_errcode(db_) & 0xff;  // extended codes are on
        if (code == SQLITE_BUSY || code == SQLITE_FULL || code == SQLITE_READONLY || code == SQLITE_IOERR)
            fail(db_, sqlite3_stmt_readonly(st_) ? "cannot read the project" : "cannot write to the project");
        fail(db_, std::string("'") + sql_ + "' failed");
    }
    void run() {
        step();
        reset();
    }
    void reset() {
        sqlite3_reset(st_);
        sqlite3_clear_bindings(st_);
    }

    int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
    double real(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL ? double(NAN) : sqlite3_column_double(st_, c); }
    std::string text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
        return p ? std::string(p, size_t(sqlite3_column_bytes(st_, c))) : std::string();
    }
    const void* blob(int c) const { return sqlite3_column_blob(st_, c); }
    size_t bytes(int c) const { return size_t(sqlite3_column_bytes(st_, c)); }

private:
    Stmt& check(int rc) {
        if (rc != SQLITE_OK) fail(db_, std::string("cannot bind a value of '") + sql_ + "'");
        return *this;
    }
    sqlite3* db_;
    const char* sql_;
    sqlite3_stmt* st_ = nullptr;
};

}  // namespace carbon::storage::detail
