// What an SQLite failure means for the user: a locked project (with how long this program
// waited), a full disk, a read-only file or folder, a damaged file; SQLite's own words follow in
// parentheses. Used by every error the storage sources raise. Private to storage/.
#pragma once

#include <sqlite3.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

namespace carbon::storage::detail {

// The busy handler's last give-up on this thread (a connection is used by one thread only).
struct BusyGiveUp {
    sqlite3* db = nullptr;
    double waited_s = 0;
};
inline BusyGiveUp& last_busy_give_up() {
    thread_local BusyGiveUp g;
    return g;
}

// The cause of the last failure on `db`, in the user's terms.
inline std::string failure_text(sqlite3* db) {
    if (!db) return "out of memory";
    const std::string msg = sqlite3_errmsg(db);
    const int code = sqlite3_extended_errcode(db) & 0xff;
    const int err = (code == SQLITE_IOERR || code == SQLITE_CANTOPEN || code == SQLITE_FULL || code == SQLITE_READONLY)
                        ? sqlite3_system_errno(db)
                        : 0;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
        const BusyGiveUp& g = last_busy_give_up();
        std::string waited;
        if (g.db == db) waited = " within " + std::to_string(int(std::lround(g.waited_s))) + " s";
        return "another program is writing to the project and did not finish" + waited + " (SQLite: " + msg + ")";
    }
    if (code == SQLITE_FULL || err == ENOSPC || err == EDQUOT)
        return "the disk is full (" + std::string(err ? std::strerror(err) : "no space left") + "; SQLite: " + msg + ")";
    if (code == SQLITE_READONLY || err == EROFS || err == EACCES || err == EPERM)
        return "the file or its folder cannot be written (" + std::string(err ? std::strerror(err) : "read-only") +
               "; SQLite: " + msg + ")";
    if (code == SQLITE_IOERR) return "disk I/O error" + (err ? ": " + std::string(std::strerror(err)) : std::string()) + " (SQLite: " + msg + ")";
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return msg + " (the file is damaged, or not a Carbon Studio project)";
    return msg;
}

}  // namespace carbon::storage::detail
