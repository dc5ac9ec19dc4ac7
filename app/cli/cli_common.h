// Shared pieces of carbon-cli commands: model loading from --model/--backend/--threads/--yarn,
// metadata tag resolution against the offered list, and a progress line on stderr.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "carbon/model.h"
#ifdef CARBON_HAVE_STORAGE
#include "carbon/storage/reference.h"
#endif
#include "cli_args.h"

namespace carbon::cli {

// True (after printing `usage` on stdout) when argv holds --help or -h: every command answers it.
bool wants_help(const std::vector<std::string>& argv, const char* usage);

// Loads --model with --backend (auto|cpu|cuda), --threads and --yarn when present in `a`;
// prints the backend notice once on stderr.
std::unique_ptr<Model> load_model_from_args(const Args& a);
// The model in `dir` under the same --backend, --threads and --yarn (a second model beside --model).
std::unique_ptr<Model> load_model_from_args(const Args& a, const std::string& dir);

#ifdef CARBON_HAVE_STORAGE
// A reference genome (--reference) with its index checked and, when the file's own index did not
// describe it, one built into the user's cache instead; says so once on stderr.
std::unique_ptr<storage::ReferenceGenome> open_reference(const std::string& path);
#endif

// "--tags a,b" -> the text placed before <dna>. Each tag is taken as written if it is in the
// offered list (resources/metadata_tags.txt), with or without its angle brackets; otherwise an
// Error listing the offered tags, unless `free` is set (then used as written).
std::string resolve_tags(const std::string& comma_list, bool free);
// Design ids as an option gives them ("12,13,40"; empty parts skipped); Error naming `option` and
// the part that is not an id.
std::vector<int64_t> parse_ids(const std::string& list, const char* option);

// A score in TSV output: "NA" for NaN (undefined, or not computed), else `digits` significant
// digits (9: enough to compare to 1e-6). One function, so that commands printing the same score
// agree to the byte (vep and variant).
std::string tsv_number(double v, int digits = 9);

// Prints "done/total unit (rate/s, ETA)" on stderr at most twice a second, once the work has
// run for a second; nothing when quiet.
class ProgressPrinter {
public:
    explicit ProgressPrinter(bool quiet) : quiet_(quiet), start_(std::chrono::steady_clock::now()) {}
    void update(double done, double total, const char* unit, double rate);
    void finish();

private:
    bool quiet_;
    bool printed_ = false;
    std::chrono::steady_clock::time_point start_, last_{};
};

}  // namespace carbon::cli
