// What every form of `carbon-cli vep` shares (the single run, the Ray worker, the shard list):
// the settings read from the command line, the options it takes, and the writing helpers. The
// scorer itself is the variant-effect run's (carbon/runs/vep_run.h), shared with the desktop
// application.
// Needs storage/ (htslib); compiled only with CARBON_HAVE_STORAGE.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "carbon/runs/vep_run.h"
#include "cli_args.h"

namespace carbon::cli {

// The options every vep form takes (besides its own): with values, and flags.
std::set<std::string> vep_value_options();
std::set<std::string> vep_flag_options();

using runs::VepScorer;
using runs::VepSettings;
using runs::vep_header;
using runs::vep_row_key;

// The settings from the command line (the paths, window, strands, tags, regions).
VepSettings vep_settings(const Args& a);

// Writes all n bytes to fd (short writes and EINTR retried); Error "cannot write WHAT: reason".
void write_fully(int fd, const char* data, size_t n, const std::string& what);

// Closes a file descriptor when it goes out of scope.
class FdCloser {
public:
    explicit FdCloser(int fd) : fd_(fd) {}
    ~FdCloser();
    FdCloser(const FdCloser&) = delete;
    FdCloser& operator=(const FdCloser&) = delete;

private:
    int fd_;
};

// `carbon-cli vep --worker`: the long-lived engine process of a distributed run (cli_vep_worker.cpp).
int vep_worker(const Args& a, const VepSettings& settings);
// `carbon-cli vep --list-shards`: the run's header and shards as JSON (cli_vep_worker.cpp).
int vep_list_shards(const Args& a, const VepSettings& settings);

}  // namespace carbon::cli
