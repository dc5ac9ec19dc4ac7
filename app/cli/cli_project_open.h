// How carbon-cli opens project files: read-only for the commands that only read, and for
// writing with a bounded wait for another program's write that is reported on stderr. Included
// only where storage is built (CARBON_HAVE_STORAGE).
#pragma once

#include <cstdio>
#include <string>

#include "carbon/storage/project.h"

namespace carbon::cli {

inline carbon::storage::OpenOptions read_only_options() {
    carbon::storage::OpenOptions o;
    o.create = false;
    o.read_only = true;
    return o;
}

// Opened to write (and created when missing); a busy project is waited for up to `wait_s`
// seconds, saying so every few seconds.
inline carbon::storage::OpenOptions write_options(const std::string& path, double wait_s) {
    carbon::storage::OpenOptions o;
    o.busy_timeout_ms = int(wait_s * 1000);
    o.on_wait = [path](double waited, double limit) {
        std::fprintf(stderr, "waiting for another program writing to %s (%.0f s so far, at most %.0f s)...\n", path.c_str(), waited, limit);
    };
    return o;
}

}  // namespace carbon::cli
